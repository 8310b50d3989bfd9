//! The Agents screen (`/agents`).

use leptos::prelude::*;

use crate::components::placeholder::ComingSoon;

/// Registered agents and the flow to add one.
#[component]
pub fn AgentsPage() -> impl IntoView {
    view! {
        <ComingSoon
            title="Agents"
            purpose="Register A2A agents by their Agent Card URL, check their cards for compliance, and see their skills, interfaces and security schemes."
            coming="Registering agents arrives with the A2A client core and console issues (#3, #4). No agents are listed until then."
        />
    }
}
