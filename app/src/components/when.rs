//! Timestamps as people read them: absolute UTC times, so the server render and the hydrated
//! page agree (a relative "2 min ago" would differ between the two).

use leptos::prelude::*;

use crate::projection::time::parse;

/// `2026-11-30T10:05:09.5+01:00` → `30 Nov 2026, 09:05:09 UTC` (seconds everywhere, issue
/// #32); text that is not RFC 3339 is returned unchanged.
pub fn format_time(text: &str) -> String {
    match parse(text) {
        Some(at) => at.format("%-d %b %Y, %H:%M:%S UTC").to_string(),
        None => text.to_owned(),
    }
}

/// The exact instant, for hovering: `2026-11-30 09:05:09.500 UTC`.
pub fn exact_time(text: &str) -> String {
    match parse(text) {
        Some(at) => at.format("%Y-%m-%d %H:%M:%S%.3f UTC").to_string(),
        None => text.to_owned(),
    }
}

/// The time of day, for a chat turn: `09:05:09` (the date and milliseconds on hover).
pub fn clock_time(text: &str) -> String {
    match parse(text) {
        Some(at) => at.format("%H:%M:%S").to_string(),
        None => text.to_owned(),
    }
}

/// A `<time>` element with the formatted value, the raw timestamp as its `datetime` and the
/// exact instant on hover; `clock` shows the time of day only.
#[component]
pub fn When(#[prop(into)] at: String, #[prop(optional)] clock: bool) -> impl IntoView {
    let shown = if clock { clock_time(&at) } else { format_time(&at) };
    view! { <time datetime=at.clone() title=exact_time(&at)>{shown}</time> }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_in_utc_with_seconds() {
        assert_eq!(format_time("1970-01-01T00:00:00Z"), "1 Jan 1970, 00:00:00 UTC");
        assert_eq!(
            format_time("2026-11-30T10:05:09.5+01:00"),
            "30 Nov 2026, 09:05:09 UTC"
        );
        assert_eq!(format_time("2024-02-29T23:59:59Z"), "29 Feb 2024, 23:59:59 UTC");
        assert_eq!(
            format_time("2000-03-01T00:00:00-00:30"),
            "1 Mar 2000, 00:30:00 UTC"
        );
        assert_eq!(
            exact_time("2026-11-30T10:05:09.5+01:00"),
            "2026-11-30 09:05:09.500 UTC"
        );
        assert_eq!(clock_time("2026-11-30T10:05:09.5+01:00"), "09:05:09");
    }

    #[test]
    fn keeps_unparseable_text() {
        assert_eq!(format_time("yesterday"), "yesterday");
        assert_eq!(exact_time("yesterday"), "yesterday");
        assert_eq!(clock_time("later"), "later");
        assert_eq!(format_time(""), "");
    }
}
