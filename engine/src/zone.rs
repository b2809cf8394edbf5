//! Time zones by name, for reports that group instants by local date (`keel sessions
//! usage --timezone`).
//!
//! Owns: reading a zone from the IANA time zone database — the system's copy
//! (`/usr/share/zoneinfo`, or `$TZDIR`) when it has one, else the copy bundled into keel
//! (a container without tzdata still knows every zone) — and the refusal of a name neither
//! holds.
//! Does not own: what a zone is used for (`keel-queries`: pure conversions of instants to
//! local dates), nor the flag that names it (`keel`).

pub use jiff::tz::TimeZone;

/// Why a name is not a time zone keel can use.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ZoneError {
    /// Neither the system's database nor keel's own names it (a caller that prints a
    /// repair suggests an IANA name or `UTC`).
    #[error("{name:?} is not a time zone name keel knows")]
    Unknown { name: String },
}

/// The zone `name` names: an IANA name (`Europe/Berlin`; case does not matter) or `UTC`.
pub fn time_zone(name: &str) -> Result<TimeZone, ZoneError> {
    let unknown = || ZoneError::Unknown {
        name: name.to_owned(),
    };
    if name.trim() != name || name.is_empty() {
        return Err(unknown());
    }
    let zone = jiff::tz::db().get(name).map_err(|_| unknown())?;
    // `Etc/Unknown` is the database's name for "no zone": not a zone to group by.
    if zone.is_unknown() {
        return Err(unknown());
    }
    Ok(zone)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iana_names_and_utc_are_zones_and_anything_else_is_refused() {
        assert_eq!(
            time_zone("utc").map(|zone| zone.iana_name().map(str::to_owned)),
            Ok(Some("UTC".to_owned()))
        );
        let berlin = time_zone("Europe/Berlin").expect("a zone every database has");
        assert_eq!(berlin.iana_name(), Some("Europe/Berlin"));
        for bad in ["Mars/Olympus", "", " UTC", "Etc/Unknown", "+05:00"] {
            assert_eq!(
                time_zone(bad),
                Err(ZoneError::Unknown {
                    name: bad.to_owned()
                }),
                "{bad:?}"
            );
        }
    }
}
