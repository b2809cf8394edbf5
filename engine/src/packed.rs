//! Packed memo values: a value the on-disk memo holds many of, written as one MessagePack
//! byte string of its own, so reading the memo decodes it with the value's own
//! (monomorphized) code instead of one call through salsa's type-erased serializer per
//! field, enum tag and option.
//!
//! Owns: [`packed_serde!`], the one way a type opts in, and the two functions it expands
//! to. Does not own: the memo file ([`crate::memo`]) or which values are packed (each
//! type's module says so where it invokes the macro).
//!
//! A type opts in by deriving serde with `#[serde(remote = "Self")]` (the derive then
//! writes inherent `serialize`/`deserialize` functions instead of the traits) and invoking
//! `keel_engine::packed_serde!(Type)`, which implements the traits as "the derived form,
//! encoded to MessagePack, as bytes". The packed form is a format of the memo's body, so a
//! change to it changes the build id and an older memo is discarded, never misread.

use serde::de::{self, Deserializer, Visitor};
use serde::ser::{self, Serializer};
use std::fmt;
use std::marker::PhantomData;

/// The inner encoder a packed value is written with.
pub type PackedEncoder = rmp_serde::Serializer<Vec<u8>>;

/// The inner decoder a packed value is read with.
pub type PackedDecoder<'a> = rmp_serde::Deserializer<rmp_serde::decode::ReadReader<&'a [u8]>>;

/// Writes `value` through `write` (its derived form) into one byte string of `serializer`.
pub fn serialize<T: ?Sized, S: Serializer>(
    value: &T,
    write: impl FnOnce(&T, &mut PackedEncoder) -> Result<(), rmp_serde::encode::Error>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    let mut encoder = rmp_serde::Serializer::new(Vec::new());
    write(value, &mut encoder).map_err(ser::Error::custom)?;
    serializer.serialize_bytes(&encoder.into_inner())
}

/// Reads one byte string of `deserializer` and decodes it through `read` (the derived form).
pub fn deserialize<'de, T, D: Deserializer<'de>>(
    deserializer: D,
    read: fn(&mut PackedDecoder<'_>) -> Result<T, rmp_serde::decode::Error>,
) -> Result<T, D::Error> {
    deserializer.deserialize_bytes(PackedVisitor {
        read,
        value: PhantomData,
    })
}

/// Decodes the byte string as soon as it is seen, borrowed or not.
struct PackedVisitor<T> {
    read: fn(&mut PackedDecoder<'_>) -> Result<T, rmp_serde::decode::Error>,
    value: PhantomData<T>,
}

impl<T> Visitor<'_> for PackedVisitor<T> {
    type Value = T;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a packed memo value (MessagePack bytes)")
    }

    fn visit_bytes<E: de::Error>(self, bytes: &[u8]) -> Result<T, E> {
        let mut decoder = rmp_serde::Deserializer::new(bytes);
        let value = (self.read)(&mut decoder).map_err(E::custom)?;
        match decoder.get_ref().is_empty() {
            true => Ok(value),
            false => Err(E::custom("bytes left after a packed memo value")),
        }
    }
}

/// Implements `serde::Serialize` and `serde::Deserialize` for `$ty` as its derived form
/// (`#[serde(remote = "Self")]`) packed into one MessagePack byte string.
#[macro_export]
macro_rules! packed_serde {
    ($ty:ty) => {
        impl ::serde::Serialize for $ty {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                $crate::packed::serialize(
                    self,
                    |value, encoder| <$ty>::serialize(value, encoder),
                    serializer,
                )
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $ty {
            fn deserialize<D: ::serde::Deserializer<'de>>(
                deserializer: D,
            ) -> Result<Self, D::Error> {
                $crate::packed::deserialize(deserializer, |decoder| <$ty>::deserialize(decoder))
            }
        }
    };
}

#[cfg(test)]
mod tests {
    #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
    #[serde(remote = "Self")]
    enum Sample {
        Empty,
        Lines(Result<Vec<(String, Option<u32>)>, String>),
    }

    crate::packed_serde!(Sample);

    /// `Sample`'s derived form, unpacked: what a packed value's bytes hold.
    struct Derived<'a>(&'a Sample);

    impl serde::Serialize for Derived<'_> {
        fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            Sample::serialize(self.0, serializer)
        }
    }

    fn round_trip(value: &Sample) -> Sample {
        let bytes = rmp_serde::to_vec(value).expect("encodes");
        rmp_serde::from_slice(&bytes).expect("decodes")
    }

    #[test]
    fn a_packed_value_reads_back_equal() {
        let lines = Sample::Lines(Ok(vec![("a".into(), Some(3)), ("b".into(), None)]));
        assert_eq!(round_trip(&lines), lines);
        assert_eq!(round_trip(&Sample::Empty), Sample::Empty);
        let refused = Sample::Lines(Err("no".into()));
        assert_eq!(round_trip(&refused), refused);
    }

    #[test]
    fn a_packed_value_is_one_byte_string_of_its_derived_form() {
        let value = Sample::Lines(Ok(vec![("a".into(), None)]));
        let derived = rmp_serde::to_vec(&Derived(&value)).expect("encodes");
        let mut expected = Vec::new();
        rmp::encode::write_bin(&mut expected, &derived).expect("writes");
        assert_eq!(rmp_serde::to_vec(&value).expect("encodes"), expected);
    }

    #[test]
    fn trailing_bytes_are_refused() {
        let mut derived = rmp_serde::to_vec(&Derived(&Sample::Empty)).expect("encodes");
        derived.push(0xc0);
        let mut outer = Vec::new();
        rmp::encode::write_bin(&mut outer, &derived).expect("writes");
        let read: Result<Sample, _> = rmp_serde::from_slice(&outer);
        assert!(
            read.expect_err("trailing bytes are refused")
                .to_string()
                .contains("bytes left")
        );
    }
}
