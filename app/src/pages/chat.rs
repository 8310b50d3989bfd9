//! The Chat screen (`/chat`).

use leptos::prelude::*;

use crate::components::placeholder::ComingSoon;

/// Conversations with agents.
#[component]
pub fn ChatPage() -> impl IntoView {
    view! {
        <ComingSoon
            title="Chat"
            purpose="Start a conversation with an agent, send text, files and data, and watch its tasks stream in."
            coming="Chat arrives with the console issue (#4)."
        />
    }
}
