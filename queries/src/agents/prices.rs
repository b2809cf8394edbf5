//! What one API call cost: `[prices]` of `keel.toml` first (keel's formula, exact), else
//! the bundled, maintained table of the `genai-prices` crate (pydantic's price data, with
//! cache rates, 200k-token tiers and rates by date).
//!
//! Owns: the price of one call, and the one rule for a call keel cannot price (its cost
//! is unknown, never 0). Does not own: which calls count (`super::claims`).

use crate::sessions::exact::Fixed;
use keel_engine::agents::Tokens;
use keel_engine::sessions::{Decimal, Instant};
use keel_engine::settings::{ModelPrices, Rate};
use std::collections::BTreeMap;

/// A request whose input passes this many tokens is priced at a model's higher tier.
const TIER_START: u64 = 200_000;

/// What a call is priced with.
#[derive(Debug, Clone, Copy)]
pub struct CallPrice<'a> {
    pub harness: &'a str,
    pub model: &'a str,
    pub tokens: Tokens,
    pub fast: bool,
    pub at: Option<Instant>,
}

/// Multipliers for "fast" requests that the bundled table does not carry (published
/// rates: Opus 4.6 and 4.7 fast mode at 6×, Opus 4.8 at 2×).
const FAST_MULTIPLIERS: [(&str, &str); 3] = [
    ("claude-opus-4-6", "6"),
    ("claude-opus-4-7", "6"),
    ("claude-opus-4-8", "2"),
];

/// Why a call has no price.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unpriced {
    /// Neither `[prices]` nor the bundled table knows the model.
    Model,
    /// `[prices]` has no rate for a kind of token the call used.
    MissingRate(&'static str),
    /// A fast request of a model without a known multiplier.
    Fast,
}

/// The price of one call in USD, exact where `[prices]` gives it.
pub fn call_cost(
    overrides: &BTreeMap<String, ModelPrices>,
    call: &CallPrice<'_>,
) -> Result<Fixed, Unpriced> {
    match overrides.get(call.model) {
        Some(prices) => at_speed(
            call.model,
            call.fast,
            own_cost(prices, &call.tokens)?,
            prices.fast_multiplier.as_ref(),
        ),
        None => at_speed(call.model, call.fast, bundled_cost(call)?, None),
    }
}

/// The cost of calls of `model` at one speed, all priced by the bundled table, from the
/// sum of their table prices (`None`: the table does not know the model): the same as
/// the sum of [`call_cost`] over them, since a fast request's multiplier multiplies each.
pub fn bundled_sum_cost(model: &str, fast: bool, sum: Option<Fixed>) -> Result<Fixed, Unpriced> {
    at_speed(model, fast, sum.ok_or(Unpriced::Model)?, None)
}

/// The bundled table's price of one call at normal speed; `None` when it does not know
/// the model.
pub fn bundled_price(
    harness: &str,
    model: &str,
    tokens: Tokens,
    at: Option<Instant>,
) -> Option<Fixed> {
    bundled_cost(&CallPrice {
        harness,
        model,
        tokens,
        fast: false,
        at,
    })
    .ok()
}

/// `cost` at the call's speed: a fast request's cost times its multiplier (`[prices]`'s,
/// else the published one for the model).
fn at_speed(
    model: &str,
    fast: bool,
    cost: Fixed,
    override_multiplier: Option<&Rate>,
) -> Result<Fixed, Unpriced> {
    if !fast {
        return Ok(cost);
    }
    let multiplier = match override_multiplier {
        Some(rate) => Fixed::of(&rate.0),
        None => FAST_MULTIPLIERS
            .iter()
            .find(|(prefix, _)| model.starts_with(prefix))
            .map(|(_, factor)| Fixed::decimal(factor))
            .ok_or(Unpriced::Fast)?,
    };
    Ok(&cost * &multiplier)
}

/// keel's formula over `[prices]` rates: each kind of token at its rate per million, at
/// the `above_200k` rates when the request's input passes 200k tokens.
fn own_cost(prices: &ModelPrices, tokens: &Tokens) -> Result<Fixed, Unpriced> {
    let input_total = tokens
        .input
        .saturating_add(tokens.cache_write_5m)
        .saturating_add(tokens.cache_write_1h)
        .saturating_add(tokens.cache_read);
    let rates = match &prices.above_200k {
        Some(tier) if input_total > TIER_START => tier,
        _ => prices,
    };
    let parts: [(&'static str, u64, Option<&Rate>); 5] = [
        ("input", tokens.input, Some(&rates.input)),
        ("output", tokens.output, Some(&rates.output)),
        (
            "cache_write_5m",
            tokens.cache_write_5m,
            rates.cache_write_5m.as_ref(),
        ),
        (
            "cache_write_1h",
            tokens.cache_write_1h,
            rates.cache_write_1h.as_ref(),
        ),
        ("cache_read", tokens.cache_read, rates.cache_read.as_ref()),
    ];
    let per_token = Fixed::decimal("0.000001");
    let mut cost = Fixed::zero();
    for (name, count, rate) in parts {
        if count == 0 {
            continue;
        }
        let rate = rate.ok_or(Unpriced::MissingRate(name))?;
        cost += &(&(&Fixed::int(count) * &Fixed::of(&rate.0)) * &per_token);
    }
    Ok(cost)
}

/// The provider whose prices a harness's calls pay.
fn provider(harness: &str) -> Option<&'static str> {
    match harness {
        "claude-code" => Some("anthropic"),
        "codex" => Some("openai"),
        "gemini-cli" => Some("google"),
        // OpenCode calls any provider's models: the bundled table matches the model id.
        _ => None,
    }
}

/// Decodes the bundled table now: tens of milliseconds, once per process, that the first
/// call priced would otherwise wait for (`keel sessions` has it done on another thread
/// while it reads the logs).
pub fn load_bundled_table() {
    let _table = genai_prices::Calculator::bundled();
}

/// The bundled table's price (rates in effect at the call's time).
fn bundled_cost(call: &CallPrice<'_>) -> Result<Fixed, Unpriced> {
    use genai_prices::{Calculator, PriceRequest, Usage, UsageKey};
    let tokens = &call.tokens;
    // genai-prices counts cache reads and writes inside `input_tokens`.
    let input_total = tokens
        .input
        .saturating_add(tokens.cache_write_5m)
        .saturating_add(tokens.cache_write_1h)
        .saturating_add(tokens.cache_read);
    let usage = Usage::from([
        (UsageKey::INPUT_TOKENS, input_total as f64),
        (UsageKey::OUTPUT_TOKENS, tokens.output as f64),
        (
            UsageKey::CACHE_WRITE_TOKENS,
            tokens.cache_write_5m.saturating_add(tokens.cache_write_1h) as f64,
        ),
        (
            UsageKey::CACHE_WRITE_5M_TOKENS,
            tokens.cache_write_5m as f64,
        ),
        (
            UsageKey::CACHE_WRITE_1H_TOKENS,
            tokens.cache_write_1h as f64,
        ),
        (UsageKey::CACHE_READ_TOKENS, tokens.cache_read as f64),
    ]);
    let mut request = PriceRequest::new(call.model, &usage);
    if let Some(provider) = provider(call.harness) {
        request = request.with_provider_id(provider);
    }
    // Without a time the crate would read the clock; a call without one is priced at the
    // epoch's rates, i.e. the oldest the table has.
    let at = call.at.map_or(0, Instant::nanos);
    let when = std::time::UNIX_EPOCH
        + std::time::Duration::from_nanos(u64::try_from(at).unwrap_or_default());
    request = request.with_timestamp(when);
    let price = Calculator::bundled()
        .calculate(&request)
        .map_err(|_| Unpriced::Model)?;
    if !price.total_price.is_finite() || price.total_price < 0.0 {
        return Err(Unpriced::Model);
    }
    Ok(Fixed::of(&Decimal::from_f64(price.total_price)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use keel_engine::settings::Settings;

    fn tokens(input: u64, output: u64, write_5m: u64, write_1h: u64, read: u64) -> Tokens {
        Tokens {
            input,
            output,
            cache_write_5m: write_5m,
            cache_write_1h: write_1h,
            cache_read: read,
        }
    }

    fn call<'a>(harness: &'a str, model: &'a str, tokens: Tokens) -> CallPrice<'a> {
        CallPrice {
            harness,
            model,
            tokens,
            fast: false,
            at: Instant::parse_rfc3339("2026-11-01T00:00:00Z").ok(),
        }
    }

    #[test]
    fn bundled_claude_rates_include_both_cache_writes_and_the_200k_tier() {
        // claude-sonnet-4-5 (published): input $3, output $15, 5-minute write $3.75,
        // 1-hour write $6, read $0.30 per million tokens; above 200k input tokens per
        // request $6, $22.50, $7.50, $12, $0.60.
        let none = BTreeMap::new();
        let model = "claude-sonnet-4-5-20250929";
        let small = call_cost(
            &none,
            &call(
                "claude-code",
                model,
                tokens(40_000, 40_000, 40_000, 40_000, 40_000),
            ),
        )
        .expect("a bundled model");
        assert_eq!(
            small.exact().round6(),
            0.04 * (3.0 + 15.0 + 3.75 + 6.0 + 0.3)
        );
        let large = call_cost(
            &none,
            &call(
                "claude-code",
                model,
                tokens(1_000_000, 1_000_000, 1_000_000, 1_000_000, 1_000_000),
            ),
        )
        .expect("a bundled model");
        assert_eq!(large.exact().round6(), 6.0 + 22.5 + 7.5 + 12.0 + 0.6);
    }

    #[test]
    fn bundled_codex_rates_split_cached_input() {
        // gpt-5 (published): input $1.25, cached input $0.125, output $10 per million.
        let none = BTreeMap::new();
        let cost = call_cost(
            &none,
            &call(
                "codex",
                "gpt-5",
                tokens(1_000_000, 1_000_000, 0, 0, 1_000_000),
            ),
        )
        .expect("a bundled model");
        assert_eq!(cost.exact().round6(), 1.25 + 0.125 + 10.0);
    }

    #[test]
    fn bundled_gemini_and_opencode_rates() {
        // gemini-2.5-pro (published, up to 200k prompt tokens): input $1.25, cached
        // input $0.125, output $10 per million.
        let none = BTreeMap::new();
        let gemini = call_cost(
            &none,
            &call(
                "gemini-cli",
                "gemini-2.5-pro",
                tokens(100_000, 10_000, 0, 0, 50_000),
            ),
        )
        .expect("a bundled model");
        assert_eq!(
            gemini.exact().round6(),
            0.1 * 1.25 + 0.01 * 10.0 + 0.05 * 0.125
        );
        // OpenCode names no provider: the model id alone finds claude-sonnet-4-5 ($3, $15,
        // 5-minute write $3.75, read $0.30; 120k input tokens in all, under the 200k tier).
        let opencode = call_cost(
            &none,
            &call(
                "opencode",
                "claude-sonnet-4-5",
                tokens(40_000, 0, 40_000, 0, 40_000),
            ),
        )
        .expect("a bundled model");
        assert_eq!(opencode.exact().round6(), 0.04 * (3.0 + 3.75 + 0.3));
    }

    #[test]
    fn an_unknown_model_is_unpriced_not_free() {
        let none = BTreeMap::new();
        assert_eq!(
            call_cost(
                &none,
                &call("claude-code", "no-such-model-9", tokens(10, 10, 0, 0, 0))
            ),
            Err(Unpriced::Model)
        );
    }

    #[test]
    fn overrides_win_are_exact_and_tier_above_200k() {
        let settings = Settings::parse(
            "[prices]\n\"gpt-5\" = { input = 2, output = 4, cache_read = 0.5, above_200k = { input = 20, output = 40, cache_read = 5 }, fast_multiplier = 3 }\n",
        )
        .expect("valid prices");
        let small = call_cost(
            &settings.prices,
            &call("codex", "gpt-5", tokens(100_000, 1_000, 0, 0, 100_000)),
        )
        .expect("priced");
        // 100k·2 + 1k·4 + 100k·0.5, per million.
        assert_eq!(small, Fixed::decimal("0.254"));
        let large = call_cost(
            &settings.prices,
            &call("codex", "gpt-5", tokens(100_001, 1_000, 0, 0, 100_000)),
        )
        .expect("priced");
        assert_eq!(large, Fixed::decimal("2.54002"));
        let mut fast = call("codex", "gpt-5", tokens(100_000, 1_000, 0, 0, 100_000));
        fast.fast = true;
        assert_eq!(
            call_cost(&settings.prices, &fast),
            Ok(Fixed::decimal("0.762"))
        );
        let write = call_cost(
            &settings.prices,
            &call("codex", "gpt-5", tokens(1, 1, 5, 0, 0)),
        );
        assert_eq!(write, Err(Unpriced::MissingRate("cache_write_5m")));
    }

    #[test]
    fn a_fast_call_without_a_multiplier_is_unpriced() {
        let none = BTreeMap::new();
        let mut fast = call("claude-code", "claude-sonnet-4-5", tokens(10, 10, 0, 0, 0));
        fast.fast = true;
        assert_eq!(call_cost(&none, &fast), Err(Unpriced::Fast));
        let mut opus = call(
            "claude-code",
            "claude-opus-4-6",
            tokens(1_000_000, 0, 0, 0, 0),
        );
        let slow = call_cost(&none, &opus).expect("bundled");
        opus.fast = true;
        assert_eq!(call_cost(&none, &opus), Ok(&slow * &Fixed::int(6)));
    }
}
