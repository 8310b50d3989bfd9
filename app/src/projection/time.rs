//! RFC 3339 timestamps as sortable instants. Remote timestamps decide whether an observation is
//! stale (`shared/spec/security-and-durability.md` §3.3 "Remote timestamps reject stale snapshots
//! and stale status").

use chrono::{DateTime, Utc};

/// An RFC 3339 timestamp (`2026-11-30T10:00:00.123Z`, `…+02:00`) in UTC; `None` when the text
/// is not one.
pub fn parse(text: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(text.trim())
        .ok()
        .map(|at| at.with_timezone(&Utc))
}

/// Nanoseconds since the Unix epoch of an RFC 3339 timestamp; `None` when the text is not one.
pub fn instant(text: &str) -> Option<i128> {
    let at = parse(text)?;
    Some(i128::from(at.timestamp()) * 1_000_000_000 + i128::from(at.timestamp_subsec_nanos()))
}

/// True when `candidate` is strictly older than `current`; unparseable or missing timestamps
/// are never stale (untimestamped observations are ordered by the ledger sequence).
pub fn is_older(candidate: Option<&str>, current: Option<&str>) -> bool {
    match (candidate.and_then(instant), current.and_then(instant)) {
        (Some(candidate), Some(current)) => candidate < current,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn epoch_and_offsets() {
        assert_eq!(instant("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(instant("1970-01-01T01:00:00+01:00"), Some(0));
        assert_eq!(instant("1969-12-31T23:00:00-01:00"), Some(0));
        assert_eq!(
            instant("2026-11-30T00:00:00Z"),
            Some(1_795_996_800 * 1_000_000_000)
        );
        assert_eq!(instant("1970-01-01T00:00:00.5Z"), Some(500_000_000));
        assert_eq!(instant("1970-01-01T00:00:00.123456789123Z"), Some(123_456_789));
    }

    #[test]
    fn rejects_what_is_not_rfc3339() {
        for bad in [
            "",
            "yesterday",
            "2026-13-01T00:00:00Z",
            "2026-11-30 00:00:00",
            "2026-11-30T00:00:00.Z",
            "2026-11-30T00:00:00+0100",
        ] {
            assert_eq!(instant(bad), None, "{bad}");
        }
    }

    #[test]
    fn stale_only_when_both_parse_and_candidate_is_older() {
        assert!(is_older(
            Some("2026-01-01T00:00:00Z"),
            Some("2026-01-01T00:00:01Z")
        ));
        assert!(!is_older(
            Some("2026-01-01T00:00:01Z"),
            Some("2026-01-01T00:00:01Z")
        ));
        assert!(!is_older(None, Some("2026-01-01T00:00:01Z")));
        assert!(!is_older(Some("garbage"), Some("2026-01-01T00:00:01Z")));
    }
}
