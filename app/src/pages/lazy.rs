//! Each screen as a lazily loaded route (ADR 0010): in the browser the router fetches a
//! screen's code the first time it is shown, so the wasm loaded at start holds the shell,
//! the navigation and the router, not every screen. The server renders them as usual.
//!
//! Every screen is its own split point, one `#[lazy]` function each, so a screen loads only the
//! code it reaches (ADR 0014). The code that several screens share is not one file per set of
//! screens sharing it (hundreds of files): the build's splitter merges those chunks into a
//! handful per screen (`frontend/split`). (`#[lazy]` names a split point after its source
//! position, so the functions are written out, not generated.)
//!
//! The screens load their data themselves (resources in the page components, streamed by
//! SSR), so `data()` has nothing to start.
//!
//! Hydration stays synchronous: the browser entry point first loads the current screen's code
//! ([`preload`]), then hydrates. Asynchronous hydration (`hydrate_lazy`) would let a response
//! that arrives while a chunk loads run before the page is hydrated, and the page's server
//! data would then be matched to the wrong resource.

use leptos::prelude::*;
use leptos_router::LazyRoute;

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

impl Screen {
    /// The name of the screen's `#[lazy]` function below, which names its split in the build's
    /// manifest (`<name>_<hash>`). Kept in step with the functions by a test.
    pub fn split_name(self) -> &'static str {
        match self {
            Screen::Agents => "agents",
            Screen::AgentDetail => "agent_detail",
            Screen::ChatLanding => "chat",
            Screen::Conversation => "conversation",
            Screen::Inbox => "inbox",
            Screen::Approvals => "approvals",
            Screen::ApprovalReview => "approval_review",
            Screen::Tasks => "tasks",
            Screen::TaskDetail => "task_detail",
            Screen::Flows => "flows",
            Screen::Notifications => "notifications",
            Screen::Settings => "settings",
        }
    }
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

// One split point per screen. The names are the split files' names (`split_<name>_<hash>`).

#[lazy]
fn agents() -> AnyView {
    view! { <agents::AgentsPage/> }.into_any()
}

#[lazy]
fn chat() -> AnyView {
    view! { <chat::ChatPage/> }.into_any()
}

#[lazy]
fn inbox() -> AnyView {
    view! { <inbox::InboxPage/> }.into_any()
}

#[lazy]
fn approvals() -> AnyView {
    view! { <approvals::ApprovalsPage/> }.into_any()
}

#[lazy]
fn tasks() -> AnyView {
    view! { <tasks::TasksPage/> }.into_any()
}

#[lazy]
fn flows() -> AnyView {
    view! { <flows::FlowsPage/> }.into_any()
}

#[lazy]
fn notifications() -> AnyView {
    view! { <notifications::NotificationsPage/> }.into_any()
}

#[lazy]
fn settings() -> AnyView {
    view! { <settings::SettingsPage/> }.into_any()
}

#[lazy]
fn conversation() -> AnyView {
    view! { <chat::ConversationPage/> }.into_any()
}

#[lazy]
fn task_detail() -> AnyView {
    view! { <task_detail::TaskDetailPage/> }.into_any()
}

#[lazy]
fn agent_detail() -> AnyView {
    view! { <agent_detail::AgentDetailPage/> }.into_any()
}

#[lazy]
fn approval_review() -> AnyView {
    view! { <approvals::review::ApprovalReviewPage/> }.into_any()
}

/// A route type per screen, loading its screen's code.
macro_rules! screen_route {
    ($(#[$doc:meta])* $name:ident, $split:ident, $preload:ident) => {
        $(#[$doc])*
        pub struct $name;

        impl LazyRoute for $name {
            fn data() -> Self {
                Self
            }
            async fn view(_this: Self) -> AnyView {
                $split().await
            }
            async fn preload() {
                // The preloader exists where `#[lazy]` splits: the browser build.
                #[cfg(feature = "hydrate")]
                $preload().await;
            }
        }
    };
}

screen_route!(/// `/agents`
    Agents, agents, __preload_agents);
screen_route!(/// `/agents/:id`
    AgentDetail, agent_detail, __preload_agent_detail);
screen_route!(/// `/chat`
    ChatLanding, chat, __preload_chat);
screen_route!(/// `/chat/:id`
    Conversation, conversation, __preload_conversation);
screen_route!(/// `/inbox`
    Inbox, inbox, __preload_inbox);
screen_route!(/// `/approvals`
    Approvals, approvals, __preload_approvals);
screen_route!(/// `/approvals/:id`
    ApprovalReview, approval_review, __preload_approval_review);
screen_route!(/// `/tasks`
    Tasks, tasks, __preload_tasks);
screen_route!(/// `/tasks/:id`
    TaskDetail, task_detail, __preload_task_detail);
screen_route!(/// `/flows`
    Flows, flows, __preload_flows);
screen_route!(/// `/notifications`
    Notifications, notifications, __preload_notifications);
screen_route!(/// `/settings`
    Settings, settings, __preload_settings);

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
    fn each_screen_s_split_name_is_its_lazy_function() {
        let source = include_str!("lazy.rs");
        let mut checked = 0;
        for line in source.lines().filter(|l| l.starts_with("screen_route!(")) {
            let path = line.split('`').nth(1).unwrap_or_default();
            let sample = path.replace(":id", "01a22b40-f888-750b-bbe2-336deb230560");
            let screen = screen_at(&sample).unwrap_or_else(|| panic!("no screen for {path}"));
            let name = screen.split_name();
            assert!(
                source.contains(&format!("#[lazy]\nfn {name}() -> AnyView")),
                "{screen:?}: no #[lazy] fn {name}"
            );
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
