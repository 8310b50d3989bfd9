//! [`error_alert`]: the fallback of the pages' `ErrorBoundary`s: every error's message, as one
//! alert.

use leptos::prelude::*;

/// The messages of `errors`, joined, in an alert paragraph.
pub fn error_alert(errors: ArcRwSignal<Errors>) -> impl IntoView {
    view! {
        <p role="alert" class="error">
            {move || errors.get().into_iter().map(|(_, e)| e.to_string()).collect::<Vec<_>>().join(" ")}
        </p>
    }
}
