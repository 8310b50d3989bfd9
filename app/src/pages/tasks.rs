//! The Tasks screen (`/tasks`).

use leptos::prelude::*;

use crate::components::placeholder::ComingSoon;

/// Every task the console has observed.
#[component]
pub fn TasksPage() -> impl IntoView {
    view! {
        <ComingSoon
            title="Tasks"
            purpose="Find every task again: filter by state, open its timeline, history and artifacts."
            coming="The task list arrives with the console issue (#4)."
        />
    }
}
