//! [`Oid`]: keel's name for a git object id.
//!
//! Owns: the id type every crate above the engine uses, so none of them depends on gix.
//! Does not own: reading objects ([`crate::objects`]).

use std::fmt;

/// A git object id (commit, tree or blob).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Oid(pub(crate) gix::ObjectId);

impl Oid {
    /// The id spelled by 40 hexadecimal digits, if it is one.
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

/// Written as its 40 hexadecimal digits (the on-disk memo's keys and values).
impl serde::Serialize for Oid {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Oid {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let hex = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        Self::from_hex(&hex).ok_or_else(|| serde::de::Error::custom("not a 40-digit object id"))
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
