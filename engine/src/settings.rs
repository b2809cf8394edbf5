//! `keel.toml`: the repository's settings, parsed strictly.
//!
//! Owns: the settings schema, its defaults, and the loud error for a file that does not
//! fit it (unknown key, wrong type, bad value), naming file, line and repair.
//! Does not own: reading the file (`keel lint` reads it from the judged commit's tree in
//! `keel-queries`; `keel sessions` from the work tree in [`crate::sessions`]).

use crate::decimal::Decimal;
use crate::message::line_of_offset;
use crate::refusal::{Refusal, RefusalCode};
use serde::Deserialize;
use std::collections::BTreeMap;

/// The settings file's name at the repository root.
pub const SETTINGS_FILE: &str = "keel.toml";

/// All of `keel.toml`; every key is optional.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Settings {
    pub lint: LintSettings,
    pub sessions: SessionSettings,
    /// Extra agent trailers: harness id → case-insensitive regex over trailer lines.
    pub trailers: BTreeMap<String, String>,
    pub impact: ImpactSettings,
    /// `[prices]`: model id → its rates, over the bundled price table.
    pub prices: BTreeMap<String, ModelPrices>,
}

/// `[lint]`
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LintSettings {
    /// What a scoped entry's file change that misses every selector reports.
    pub scoped_code_miss: ScopedCodeMiss,
    /// What a hit that changed its units only cosmetically reports.
    pub cosmetic: CosmeticHits,
    /// Whether a change to docstrings alone counts as cosmetic.
    pub docstrings: Docstrings,
    /// Roots of source discovery; a spec may still govern a path outside them.
    pub governed_roots: Vec<String>,
    /// The largest file, in bytes, whose units keel reads: an anchored file past it is
    /// neither parsed nor diffed (`too-large` at the tip, a conservative hit in history),
    /// and the call graph counts a source file past it as its module node alone.
    pub max_file_bytes: u64,
}

/// `[lint] max_file_bytes` when `keel.toml` does not set it: 2 MiB, past every
/// hand-written source file and well within what one parse costs in time and memory.
pub const DEFAULT_MAX_FILE_BYTES: u64 = 2 * 1024 * 1024;

impl Default for LintSettings {
    fn default() -> Self {
        Self {
            scoped_code_miss: ScopedCodeMiss::Warn,
            cosmetic: CosmeticHits::Block,
            docstrings: Docstrings::Code,
            governed_roots: Vec::new(),
            max_file_bytes: DEFAULT_MAX_FILE_BYTES,
        }
    }
}

/// `[lint] scoped_code_miss`
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ScopedCodeMiss {
    /// Keep the ordinary advisory drift warning (the default).
    Warn,
    /// Silence only that advisory.
    Ignore,
}

/// `[lint] cosmetic`: what a hit reports whose units changed only in comments and
/// whitespace (and docstrings, with `docstrings = "cosmetic"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CosmeticHits {
    /// A hit like any other, marked cosmetic (the default: the line predicate decides).
    Block,
    /// An advisory `cosmetic-hit` instead of a blocking one.
    Warn,
    /// Not reported.
    Ignore,
}

/// `[lint] docstrings`
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Docstrings {
    /// A docstring is code: changing it is a real change (the default).
    Code,
    /// A change to docstrings alone is cosmetic.
    Cosmetic,
}

/// `[sessions]`
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SessionSettings {
    pub repos: Vec<String>,
    pub days: u32,
}

impl Default for SessionSettings {
    fn default() -> Self {
        Self {
            repos: Vec::new(),
            days: 30,
        }
    }
}

/// `[impact]`
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ImpactSettings {
    pub depth: u32,
    pub max_bytes: u64,
    pub max_nodes: u32,
}

impl Default for ImpactSettings {
    fn default() -> Self {
        Self {
            depth: 1,
            max_bytes: 65_536,
            max_nodes: 256,
        }
    }
}

/// One model's rates in `[prices]`: USD per million tokens. `input` and `output` are
/// required; a missing cache rate leaves calls that use it unpriced. `above_200k` (rates
/// for a request whose input passes 200k tokens) takes the same keys except itself and
/// `fast_multiplier`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelPrices {
    pub input: Rate,
    pub output: Rate,
    pub cache_write_5m: Option<Rate>,
    pub cache_write_1h: Option<Rate>,
    pub cache_read: Option<Rate>,
    pub above_200k: Option<Box<ModelPrices>>,
    /// Multiplies a "fast" request's price.
    pub fast_multiplier: Option<Rate>,
}

/// A non-negative number as `keel.toml` wrote it, kept exact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rate(pub Decimal);

impl<'de> Deserialize<'de> for Rate {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Number;
        impl serde::de::Visitor<'_> for Number {
            type Value = Rate;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a non-negative number")
            }
            fn visit_u64<E: serde::de::Error>(self, value: u64) -> Result<Rate, E> {
                Ok(Rate(Decimal::from_f64(value as f64)))
            }
            fn visit_i64<E: serde::de::Error>(self, value: i64) -> Result<Rate, E> {
                u64::try_from(value)
                    .map_err(|_| E::custom("expected a non-negative number"))
                    .and_then(|value| self.visit_u64(value))
            }
            fn visit_f64<E: serde::de::Error>(self, value: f64) -> Result<Rate, E> {
                if value.is_finite() && value >= 0.0 {
                    Ok(Rate(Decimal::from_f64(value)))
                } else {
                    Err(E::custom("expected a non-negative number"))
                }
            }
        }
        deserializer.deserialize_any(Number)
    }
}

/// A `keel.toml` that does not fit the schema.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{SETTINGS_FILE}:{line}: {message}; repair: {repair}")]
pub struct SettingsError {
    /// 1-based line of the offending key or value.
    pub line: usize,
    pub message: String,
    pub repair: String,
}

impl From<SettingsError> for Refusal {
    fn from(err: SettingsError) -> Self {
        Refusal::new(
            RefusalCode::Settings,
            format!("{SETTINGS_FILE}:{}", err.line),
            None,
            err.message,
            err.repair,
        )
    }
}

impl Settings {
    /// Parses the bytes of `keel.toml` (a blob of the judged tree): UTF-8 first, then
    /// [`Self::parse`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, SettingsError> {
        let text = std::str::from_utf8(bytes).map_err(|err| {
            let offset = err.valid_up_to();
            SettingsError {
                line: line_of_offset(bytes, offset),
                message: format!("not UTF-8 (invalid byte at offset {offset})"),
                repair: "save the file as UTF-8".to_owned(),
            }
        })?;
        Self::parse(text)
    }

    /// Parses the text of `keel.toml`.
    pub fn parse(text: &str) -> Result<Self, SettingsError> {
        let settings: Self = toml::from_str(text).map_err(|err| {
            let line = err
                .span()
                .map_or(1, |span| line_of_offset(text.as_bytes(), span.start));
            SettingsError {
                line,
                message: crate::message::one_line(err.message().trim()).into_owned(),
                repair:
                    "fix that line; the keys and their values are documented in docs/settings.md"
                        .to_owned(),
            }
        })?;
        settings.check_prices(text)?;
        settings.check_trailers(text)?;
        Ok(settings)
    }

    /// Refuses `above_200k` tables that nest their own tiers or multiplier.
    fn check_prices(&self, text: &str) -> Result<(), SettingsError> {
        for (model, prices) in &self.prices {
            let Some(tier) = &prices.above_200k else {
                continue;
            };
            if tier.above_200k.is_some() || tier.fast_multiplier.is_some() {
                let line = text
                    .find(model.as_str())
                    .map_or(1, |offset| line_of_offset(text.as_bytes(), offset));
                return Err(SettingsError {
                    line,
                    message: format!("[prices] {model:?}: above_200k holds rates only"),
                    repair: "move fast_multiplier to the model's own table and drop the nested above_200k".to_owned(),
                });
            }
        }
        Ok(())
    }

    /// Refuses a `[trailers]` pattern that [`trailer_regex`] cannot compile, at its line.
    fn check_trailers(&self, text: &str) -> Result<(), SettingsError> {
        for (harness, pattern) in &self.trailers {
            let Err(err) = trailer_regex(pattern) else {
                continue;
            };
            return Err(SettingsError {
                line: trailer_line(text, harness),
                message: format!(
                    "[trailers] {harness}: not a valid regex ({})",
                    regex_reason(&err)
                ),
                repair: "fix the pattern (Rust regex syntax, matched case-insensitively)"
                    .to_owned(),
            });
        }
        Ok(())
    }
}

/// The line of `[trailers]`' pattern for `harness`: where TOML puts its value (a search
/// of the text could stop at a comment or at a key that holds the name, `robot` for
/// `bot`). Read only on the error path; 1 if the text gives no span.
fn trailer_line(text: &str, harness: &str) -> usize {
    #[derive(serde::Deserialize)]
    struct Spans {
        #[serde(default)]
        trailers: BTreeMap<String, toml::Spanned<String>>,
    }
    toml::from_str::<Spans>(text)
        .ok()
        .and_then(|spans| spans.trailers.get(harness).map(|value| value.span().start))
        .map_or(1, |start| line_of_offset(text.as_bytes(), start))
}

/// The one rule for compiling an agent trailer pattern: Rust regex syntax, matched
/// case-insensitively against a trailer line.
pub fn trailer_regex(pattern: &str) -> Result<regex::Regex, regex::Error> {
    regex::RegexBuilder::new(pattern)
        .case_insensitive(true)
        .build()
}

/// The last line of a regex error: the reason, without the echoed pattern and caret.
pub fn regex_reason(err: &regex::Error) -> String {
    err.to_string()
        .lines()
        .last()
        .unwrap_or_default()
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_trailer_regex_names_its_line_and_a_good_one_parses() {
        let err = Settings::parse("# bot = \"(\"\n[trailers]\nrobot = \"^x\"\n\"bot\" = \"(\"\n")
            .expect_err("an unclosed group is not a regex");
        assert_eq!(
            err.line, 4,
            "the pattern's own line, not the comment's or robot's: {err}"
        );
        assert!(
            err.message
                .starts_with("[trailers] bot: not a valid regex ("),
            "{err}"
        );
        let settings =
            Settings::parse("[trailers]\nbot = \"^Bot-Run:\"\n").expect("a valid pattern");
        assert!(trailer_regex(&settings.trailers["bot"]).is_ok_and(|re| re.is_match("bot-run: 1")));
    }

    #[test]
    fn empty_file_gives_defaults() {
        let settings = Settings::parse("").expect("empty settings are valid");
        assert_eq!(settings, Settings::default());
        assert_eq!(settings.lint.scoped_code_miss, ScopedCodeMiss::Warn);
        assert_eq!(settings.impact.max_nodes, 256);
    }

    #[test]
    fn cosmetic_and_docstrings_are_read_and_default_to_block_and_code() {
        let defaults = Settings::default().lint;
        assert_eq!(
            (defaults.cosmetic, defaults.docstrings),
            (CosmeticHits::Block, Docstrings::Code)
        );
        let settings = Settings::parse("[lint]\ncosmetic = \"warn\"\ndocstrings = \"cosmetic\"\n")
            .expect("valid settings");
        assert_eq!(
            (settings.lint.cosmetic, settings.lint.docstrings),
            (CosmeticHits::Warn, Docstrings::Cosmetic)
        );
        assert!(Settings::parse("[lint]\ncosmetic = \"maybe\"\n").is_err());
    }

    #[test]
    fn scoped_code_miss_ignore_is_read() {
        let settings =
            Settings::parse("[lint]\nscoped_code_miss = \"ignore\"\n").expect("valid settings");
        assert_eq!(settings.lint.scoped_code_miss, ScopedCodeMiss::Ignore);
    }

    #[test]
    fn unknown_key_names_its_line() {
        let err = Settings::parse("[lint]\nscoped_code_miss = \"warn\"\nscoped_miss = 1\n")
            .expect_err("unknown key must be refused");
        assert_eq!(err.line, 3);
        assert!(err.message.contains("scoped_miss"), "{err}");
    }

    #[test]
    fn bytes_that_are_not_utf8_name_their_line() {
        let err = Settings::from_bytes(b"[lint]\n# caf\xe9\n").expect_err("not UTF-8");
        assert_eq!(err.line, 2);
        assert!(err.message.contains("UTF-8"), "{err}");
        assert_eq!(
            Settings::from_bytes(b"[lint]\nscoped_code_miss = \"ignore\"\n")
                .expect("valid settings")
                .lint
                .scoped_code_miss,
            ScopedCodeMiss::Ignore
        );
    }

    #[test]
    fn prices_are_read_exactly_and_bad_ones_name_their_line() {
        let settings = Settings::parse(
            "[prices]\n\"my-model\" = { input = 3, output = 15.5, cache_read = 0.3, above_200k = { input = 6, output = 22.5 } }\n",
        )
        .expect("valid prices");
        let prices = &settings.prices["my-model"];
        assert_eq!(prices.input.0.as_str(), "3");
        assert_eq!(prices.output.0.as_str(), "15.5");
        assert_eq!(
            prices.cache_read.as_ref().map(|r| r.0.as_str()),
            Some("0.3")
        );
        assert_eq!(prices.cache_write_5m, None);
        assert!(prices.above_200k.is_some());
        let err = Settings::parse("[prices]\n\"m\" = { input = -1, output = 2 }\n")
            .expect_err("a negative rate");
        assert_eq!(err.line, 2);
        let err = Settings::parse("[prices]\n\"m\" = { input = 1 }\n").expect_err("no output");
        assert!(err.message.contains("output"), "{err}");
    }

    #[test]
    fn max_file_bytes_defaults_to_two_mebibytes_and_refuses_a_negative_value() {
        assert_eq!(Settings::default().lint.max_file_bytes, 2_097_152);
        let settings = Settings::parse("[lint]\nmax_file_bytes = 100\n").expect("valid settings");
        assert_eq!(settings.lint.max_file_bytes, 100);
        let err = Settings::parse("[lint]\nmax_file_bytes = -1\n").expect_err("a negative bound");
        assert_eq!(err.line, 2);
    }

    #[test]
    fn bad_enum_value_names_its_line() {
        let err = Settings::parse("\n[lint]\nscoped_code_miss = \"loud\"\n")
            .expect_err("unknown variant must be refused");
        assert_eq!(err.line, 3);
    }
}
