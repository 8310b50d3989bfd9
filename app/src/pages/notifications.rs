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
            coming="Notifications (approval requested, task needs input, task finished) arrive with sign-in, when there is someone to notify. Until then the Inbox badge counts the approvals that wait."
        />
    }
}
