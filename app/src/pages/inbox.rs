//! The Inbox screen (`/inbox`).

use leptos::prelude::*;

use crate::components::placeholder::ComingSoon;

/// Everything that waits for you.
#[component]
pub fn InboxPage() -> impl IntoView {
    view! {
        <ComingSoon
            title="Inbox"
            purpose="Tasks that need input and approvals that wait for a decision, in one list."
            coming="The inbox arrives with approvals and sign-in (the extensions issue, #5, and later ones). Until then, Tasks → Needs you lists what waits for you."
        />
    }
}
