//! The honest empty state of a screen whose feature has not landed yet.

use leptos::prelude::*;
use leptos_meta::Title;

/// A page header plus a plain statement of what the screen will do and when.
#[component]
pub fn ComingSoon(
    /// Page heading and document title.
    title: &'static str,
    /// One sentence: what the screen is for.
    purpose: &'static str,
    /// What is still missing, and which issue brings it.
    coming: &'static str,
) -> impl IntoView {
    view! {
        <Title text=title/>
        <header class="page-header">
            <h1>{title}</h1>
            <p class="lede">{purpose}</p>
        </header>
        <section class="empty-state" aria-live="polite">
            <h2>"Not built yet"</h2>
            <p>{coming}</p>
        </section>
    }
}
