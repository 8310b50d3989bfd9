//! The Settings screen (`/settings`).

use leptos::prelude::*;

use crate::components::placeholder::ComingSoon;

/// Console settings.
#[component]
pub fn SettingsPage() -> impl IntoView {
    view! {
        <ComingSoon
            title="Settings"
            purpose="Request defaults and the extension URIs activated on every request."
            coming="Settings arrive with the extensions issue (#5)."
        />
    }
}
