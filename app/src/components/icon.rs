//! Icons from the vendored lucide sprite (`public/icons.svg`).

use leptos::prelude::*;

/// An inline icon from the sprite; decorative, so hidden from assistive technology.
#[component]
pub fn Icon(
    /// The symbol id in `public/icons.svg`, e.g. `bot`.
    name: &'static str,
) -> impl IntoView {
    view! {
        <svg class="icon" aria-hidden="true" focusable="false" width="20" height="20">
            <use_ href=format!("/icons.svg#{name}")></use_>
        </svg>
    }
}
