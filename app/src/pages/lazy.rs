//! Each screen as a lazily loaded route (ADR 0010): in the browser the router fetches a
//! screen's code the first time it is shown, so the wasm loaded at start holds the shell,
//! the navigation and the router, not every screen. The server renders them as usual.
//!
//! One `impl` per screen, written out: `#[lazy_route]` names the split point after the type
//! and `#[lazy]` after the source location, so a `macro_rules!` wrapper would give every
//! screen the same name.
//!
//! The screens load their data themselves (resources in the page components, streamed by
//! SSR), so `data()` has nothing to start.

use leptos::prelude::*;
use leptos_router::{LazyRoute, lazy_route};

use super::{
    agent_detail, agents, approvals, chat, flows, inbox, notifications, settings, task_detail, tasks,
};

/// `/agents`
pub struct Agents;

#[lazy_route]
impl LazyRoute for Agents {
    fn data() -> Self {
        Self
    }
    fn view(_this: Self) -> AnyView {
        view! { <agents::AgentsPage/> }.into_any()
    }
}

/// `/agents/:id`
pub struct AgentDetail;

#[lazy_route]
impl LazyRoute for AgentDetail {
    fn data() -> Self {
        Self
    }
    fn view(_this: Self) -> AnyView {
        view! { <agent_detail::AgentDetailPage/> }.into_any()
    }
}

/// `/chat`
pub struct ChatLanding;

#[lazy_route]
impl LazyRoute for ChatLanding {
    fn data() -> Self {
        Self
    }
    fn view(_this: Self) -> AnyView {
        view! { <chat::ChatPage/> }.into_any()
    }
}

/// `/chat/:id`
pub struct Conversation;

#[lazy_route]
impl LazyRoute for Conversation {
    fn data() -> Self {
        Self
    }
    fn view(_this: Self) -> AnyView {
        view! { <chat::ConversationPage/> }.into_any()
    }
}

/// `/inbox`
pub struct Inbox;

#[lazy_route]
impl LazyRoute for Inbox {
    fn data() -> Self {
        Self
    }
    fn view(_this: Self) -> AnyView {
        view! { <inbox::InboxPage/> }.into_any()
    }
}

/// `/approvals`
pub struct Approvals;

#[lazy_route]
impl LazyRoute for Approvals {
    fn data() -> Self {
        Self
    }
    fn view(_this: Self) -> AnyView {
        view! { <approvals::ApprovalsPage/> }.into_any()
    }
}

/// `/approvals/:id`
pub struct ApprovalReview;

#[lazy_route]
impl LazyRoute for ApprovalReview {
    fn data() -> Self {
        Self
    }
    fn view(_this: Self) -> AnyView {
        view! { <approvals::review::ApprovalReviewPage/> }.into_any()
    }
}

/// `/tasks`
pub struct Tasks;

#[lazy_route]
impl LazyRoute for Tasks {
    fn data() -> Self {
        Self
    }
    fn view(_this: Self) -> AnyView {
        view! { <tasks::TasksPage/> }.into_any()
    }
}

/// `/tasks/:id`
pub struct TaskDetail;

#[lazy_route]
impl LazyRoute for TaskDetail {
    fn data() -> Self {
        Self
    }
    fn view(_this: Self) -> AnyView {
        view! { <task_detail::TaskDetailPage/> }.into_any()
    }
}

/// `/flows`
pub struct Flows;

#[lazy_route]
impl LazyRoute for Flows {
    fn data() -> Self {
        Self
    }
    fn view(_this: Self) -> AnyView {
        view! { <flows::FlowsPage/> }.into_any()
    }
}

/// `/notifications`
pub struct Notifications;

#[lazy_route]
impl LazyRoute for Notifications {
    fn data() -> Self {
        Self
    }
    fn view(_this: Self) -> AnyView {
        view! { <notifications::NotificationsPage/> }.into_any()
    }
}

/// `/settings`
pub struct Settings;

#[lazy_route]
impl LazyRoute for Settings {
    fn data() -> Self {
        Self
    }
    fn view(_this: Self) -> AnyView {
        view! { <settings::SettingsPage/> }.into_any()
    }
}
