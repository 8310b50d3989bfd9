//! The page shown for unknown routes, with a real 404 status during SSR.

use leptos::prelude::*;
use leptos_meta::Title;

/// "Page not found", with a link back to the console.
#[component]
pub fn NotFound() -> impl IntoView {
    #[cfg(feature = "ssr")]
    if let Some(response) = use_context::<leptos_axum::ResponseOptions>() {
        response.set_status(http::StatusCode::NOT_FOUND);
    }
    view! {
        <Title text="Page not found"/>
        <header class="page-header">
            <h1>"Page not found"</h1>
            <p class="lede">"There is nothing at this address."</p>
        </header>
        <p><a href="/chat">"Back to Chat"</a></p>
    }
}
