//! Views whose code the browser loads after hydration (ADR 0015).
//!
//! A screen hydrates with the code of what every page of it shows: its layout, lists and
//! controls. What only some pages show, and what is heavy (a message's Markdown, CSV and JSON
//! viewers, A2UI surfaces, forms, approval cards), is a `#[lazy]` split point of its own and is
//! shown through [`deferred`]:
//!
//! - **On the server** the view is rendered in place, inside a wrapper element. The page arrives
//!   complete. (Its files are not preloaded with the page: the browser fetches them as soon as
//!   it has hydrated.)
//! - **When the browser hydrates**, it claims the wrapper without its children: the server's DOM
//!   stays on screen as it is, `inert` (a click or a keystroke on it would be lost). Once the
//!   split's code is there (a few milliseconds on loopback), the view is built and replaces the
//!   server's copy of itself, now live.
//! - **When the browser renders** (a new message arrives, or a screen is opened by navigation), the
//!   wrapper is empty until the code is there, then the view is mounted in it.
//!
//! The wrapper is `display: contents`, so layouts see the view's own elements.

use std::future::Future;

use leptos::prelude::*;

/// The wrapper's class; `style/main.css` makes it `display: contents`.
pub const DEFERRED_CLASS: &str = "deferred";

/// `load()` (a `#[lazy]` function returning the view) shown in a wrapper: rendered in place on
/// the server, built and mounted once its code has loaded in the browser. `name` is set as the
/// wrapper's `data-deferred`, and `data-ready` once the live view is in place.
pub fn deferred<Fut>(name: &'static str, load: impl FnOnce() -> Fut + 'static) -> impl IntoView
where
    Fut: Future<Output = AnyView> + 'static,
{
    #[cfg(not(feature = "hydrate"))]
    {
        // A `#[lazy]` function does not wait for anything outside the browser.
        let view = resolve_now(load()).expect("a lazy view resolves at once outside the browser");
        // Inert until the browser has replaced it with the live view: a click or a keystroke on
        // the server's copy would be lost.
        view! { <div class=DEFERRED_CLASS data-deferred=name inert>{view}</div> }
    }
    #[cfg(feature = "hydrate")]
    {
        // One copy of the mounting code serves every deferred view, not one per caller.
        mount_when_loaded(name, Box::pin(async move { load().await }))
    }
}

/// The browser's side of [`deferred`].
#[cfg(feature = "hydrate")]
fn mount_when_loaded(
    name: &'static str,
    view: std::pin::Pin<Box<dyn Future<Output = AnyView>>>,
) -> impl IntoView {
    use leptos::tachys::view::any_view::AnyViewState;
    use leptos::tachys::view::{Mountable, Render};

    // The view's component code runs once its file has loaded, in the caller's owner (its
    // signals and effects are disposed with the page's) and tracked by nobody.
    let view = leptos::reactive::computed::ScopedFuture::new_untracked(view);
    let node = NodeRef::<leptos::html::Div>::new();
    let owner = Owner::current();
    // The built view's state: dropping it would stop its effects.
    let live = StoredValue::new_local(None::<AnyViewState>);
    leptos::task::spawn_local(async move {
        let view = view.await;
        let Some(owner) = owner else {
            return;
        };
        if live.is_disposed() {
            return;
        }
        // Mounted once the wrapper is there: a `Suspend` rebuilding its view (a navigation from
        // one conversation to another) runs its components, which start this task, and waits a
        // tick before it builds their elements, so the wrapper may not exist yet.
        let view = std::cell::Cell::new(Some(view));
        owner.clone().with(|| {
            Effect::new(move |_| {
                let Some(el) = node.get() else {
                    return;
                };
                let Some(view) = view.take() else {
                    return;
                };
                if live.is_disposed() {
                    return;
                }
                // Built in the caller's owner, not this effect's: the effect runs again if the
                // wrapper is rebuilt, and that must not dispose the live view.
                let mut state = untrack(|| owner.with(|| view.build()));
                // The server's copy (hydration kept it), a view of a page rebuilt in place, or
                // nothing (a client render).
                el.set_inner_html("");
                state.mount(&el, None);
                let _ = el.remove_attribute("inert");
                let _ = el.set_attribute("data-ready", "");
                live.set_value(Some(state));
            });
        });
    });
    // `inner_html` hydrates without touching the children the server rendered.
    view! { <div class=DEFERRED_CLASS data-deferred=name node_ref=node inner_html=""></div> }
}

/// The value of a future that is ready when first polled.
#[cfg(not(feature = "hydrate"))]
fn resolve_now<T>(future: impl Future<Output = T>) -> Option<T> {
    use std::task::{Context, Poll, Waker};
    let mut future = std::pin::pin!(future);
    match future.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(value) => Some(value),
        Poll::Pending => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::a2a::Part;
    use crate::content::PartsView;

    fn render(view: impl FnOnce() -> AnyView) -> String {
        let owner = Owner::new();
        owner.with(|| view().to_html())
    }

    #[test]
    fn the_server_renders_a_deferred_view_in_place_inside_an_inert_wrapper() {
        let html = render(|| {
            deferred("note", || async {
                view! { <p class="note">"Hello"</p> }.into_any()
            })
            .into_any()
        });
        assert!(
            html.starts_with(r#"<div data-deferred="note" inert class="deferred">"#),
            "{html}"
        );
        assert!(html.contains(r#"<p class="note">Hello</p>"#), "{html}");
        assert!(!html.contains("data-ready"), "{html}");
    }

    #[test]
    fn a_message_s_parts_are_a_deferred_view_rendered_on_the_server() {
        let html = render(|| view! { <PartsView parts=vec![Part::text("# Title")]/> }.into_any());
        assert!(html.contains(r#"data-deferred="parts" inert"#), "{html}");
        assert!(html.contains(r#"<div class="content-parts">"#), "{html}");
    }

    #[test]
    fn resolve_now_takes_a_ready_future_and_refuses_a_pending_one() {
        assert_eq!(resolve_now(async { 7 }), Some(7));
        assert_eq!(resolve_now(std::future::pending::<u8>()), None);
    }
}
