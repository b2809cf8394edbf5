//! [`Exact`]: exact arithmetic for money and probabilities, rounded once at output; and
//! [`Fixed`], the exact decimals that prices are, whose sums and products need no gcd.
//!
//! Owns: reading a [`Decimal`] exactly, the sums, shares and ratios of L-split and L-cost,
//! and the one rounding to 6 decimals (half to even on the exact value).
//! Does not own: which numbers are added (`report`).

use keel_engine::sessions::Decimal;
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{Signed, Zero};
use std::ops::{Add, Mul};

/// An exact rational number.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Default)]
pub struct Exact(BigRational);

impl Exact {
    /// Zero.
    pub fn zero() -> Self {
        Self(BigRational::zero())
    }

    /// A whole number.
    pub fn int(value: u64) -> Self {
        Self(BigRational::from_integer(BigInt::from(value)))
    }

    /// The exact value of a decimal string (`-?digits(.digits)?`); 0 for anything else,
    /// which the engine never produces.
    pub fn decimal(text: &str) -> Self {
        Fixed::decimal(text).exact()
    }

    /// The exact value the engine read.
    pub fn of(decimal: &Decimal) -> Self {
        Self::decimal(decimal.as_str())
    }

    /// `self / other`, `None` when `other` is zero.
    pub fn ratio(&self, other: &Self) -> Option<Self> {
        (!other.0.is_zero()).then(|| Self(&self.0 / &other.0))
    }

    /// Rounded to 6 decimals, half to even, as the nearest `f64` (what JSON prints).
    pub fn round6(&self) -> f64 {
        self.rounded(6).parse().unwrap_or(f64::NAN)
    }

    /// Rounded to `scale` decimals, half to even, as a plain decimal without trailing
    /// zeros (`1.5`, `2`).
    pub fn to_decimal(&self, scale: u32) -> Decimal {
        let text = self.rounded(scale);
        let trimmed = if text.contains('.') {
            text.trim_end_matches('0').trim_end_matches('.')
        } else {
            &text
        };
        let trimmed = if trimmed == "-0" { "0" } else { trimmed };
        // `rounded` writes `-?digits.digits`; trimming keeps it plain.
        Decimal::parse(trimmed).unwrap_or_else(Decimal::zero)
    }

    /// The value rounded to `scale` decimals, half to even, written `-?digits.digits`.
    fn rounded(&self, scale: u32) -> String {
        let unit = BigInt::from(10u8).pow(scale);
        let scaled = &self.0 * BigRational::from_integer(unit);
        let floor = scaled.floor();
        let rest = &scaled - &floor;
        let half = BigRational::new(BigInt::from(1u8), BigInt::from(2u8));
        let mut units = floor.to_integer();
        let odd = (&units % BigInt::from(2u8)).abs() == BigInt::from(1u8);
        if rest > half || (rest == half && odd) {
            units += 1;
        }
        let negative = units.is_negative();
        let digits = units.abs().to_string();
        let width = scale as usize + 1;
        let padded = format!("{digits:0>width$}");
        let (whole, fraction) = padded.split_at(padded.len() - scale as usize);
        let sign = if negative { "-" } else { "" };
        if fraction.is_empty() {
            format!("{sign}{whole}")
        } else {
            format!("{sign}{whole}.{fraction}")
        }
    }
}

impl Add for &Exact {
    type Output = Exact;
    fn add(self, other: &Exact) -> Exact {
        Exact(&self.0 + &other.0)
    }
}

impl Mul for &Exact {
    type Output = Exact;
    fn mul(self, other: &Exact) -> Exact {
        Exact(&self.0 * &other.0)
    }
}

/// An exact decimal, `mantissa × 10^-scale`: a price per token, a call's cost, a sum of
/// costs. Adding aligns the scales and multiplying adds them, so no step reduces a
/// fraction, which keeps a sum over hundreds of thousands of calls cheap.
#[derive(Clone, Debug, Default)]
pub struct Fixed {
    mantissa: BigInt,
    scale: u32,
}

impl Fixed {
    /// Zero.
    pub fn zero() -> Self {
        Self::default()
    }

    /// A whole number.
    pub fn int(value: u64) -> Self {
        Self {
            mantissa: BigInt::from(value),
            scale: 0,
        }
    }

    /// The exact value of a decimal string (`-?digits(.digits)?`); 0 for anything else,
    /// which the engine never produces.
    pub fn decimal(text: &str) -> Self {
        let digits = text.strip_prefix('-').unwrap_or(text);
        let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
        let Ok(mantissa) = format!("{whole}{fraction}").parse::<BigInt>() else {
            return Self::zero();
        };
        let Ok(scale) = u32::try_from(fraction.len()) else {
            return Self::zero();
        };
        let mantissa = if digits.len() < text.len() {
            -mantissa
        } else {
            mantissa
        };
        Self { mantissa, scale }
    }

    /// The exact value the engine read.
    pub fn of(decimal: &Decimal) -> Self {
        Self::decimal(decimal.as_str())
    }

    /// The value written out whole (`-?digits.digits`, every decimal of its scale), which
    /// [`Fixed::decimal`] reads back to the same value.
    pub fn to_text(&self) -> String {
        let digits = self.mantissa.magnitude().to_string();
        let sign = if self.mantissa.sign() == num_bigint::Sign::Minus {
            "-"
        } else {
            ""
        };
        let scale = self.scale as usize;
        let padded = format!("{digits:0>width$}", width = scale + 1);
        let (whole, fraction) = padded.split_at(padded.len() - scale);
        if fraction.is_empty() {
            format!("{sign}{whole}")
        } else {
            format!("{sign}{whole}.{fraction}")
        }
    }

    /// The same number as an [`Exact`].
    pub fn exact(&self) -> Exact {
        Exact(BigRational::new(
            self.mantissa.clone(),
            BigInt::from(10u8).pow(self.scale),
        ))
    }

    /// The mantissa at a scale no smaller than its own.
    fn at_scale(&self, scale: u32) -> BigInt {
        let mut mantissa = self.mantissa.clone();
        for _ in 0..(scale - self.scale) / 19 {
            mantissa *= 10u64.pow(19);
        }
        mantissa * 10u64.pow((scale - self.scale) % 19)
    }
}

impl PartialEq for Fixed {
    fn eq(&self, other: &Self) -> bool {
        let scale = self.scale.max(other.scale);
        self.at_scale(scale) == other.at_scale(scale)
    }
}

impl Eq for Fixed {}

impl std::ops::AddAssign<&Fixed> for Fixed {
    fn add_assign(&mut self, other: &Fixed) {
        if other.scale > self.scale {
            self.mantissa = self.at_scale(other.scale);
            self.scale = other.scale;
        }
        self.mantissa += other.at_scale(self.scale);
    }
}

impl Mul for &Fixed {
    type Output = Fixed;
    fn mul(self, other: &Fixed) -> Fixed {
        Fixed {
            mantissa: &self.mantissa * &other.mantissa,
            scale: self.scale + other.scale,
        }
    }
}

impl std::iter::Sum for Exact {
    fn sum<I: Iterator<Item = Exact>>(iter: I) -> Self {
        iter.fold(Exact::zero(), |sum, x| &sum + &x)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_are_exact() {
        let sum = &Exact::decimal("0.1") + &Exact::decimal("0.2");
        assert_eq!(sum, Exact::decimal("0.3"));
        assert_eq!(Exact::decimal("-1.50"), Exact::decimal("-1.5"));
    }

    #[test]
    fn fixed_decimals_add_and_multiply_exactly_across_scales() {
        let mut sum = Fixed::decimal("0.1");
        sum += &Fixed::decimal("0.2");
        assert_eq!(sum, Fixed::decimal("0.30"));
        assert_ne!(sum, Fixed::decimal("0.31"));
        sum += &Fixed::decimal("-0.000000000000000000000000000001");
        assert_eq!(
            sum.exact(),
            Exact::decimal("0.299999999999999999999999999999")
        );
        let product = &Fixed::int(3) * &Fixed::decimal("-1.25");
        assert_eq!(product.exact(), Exact::decimal("-3.75"));
        assert_eq!(Fixed::decimal("garbage"), Fixed::zero());
    }

    #[test]
    fn a_fixed_decimal_written_whole_reads_back_to_itself() {
        for text in [
            "0",
            "12",
            "0.000000000000000001",
            "-0.05",
            "1234.5678",
            "-7",
        ] {
            let value = Fixed::decimal(text);
            assert_eq!(Fixed::decimal(&value.to_text()), value, "{text}");
        }
        let mut sum = Fixed::decimal("0.1");
        sum += &Fixed::decimal("0.002");
        assert_eq!(sum.to_text(), "0.102");
        assert_eq!(Fixed::decimal("-0.05").to_text(), "-0.05");
        assert_eq!(Fixed::int(40).to_text(), "40");
    }

    #[test]
    fn rounding_is_once_and_half_to_even() {
        let third = Exact::int(1).ratio(&Exact::int(3)).expect("3 is not 0");
        assert_eq!(third.round6(), 0.333333);
        let thirds = &(&third + &third) + &third;
        assert_eq!(thirds.round6(), 1.0);
        assert_eq!(Exact::decimal("0.0000005").round6(), 0.0);
        assert_eq!(Exact::decimal("0.0000015").round6(), 0.000002);
        assert_eq!(Exact::decimal("2").round6(), 2.0);
        assert_eq!(Exact::decimal("-0.0000025").round6(), -0.000002);
        assert!(Exact::int(1).ratio(&Exact::zero()).is_none());
    }

    #[test]
    fn a_decimal_is_rounded_once_and_written_plain() {
        let third = Exact::int(1).ratio(&Exact::int(3)).expect("3 is not 0");
        assert_eq!(third.to_decimal(9).as_str(), "0.333333333");
        assert_eq!(Exact::decimal("2.500").to_decimal(9).as_str(), "2.5");
        assert_eq!(Exact::decimal("7").to_decimal(9).as_str(), "7");
        assert_eq!(Exact::decimal("-0.0000000001").to_decimal(9).as_str(), "0");
    }
}
