//! The Notifications screen (`/notifications`).

use leptos::prelude::*;

use crate::components::placeholder::ComingSoon;

/// Your notifications.
#[component]
pub fn NotificationsPage() -> impl IntoView {
    view! {
        <ComingSoon
            title="Notifications"
            purpose="Approvals and tasks that need you, as notifications you can mark read."
            coming="Notifications arrive after the extensions issue (#5)."
        />
    }
}
