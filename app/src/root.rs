//! The HTML shell rendered by the server and the [`App`] component with the console's routes.

use leptos::prelude::*;
use leptos_meta::{HashedStylesheet, Link, Meta, MetaTags, Title, provide_meta_context};
use leptos_router::{
    SsrMode,
    components::{Route, Router, Routes},
    path,
};

use crate::components::icon::IconSprite;
use crate::components::nav::{BottomNav, Sidebar, TopBar};
use crate::pages;
use crate::theme::{Theme, provide_theme};

/// Product name, used in titles.
pub const PRODUCT_NAME: &str = "Agent Taskbay";

/// The full HTML document. The theme attribute is set on `<html>` during SSR from the theme
/// cookie, so the first paint already has the right colours.
pub fn shell(options: LeptosOptions) -> impl IntoView {
    #[cfg(feature = "ssr")]
    crate::csp::provide_page_policy();
    let theme = Theme::from_request();
    view! {
        <!DOCTYPE html>
        <html lang="en" data-theme=theme.attribute()>
            <head>
                <meta charset="utf-8"/>
                <meta name="viewport" content="width=device-width, initial-scale=1"/>
                <meta name="color-scheme" content="light dark"/>
                <AutoReload options=options.clone()/>
                <HashedStylesheet options=options.clone() id="leptos"/>
                <HydrationScripts options/>
                // Fetched with the stylesheet, not after it: the first layout uses the font
                // instead of laying the page out again when it arrives.
                <link rel="preload" href="/fonts/inter-latin-wght-normal.woff2" r#as="font" r#type="font/woff2" crossorigin="anonymous"/>
                <MetaTags/>
            </head>
            <body>
                <App/>
            </body>
        </html>
    }
}

/// The console: navigation around the routed screens.
#[component]
pub fn App() -> impl IntoView {
    provide_meta_context();
    provide_theme();
    crate::api::identity::provide_current_identity();

    view! {
        <Link rel="icon" type_="image/svg+xml" href="/favicon.svg"/>
        <Meta name="description" content="A console for operating A2A agents."/>
        <Title formatter=|title: String| {
            if title.is_empty() { PRODUCT_NAME.to_string() } else { format!("{title} · {PRODUCT_NAME}") }
        }/>
        <IconSprite/>
        <Router>
            {crate::components::nav::provide_inbox_badge()}
            <crate::components::shortcuts::Shortcuts/>
            <div class="layout">
                <Sidebar/>
                <TopBar/>
                <main class="main" id="main">
                    // The detail screens render once their data is in (`SsrMode::Async`): their
                    // title and HTTP status come from it, and out-of-order streaming could mark a
                    // section as streamed yet render it in place when the data won the race,
                    // which fails hydration.
                    <Routes fallback=pages::not_found::NotFound>
                        <Route path=path!("/agents") view=pages::agents::AgentsPage/>
                        <Route path=path!("/agents/:id") view=pages::agent_detail::AgentDetailPage ssr=SsrMode::Async/>
                        <Route path=path!("/chat") view=pages::chat::ChatPage/>
                        <Route path=path!("/chat/:id") view=pages::chat::ConversationPage ssr=SsrMode::Async/>
                        <Route path=path!("/inbox") view=pages::inbox::InboxPage/>
                        <Route path=path!("/approvals") view=pages::approvals::ApprovalsPage/>
                        <Route path=path!("/approvals/:id") view=pages::approvals::review::ApprovalReviewPage ssr=SsrMode::Async/>
                        <Route path=path!("/tasks") view=pages::tasks::TasksPage/>
                        <Route path=path!("/tasks/:id") view=pages::task_detail::TaskDetailPage ssr=SsrMode::Async/>
                        <Route path=path!("/flows") view=pages::flows::FlowsPage/>
                        <Route path=path!("/notifications") view=pages::notifications::NotificationsPage/>
                        <Route path=path!("/settings") view=pages::settings::SettingsPage/>
                        <Route path=path!("/settings/access") view=pages::access::AccessPage/>
                    </Routes>
                </main>
                <BottomNav/>
            </div>
        </Router>
    }
}
