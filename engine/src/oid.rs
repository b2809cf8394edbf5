//! [`Oid`]: keel's name for a git object id.
//!
//! Owns: the id type every crate above the engine uses, so none of them depends on gix.
//! Does not own: reading objects ([`crate::objects`]).

use std::fmt;

/// A git object id (commit, tree or blob).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Oid(pub(crate) gix::ObjectId);

impl Oid {
    /// The id spelled by 40 hexadecimal digits (SHA-1) or 64 (SHA-256), if it is one.
    pub fn from_hex(hex: &str) -> Option<Self> {
        gix::ObjectId::from_hex(hex.as_bytes()).ok().map(Self)
    }

    /// The all-zero id git uses for "no object" (a ref created or deleted).
    pub fn is_null(&self) -> bool {
        self.0.is_null()
    }

    /// The first `len` hexadecimal digits.
    pub fn short(&self, len: usize) -> String {
        let mut hex = self.to_string();
        hex.truncate(len);
        hex
    }
}

/// Written as its hexadecimal digits to a human-readable format, and as its raw bytes
/// (20 for SHA-1, 32 for SHA-256) to a binary one: the on-disk memo's MessagePack, where ids are most of
/// what is stored and decoding hex would be most of the cost.
impl serde::Serialize for Oid {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if serializer.is_human_readable() {
            serializer.collect_str(self)
        } else {
            serializer.serialize_bytes(self.0.as_bytes())
        }
    }
}

impl<'de> serde::Deserialize<'de> for Oid {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        if deserializer.is_human_readable() {
            deserializer.deserialize_str(OidVisitor)
        } else {
            deserializer.deserialize_bytes(OidVisitor)
        }
    }
}

/// Reads either spelling of an [`Oid`].
struct OidVisitor;

impl serde::de::Visitor<'_> for OidVisitor {
    type Value = Oid;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a git object id (its hexadecimal digits or its raw bytes)")
    }

    fn visit_str<E: serde::de::Error>(self, hex: &str) -> Result<Oid, E> {
        Oid::from_hex(hex).ok_or_else(|| E::custom("not a 40- or 64-digit object id"))
    }

    fn visit_bytes<E: serde::de::Error>(self, bytes: &[u8]) -> Result<Oid, E> {
        gix::ObjectId::try_from(bytes)
            .map(Oid)
            .map_err(|_| E::invalid_length(bytes.len(), &self))
    }
}

impl fmt::Display for Oid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl fmt::Debug for Oid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Oid({})", self.short(10))
    }
}
