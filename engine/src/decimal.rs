//! A number exactly as it was written, for the sessions' costs and probabilities and the
//! settings' rates.
//!
//! Owns: [`Decimal`], a plain decimal string, and reading one (`parse`, `from_f64`).
//! Does not own: arithmetic on it (exact sums and shares are `keel-queries`' sessions
//! rules) or where the numbers come from (`sessions`, `settings`).

use std::fmt;

/// A number exactly as it was written (in a JSON line; a `keel.toml` rate), kept as a
/// plain decimal string (`"2"`, `"0.01"`, `"-1.5"`; no exponent), so sums and shares can
/// be exact.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Decimal(String);

impl Decimal {
    /// Zero.
    pub fn zero() -> Self {
        Self("0".to_owned())
    }

    /// The shortest decimal that reads back as `value` (what the writer most likely wrote).
    pub fn from_f64(value: f64) -> Self {
        let text = format!("{value}");
        if text == "-0" {
            return Self::zero();
        }
        Self(text)
    }

    /// A plain decimal (`-?digits(.digits)?`), `None` for anything else.
    pub fn parse(text: &str) -> Option<Self> {
        let digits = text.strip_prefix('-').unwrap_or(text);
        let (whole, fraction) = digits.split_once('.').unwrap_or((digits, "0"));
        let plain = |part: &str| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit());
        (plain(whole) && plain(fraction)).then(|| Self(text.to_owned()))
    }

    /// The digits: an optional `-`, digits, optionally `.` and more digits.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Decimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
