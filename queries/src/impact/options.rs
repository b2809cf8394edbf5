//! `keel impact` options: closed, single-use, strictly decimal.
//!
//! Owns: the option domains and defaults (depth 1 in 0..=1024, max-bytes 64 KiB in
//! 1 KiB..=16 MiB, max-nodes 256 in 1..=65,536) and parsing them from argv words — a
//! missing value, a leading zero, a sign, anything but ASCII digits, a value out of its
//! domain, a repeated or unknown option is refused (KEEL-G109) before any report.
//! Checks `keel.toml`'s `[impact]` values against the same domains
//! ([`Limits::of_settings`]).
//! Does not own: the patch or revision arguments (`keel impact` reads those) or reading
//! `keel.toml` (the caller passes its `[impact]` table in).

use std::ops::RangeInclusive;

/// The output limits of one impact query.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub depth: u64,
    pub max_bytes: u64,
    pub max_nodes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            depth: 1,
            max_bytes: 64 * 1024,
            max_nodes: 256,
        }
    }
}

/// One option's name and domain.
struct Domain {
    flag: &'static str,
    range: RangeInclusive<u64>,
}

const DEPTH: Domain = Domain {
    flag: "--depth",
    range: 0..=1024,
};
const MAX_BYTES: Domain = Domain {
    flag: "--max-bytes",
    range: 1024..=16 * 1024 * 1024,
};
const MAX_NODES: Domain = Domain {
    flag: "--max-nodes",
    range: 1..=65_536,
};

/// Why options were refused (all KEEL-G109).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OptionError {
    #[error("KEEL-G109: {flag} needs a value; repair: write {flag} N")]
    Missing { flag: &'static str },
    #[error(
        "KEEL-G109: {flag} {value:?} is not a plain decimal number (no sign, no leading zero, digits only); repair: write e.g. {flag} {example}"
    )]
    NotDecimal {
        flag: &'static str,
        value: String,
        example: u64,
    },
    #[error(
        "KEEL-G109: {flag} {value} is outside {low}..={high}; repair: pick a value in that range"
    )]
    OutOfRange {
        flag: &'static str,
        value: String,
        low: u64,
        high: u64,
    },
    #[error("KEEL-G109: {flag} is given twice; repair: give each option once")]
    Repeated { flag: &'static str },
    #[error(
        "KEEL-G109: unknown option {0:?}; repair: use --depth, --max-bytes or --max-nodes (and --rev, --repo)"
    )]
    Unknown(String),
    #[error("KEEL-G109: {0}")]
    Envelope(String),
}

/// A `[impact]` value of `keel.toml` its option's domain refuses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingRefused {
    /// The key in `[impact]`.
    pub key: &'static str,
    pub value: u64,
    pub error: OptionError,
}

impl Limits {
    /// `keel.toml`'s `[impact]` values as limits, each checked against its option's
    /// domain (the first refused is named).
    pub fn of_settings(
        settings: &keel_engine::settings::ImpactSettings,
    ) -> Result<Self, SettingRefused> {
        let mut limits = Self::default();
        for (key, flag, value) in [
            ("depth", "--depth", u64::from(settings.depth)),
            ("max_bytes", "--max-bytes", settings.max_bytes),
            ("max_nodes", "--max-nodes", u64::from(settings.max_nodes)),
        ] {
            limits = Self::parse(limits, &[format!("{flag}={value}")])
                .map_err(|error| SettingRefused { key, value, error })?;
        }
        Ok(limits)
    }

    /// `defaults` overridden by the `--depth/--max-bytes/--max-nodes` words of `words`
    /// (`--flag N` or `--flag=N`). Every other word is refused as unknown.
    pub fn parse(defaults: Self, words: &[String]) -> Result<Self, OptionError> {
        let mut limits = defaults;
        let mut seen: Vec<&'static str> = Vec::new();
        let mut rest = words.iter();
        while let Some(word) = rest.next() {
            let (name, inline) = match word.split_once('=') {
                Some((name, value)) => (name, Some(value.to_owned())),
                None => (word.as_str(), None),
            };
            let domain = [&DEPTH, &MAX_BYTES, &MAX_NODES]
                .into_iter()
                .find(|domain| domain.flag == name)
                .ok_or_else(|| OptionError::Unknown(word.clone()))?;
            if seen.contains(&domain.flag) {
                return Err(OptionError::Repeated { flag: domain.flag });
            }
            seen.push(domain.flag);
            let value = match inline {
                Some(value) => value,
                None => rest
                    .next()
                    .filter(|value| !value.starts_with("--"))
                    .cloned()
                    .ok_or(OptionError::Missing { flag: domain.flag })?,
            };
            let number = domain.value(&value)?;
            match domain.flag {
                "--depth" => limits.depth = number,
                "--max-bytes" => limits.max_bytes = number,
                _ => limits.max_nodes = number,
            }
        }
        Ok(limits)
    }
}

impl Domain {
    /// `value` as a number of this domain.
    fn value(&self, value: &str) -> Result<u64, OptionError> {
        let decimal = !value.is_empty()
            && value.bytes().all(|b| b.is_ascii_digit())
            && (value == "0" || !value.starts_with('0'));
        let refused = || OptionError::NotDecimal {
            flag: self.flag,
            value: value.to_owned(),
            example: *self.range.start().max(&1),
        };
        if !decimal {
            return Err(refused());
        }
        let out_of_range = || OptionError::OutOfRange {
            flag: self.flag,
            value: value.to_owned(),
            low: *self.range.start(),
            high: *self.range.end(),
        };
        let number: u64 = value.parse().map_err(|_| out_of_range())?;
        if self.range.contains(&number) {
            Ok(number)
        } else {
            Err(out_of_range())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(words: &[&str]) -> Result<Limits, OptionError> {
        let words: Vec<String> = words.iter().map(|w| (*w).to_owned()).collect();
        Limits::parse(Limits::default(), &words)
    }

    #[test]
    fn defaults_and_both_spellings() {
        assert_eq!(parse(&[]), Ok(Limits::default()));
        assert_eq!(
            parse(&["--depth", "0", "--max-bytes=1024", "--max-nodes", "65536"]),
            Ok(Limits {
                depth: 0,
                max_bytes: 1024,
                max_nodes: 65_536
            })
        );
        assert_eq!(
            parse(&["--depth=1024", "--max-bytes", "16777216"]).map(|l| (l.depth, l.max_bytes)),
            Ok((1024, 16 * 1024 * 1024))
        );
    }

    #[test]
    fn every_invalid_form_is_refused_as_g109() {
        for (words, expected) in [
            (&["--depth"][..], "needs a value"),
            (&["--depth", "--max-nodes", "3"], "needs a value"),
            (&["--depth", "01"], "not a plain decimal"),
            (&["--depth", "+1"], "not a plain decimal"),
            (&["--depth", "-1"], "not a plain decimal"),
            (&["--depth", "1.0"], "not a plain decimal"),
            (&["--depth", " 1"], "not a plain decimal"),
            (&["--depth", ""], "not a plain decimal"),
            (&["--depth", "0x10"], "not a plain decimal"),
            (&["--depth", "1025"], "outside 0..=1024"),
            (&["--max-bytes", "1023"], "outside 1024..=16777216"),
            (&["--max-bytes", "16777217"], "outside"),
            (&["--max-nodes", "0"], "outside 1..=65536"),
            (&["--max-nodes", "99999999999999999999999"], "outside"),
            (&["--depth", "1", "--depth", "1"], "given twice"),
            (&["--depth=1", "--depth", "2"], "given twice"),
            (&["--deep", "1"], "unknown option"),
            (&["-d", "1"], "unknown option"),
        ] {
            let message = parse(words).map_err(|e| e.to_string());
            assert!(
                message
                    .as_ref()
                    .is_err_and(|m| m.starts_with("KEEL-G109: ") && m.contains(expected)),
                "{words:?}: {message:?}"
            );
        }
    }
}
