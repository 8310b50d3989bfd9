//! The Orchestration screen (`/flows`).

use leptos::prelude::*;

use crate::components::placeholder::ComingSoon;

/// How tasks in one conversation depend on each other.
#[component]
pub fn FlowsPage() -> impl IntoView {
    view! {
        <ComingSoon
            title="Orchestration"
            purpose="See the tasks of one context and how they reference each other."
            coming="Orchestration arrives after the console issue (#4)."
        />
    }
}
