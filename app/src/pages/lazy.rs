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
//!
//! Hydration stays synchronous: the browser entry point first loads the current screen's code
//! ([`preload`]), then hydrates. Asynchronous hydration (`hydrate_lazy`) would let a response
//! that arrives while a chunk loads run before the page is hydrated, and the page's server
//! data would then be matched to the wrong resource.

use leptos::prelude::*;
use leptos_router::{LazyRoute, lazy_route};

/// The screens, as the router matches them (`root.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Screen {
    Agents,
    AgentDetail,
    ChatLanding,
    Conversation,
    Inbox,
    Approvals,
    ApprovalReview,
    Tasks,
    TaskDetail,
    Flows,
    Notifications,
    Settings,
}

/// The screen the router shows at `path`, if any (the not-found page and `/` are in the main
/// module). Kept in step with the routes in `root.rs` by a test.
pub fn screen_at(path: &str) -> Option<Screen> {
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    Some(match segments.as_slice() {
        ["agents"] => Screen::Agents,
        ["agents", _] => Screen::AgentDetail,
        ["chat"] => Screen::ChatLanding,
        ["chat", _] => Screen::Conversation,
        ["inbox"] => Screen::Inbox,
        ["approvals"] => Screen::Approvals,
        ["approvals", _] => Screen::ApprovalReview,
        ["tasks"] => Screen::Tasks,
        ["tasks", _] => Screen::TaskDetail,
        ["flows"] => Screen::Flows,
        ["notifications"] => Screen::Notifications,
        ["settings"] => Screen::Settings,
        _ => return None,
    })
}

/// Loads the code of the screen at `path`, so the router finds it ready and hydration can run
/// synchronously. A path no screen matches loads nothing.
pub async fn preload(path: &str) {
    match screen_at(path) {
        Some(Screen::Agents) => Agents::preload().await,
        Some(Screen::AgentDetail) => AgentDetail::preload().await,
        Some(Screen::ChatLanding) => ChatLanding::preload().await,
        Some(Screen::Conversation) => Conversation::preload().await,
        Some(Screen::Inbox) => Inbox::preload().await,
        Some(Screen::Approvals) => Approvals::preload().await,
        Some(Screen::ApprovalReview) => ApprovalReview::preload().await,
        Some(Screen::Tasks) => Tasks::preload().await,
        Some(Screen::TaskDetail) => TaskDetail::preload().await,
        Some(Screen::Flows) => Flows::preload().await,
        Some(Screen::Notifications) => Notifications::preload().await,
        Some(Screen::Settings) => Settings::preload().await,
        None => {}
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_route_in_the_router_has_its_screen() {
        let routes = include_str!("../root.rs");
        let mut checked = 0;
        for line in routes.lines().filter(|l| l.contains("<Route path=path!(")) {
            let path = line
                .split("path!(\"")
                .nth(1)
                .and_then(|r| r.split('"').next())
                .unwrap_or_default();
            let ty = line
                .split("Lazy::<lazy::")
                .nth(1)
                .and_then(|r| r.split('>').next())
                .unwrap_or_default();
            let sample = path.replace(":id", "01a22b40-f888-750b-bbe2-336deb230560");
            let screen = screen_at(&sample).unwrap_or_else(|| panic!("no screen for {path}"));
            assert_eq!(format!("{screen:?}"), ty, "{path}");
            checked += 1;
        }
        assert_eq!(checked, 12);
    }

    #[test]
    fn paths_outside_the_screens_load_nothing() {
        assert_eq!(screen_at("/"), None);
        assert_eq!(screen_at("/nowhere"), None);
        assert_eq!(screen_at("/tasks/a/b"), None);
        assert_eq!(screen_at("/tasks/"), Some(Screen::Tasks));
    }
}
