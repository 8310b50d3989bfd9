//! Timestamps as people read them: absolute UTC times, so the server render and the hydrated
//! page agree (a relative "2 min ago" would differ between the two).

use leptos::prelude::*;

use crate::projection::time::instant;

const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// `2026-11-30T10:05:09.5+01:00` → `30 Nov 2026, 09:05 UTC`; text that is not RFC 3339 is
/// returned unchanged.
pub fn format_time(text: &str) -> String {
    let Some(nanos) = instant(text) else {
        return text.to_owned();
    };
    let seconds = i64::try_from(nanos.div_euclid(1_000_000_000)).unwrap_or_default();
    let (days, of_day) = (seconds.div_euclid(86_400), seconds.rem_euclid(86_400));
    let (year, month, day) = civil_from_days(days);
    let month = MONTHS
        .get(month.saturating_sub(1) as usize)
        .copied()
        .unwrap_or("?");
    format!(
        "{day} {month} {year}, {:02}:{:02} UTC",
        of_day / 3600,
        of_day % 3600 / 60
    )
}

/// The date of a day count since 1970-01-01 (H. Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// A `<time>` element with the formatted value and the raw timestamp as its `datetime`.
#[component]
pub fn When(#[prop(into)] at: String) -> impl IntoView {
    view! { <time datetime=at.clone()>{format_time(&at)}</time> }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_in_utc() {
        assert_eq!(format_time("1970-01-01T00:00:00Z"), "1 Jan 1970, 00:00 UTC");
        assert_eq!(
            format_time("2026-11-30T10:05:09.5+01:00"),
            "30 Nov 2026, 09:05 UTC"
        );
        assert_eq!(format_time("2024-02-29T23:59:59Z"), "29 Feb 2024, 23:59 UTC");
        assert_eq!(format_time("2000-03-01T00:00:00-00:30"), "1 Mar 2000, 00:30 UTC");
    }

    #[test]
    fn keeps_unparseable_text() {
        assert_eq!(format_time("yesterday"), "yesterday");
        assert_eq!(format_time(""), "");
    }
}
