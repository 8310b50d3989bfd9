//! Timestamps as people read them: absolute UTC times, so the server render and the hydrated
//! page agree (a relative "2 min ago" would differ between the two).

use leptos::prelude::*;

use crate::projection::time::parse;

/// `2026-11-30T10:05:09.5+01:00` → `30 Nov 2026, 09:05 UTC`; text that is not RFC 3339 is
/// returned unchanged.
pub fn format_time(text: &str) -> String {
    match parse(text) {
        Some(at) => at.format("%-d %b %Y, %H:%M UTC").to_string(),
        None => text.to_owned(),
    }
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
