//! RFC 3339 timestamps as sortable instants, without a date crate in the wasm build.
//! Remote timestamps decide whether an observation is stale (`shared/spec/security-and-durability.md`
//! §3.3 "Remote timestamps reject stale snapshots and stale status").

/// Nanoseconds since the Unix epoch of an RFC 3339 timestamp (`2026-11-30T10:00:00.123Z`,
/// `…+02:00`); `None` when the text is not one.
pub fn instant(text: &str) -> Option<i128> {
    let b = text.trim().as_bytes();
    if b.len() < 20 {
        return None;
    }
    let num = |from: usize, len: usize| -> Option<i64> {
        let slice = b.get(from..from + len)?;
        if !slice.iter().all(u8::is_ascii_digit) {
            return None;
        }
        std::str::from_utf8(slice).ok()?.parse().ok()
    };
    let sep = |at: usize, options: &[u8]| b.get(at).is_some_and(|c| options.contains(c));
    if !(sep(4, b"-") && sep(7, b"-") && sep(10, b"Tt ") && sep(13, b":") && sep(16, b":")) {
        return None;
    }
    let (year, month, day) = (num(0, 4)?, num(5, 2)?, num(8, 2)?);
    let (hour, minute, second) = (num(11, 2)?, num(14, 2)?, num(17, 2)?);
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    let mut at = 19;
    let mut nanos: i128 = 0;
    if b.get(at) == Some(&b'.') {
        at += 1;
        let start = at;
        while b.get(at).is_some_and(u8::is_ascii_digit) {
            at += 1;
        }
        let digits = &b[start..at];
        if digits.is_empty() {
            return None;
        }
        for (i, d) in digits.iter().take(9).enumerate() {
            nanos += i128::from(d - b'0') * 10i128.pow(8 - i as u32);
        }
    }
    let offset_seconds: i64 = match b.get(at) {
        Some(b'Z' | b'z') if at + 1 == b.len() => 0,
        Some(sign @ (b'+' | b'-')) if at + 6 == b.len() && b[at + 3] == b':' => {
            let value = num(at + 1, 2)? * 3600 + num(at + 4, 2)? * 60;
            if *sign == b'+' { value } else { -value }
        }
        _ => return None,
    };
    let days = days_from_civil(year, month, day);
    let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset_seconds;
    Some(i128::from(seconds) * 1_000_000_000 + nanos)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let yoe = year - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
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
