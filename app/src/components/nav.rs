//! Primary navigation: a sidebar on wide screens and a bottom bar on narrow ones, both built
//! from the one [`NAV_ITEMS`] table.

use leptos::prelude::*;
use leptos_router::components::A;

use super::icon::{FAVICON_VIEW_BOX, Icon, favicon_drawing};
use super::theme_switch::ThemeSwitch;

/// One entry of the primary navigation.
pub struct NavItem {
    pub href: &'static str,
    /// Label in the sidebar.
    pub label: &'static str,
    /// Shorter label in the bottom bar.
    pub short: &'static str,
    pub icon: &'static str,
}

/// The console's screens, in navigation order.
pub const NAV_ITEMS: [NavItem; 7] = [
    NavItem {
        href: "/agents",
        label: "Agents",
        short: "Agents",
        icon: "bot",
    },
    NavItem {
        href: "/chat",
        label: "Chat",
        short: "Chat",
        icon: "message-square",
    },
    NavItem {
        href: "/inbox",
        label: "Inbox",
        short: "Inbox",
        icon: "inbox",
    },
    NavItem {
        href: "/tasks",
        label: "Tasks",
        short: "Tasks",
        icon: "list-checks",
    },
    NavItem {
        href: "/flows",
        label: "Orchestration",
        short: "Flows",
        icon: "workflow",
    },
    NavItem {
        href: "/notifications",
        label: "Notifications",
        short: "Alerts",
        icon: "bell",
    },
    NavItem {
        href: "/settings",
        label: "Settings",
        short: "Setup",
        icon: "settings",
    },
];

/// The logo beside the product's name: the favicon's drawing, inline. An `<img>` of an SVG file
/// is decoded as a document of its own on the page's main thread, before hydration.
#[component]
fn BrandMark(size: u32) -> impl IntoView {
    view! {
        <svg
            class="brand-mark"
            viewBox=FAVICON_VIEW_BOX
            width=size
            height=size
            aria-hidden="true"
            inner_html=favicon_drawing()
        ></svg>
    }
}

/// The desktop sidebar: logo, screens, theme switch.
#[component]
pub fn Sidebar() -> impl IntoView {
    view! {
        <nav class="sidebar" aria-label="Primary">
            <a class="brand" href="/chat">
                <BrandMark size=28/>
                <span>"Agent Taskbay"</span>
            </a>
            <ul class="nav-list">
                {NAV_ITEMS
                    .iter()
                    .map(|item| {
                        view! {
                            <li>
                                <A href=item.href attr:class="nav-link">
                                    <Icon name=item.icon/>
                                    <span>{item.label}</span>
                                    {(item.href == "/inbox").then(|| view! { <PendingBadge/> })}
                                </A>
                            </li>
                        }
                    })
                    .collect_view()}
            </ul>
            <div class="sidebar-footer">
                <IdentityMenu/>
                <ThemeSwitch/>
                <p class="tenant">"A2A v1.0 · local"</p>
            </div>
        </nav>
    }
}

/// Who is signed in, with their role, and a way to sign out. Loaded in the browser only, like the
/// badge below: it is outside every page.
#[component]
fn IdentityMenu() -> impl IntoView {
    let identity = crate::api::identity::current_identity();
    let sign_out = ServerAction::<crate::api::identity::SignOut>::new();
    // Signed out: off the app, whose every page would sign in again through the provider.
    Effect::new(move |_| {
        if matches!(sign_out.value().get(), Some(Ok(()))) {
            #[cfg(feature = "hydrate")]
            if let Some(window) = web_sys::window() {
                let _ = window.location().set_href(crate::api::identity::SIGNED_OUT_PATH);
            }
        }
    });
    move || {
        identity.get().map(|me| {
            view! {
                <div class="identity" data-testid="identity">
                    <p class="identity-name">{me.display_name}</p>
                    <p class="identity-role muted small">{me.role.label()}</p>
                    {me.signed_in.then(|| view! {
                        <ActionForm action=sign_out>
                            <button type="submit" class="button identity-sign-out">"Sign out"</button>
                        </ActionForm>
                    })}
                </div>
            }
        })
    }
}

/// The Inbox badge: how many approval requests wait for a decision ("99+" above 99), kept
/// current by the freshness signal. Hidden at zero. Loaded in the browser only: the badge is
/// outside every page, and a server-rendered count could disagree with the one the browser
/// hydrates with.
#[component]
fn PendingBadge() -> impl IntoView {
    use crate::live::{FRESHNESS_URL, LiveFrame, use_live_stream};
    let (freshness, set_freshness) = signal(0_u64);
    let count = crate::api::browser_value(move || {
        freshness.track();
        crate::api::approvals::count_pending_approvals()
    });
    use_live_stream(Signal::derive(|| Some(FRESHNESS_URL.to_owned())), move |frame| {
        if frame == LiveFrame::Freshness {
            set_freshness.update(|n| *n += 1);
        }
    });
    move || {
        let n = count.get().unwrap_or(0);
        (n > 0).then(|| {
            let text = if n > 99 { "99+".to_owned() } else { n.to_string() };
            view! {
                <span class="nav-badge" data-testid="pending-approvals" aria-label=format!("{n} approvals waiting")>
                    {text}
                </span>
            }
        })
    }
}

/// The narrow-screen header: logo and theme switch (the sidebar that holds them is hidden).
#[component]
pub fn TopBar() -> impl IntoView {
    view! {
        <header class="topbar">
            <a class="brand" href="/chat">
                <BrandMark size=24/>
                <span>"Agent Taskbay"</span>
            </a>
            <ThemeSwitch/>
        </header>
    }
}

/// The narrow-screen bottom bar with short labels.
#[component]
pub fn BottomNav() -> impl IntoView {
    view! {
        <nav class="bottom-nav" aria-label="Primary (compact)">
            {NAV_ITEMS
                .iter()
                .map(|item| {
                    view! {
                        <A href=item.href attr:class="bottom-link">
                            <Icon name=item.icon/>
                            <span>{item.short}</span>
                        </A>
                    }
                })
                .collect_view()}
        </nav>
    }
}
