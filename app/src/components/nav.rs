//! Primary navigation: a sidebar on wide screens and a bottom bar on narrow ones, both built
//! from the one [`NAV_ITEMS`] table.

use leptos::prelude::*;
use leptos_router::components::A;

use super::icon::{FAVICON_VIEW_BOX, Icon, favicon_drawing};
use super::theme_switch::ThemeSwitch;
use crate::pages::inbox::{InboxItems, load_inbox};

/// One entry of the primary navigation. Its label is the same on every screen size (issue #32).
pub struct NavItem {
    pub href: &'static str,
    pub label: &'static str,
    pub icon: &'static str,
    /// On the narrow-screen bottom bar itself; the others are under its "More".
    pub in_bottom_bar: bool,
    /// `g` then this key goes to the screen ([`super::shortcuts`]).
    pub key: char,
}

/// The console's screens, in navigation order.
pub const NAV_ITEMS: [NavItem; 8] = [
    NavItem {
        href: "/agents",
        label: "Agents",
        icon: "bot",
        in_bottom_bar: true,
        key: 'a',
    },
    NavItem {
        href: "/chat",
        label: "Chat",
        icon: "message-square",
        in_bottom_bar: true,
        key: 'c',
    },
    NavItem {
        href: "/inbox",
        label: "Inbox",
        icon: "inbox",
        in_bottom_bar: true,
        key: 'i',
    },
    NavItem {
        href: "/tasks",
        label: "Tasks",
        icon: "list-checks",
        in_bottom_bar: true,
        key: 't',
    },
    NavItem {
        href: "/approvals",
        label: "Approvals",
        icon: "circle-check",
        in_bottom_bar: false,
        key: 'p',
    },
    NavItem {
        href: "/flows",
        label: "Orchestration",
        icon: "workflow",
        in_bottom_bar: false,
        key: 'o',
    },
    NavItem {
        href: "/notifications",
        label: "Notifications",
        icon: "bell",
        in_bottom_bar: false,
        key: 'n',
    },
    NavItem {
        href: "/settings",
        label: "Settings",
        icon: "settings",
        in_bottom_bar: false,
        key: 's',
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

/// What the Inbox badges show, loaded once for the sidebar and the bottom bar: the Inbox's
/// own count of what it lists ([`load_inbox`]), kept current by the freshness signal. Loaded in
/// the browser only: the badge is outside every page, and a server-rendered count could
/// disagree with the one the browser hydrates with.
#[derive(Clone, Copy)]
pub struct InboxBadge(Signal<Option<String>>);

/// Loads the Inbox count for the navigation (call once, around both navigations).
pub fn provide_inbox_badge() {
    use crate::live::{BESIDE_PAGE_EVERY_MS, use_freshness_throttled};
    // Throttled: the badge is beside the page, and a page where agents stream (hundreds of
    // events a second) would otherwise query the Inbox four times a second.
    let freshness = use_freshness_throttled(BESIDE_PAGE_EVERY_MS);
    let items = crate::api::browser_value(move || {
        freshness.track();
        load_inbox()
    });
    provide_context(InboxBadge(Signal::derive(move || {
        items.with(|items| items.as_ref().and_then(InboxItems::badge))
    })));
}

/// The Inbox badge; hidden while nothing waits.
#[component]
fn PendingBadge() -> impl IntoView {
    let badge = use_context::<InboxBadge>().map(|b| b.0);
    move || {
        badge.and_then(|b| b.get()).map(|text| {
            let label = format!("{text} waiting in the Inbox");
            view! {
                <span class="nav-badge" data-testid="pending-approvals" aria-label=label>
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

/// The narrow-screen bottom bar: the main screens, and "More" for the rest (same labels as the
/// sidebar). The menu closes on Escape and on a choice.
#[component]
pub fn BottomNav() -> impl IntoView {
    let more = RwSignal::new(false);
    let link = |item: &'static NavItem| {
        view! {
            <A href=item.href attr:class="bottom-link">
                <Icon name=item.icon/>
                <span>{item.label}</span>
                {(item.href == "/inbox").then(|| view! { <PendingBadge/> })}
            </A>
        }
    };
    view! {
        <nav
            class="bottom-nav"
            aria-label="Primary (compact)"
            on:keydown=super::keys::on_escape(move || more.set(false))
        >
            {NAV_ITEMS.iter().filter(|item| item.in_bottom_bar).map(link).collect_view()}
            <button
                type="button"
                class="bottom-link"
                aria-expanded=move || more.get().to_string()
                aria-controls="more-screens"
                on:click=move |_| more.update(|open| *open = !*open)
            >
                <Icon name="ellipsis"/>
                <span>"More"</span>
            </button>
            <Show when=move || more.get()>
                // A choice closes the menu (the click reaches the list after the link).
                <ul id="more-screens" class="more-menu" aria-label="More screens" on:click=move |_| more.set(false)>
                    {NAV_ITEMS
                        .iter()
                        .filter(|item| !item.in_bottom_bar)
                        .map(|item| view! { <li>{link(item)}</li> })
                        .collect_view()}
                </ul>
            </Show>
        </nav>
    }
}
