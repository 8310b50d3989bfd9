//! Following the newest item (issue #32): the page stays scrolled to the end of the
//! conversation while the reader is there, so a send, an answer, a form or a surface that
//! arrives is seen, not left under the composer. A reader who has scrolled up is left where
//! they are, and a "New activity" button takes them down when something arrives.

use leptos::html::Div;
use leptos::prelude::*;

/// How close to the end (in CSS pixels) still counts as being at the end.
#[cfg(feature = "hydrate")]
const AT_END_SLACK: f64 = 48.0;

/// The follow state of one conversation page.
#[derive(Clone, Copy)]
pub struct Follow {
    /// The reader is at the end: growth scrolls the page along.
    pub at_end: RwSignal<bool>,
    /// Something arrived while the reader was scrolled up.
    pub unseen: RwSignal<bool>,
}

impl Follow {
    pub fn new() -> Follow {
        Follow {
            at_end: RwSignal::new(true),
            unseen: RwSignal::new(false),
        }
    }

    /// Scrolls to the end and follows from there (a send, the "New activity" button).
    pub fn jump_to_end(self) {
        self.at_end.set(true);
        self.unseen.set(false);
        scroll_to_end();
    }

    /// Watches the page's scroll position and the timeline's size for as long as the calling
    /// component lives (browser only).
    pub fn watch(self, timeline: NodeRef<Div>) {
        #[cfg(feature = "hydrate")]
        watch(self, timeline);
        #[cfg(not(feature = "hydrate"))]
        let _ = timeline;
    }
}

impl Default for Follow {
    fn default() -> Self {
        Follow::new()
    }
}

/// The "New activity" button, shown while something arrived out of view.
#[component]
pub fn NewActivity(follow: Follow) -> impl IntoView {
    view! {
        <Show when=move || follow.unseen.get()>
            <button type="button" class="button new-activity" data-testid="new-activity" on:click=move |_| follow.jump_to_end()>
                "New activity ↓"
            </button>
        </Show>
    }
}

#[cfg(feature = "hydrate")]
fn scroll_to_end() {
    if let Some(window) = web_sys::window() {
        let height = window
            .document()
            .and_then(|d| d.document_element())
            .map(|e| e.scroll_height())
            .unwrap_or(0);
        window.scroll_to_with_x_and_y(0.0, f64::from(height));
    }
}

#[cfg(not(feature = "hydrate"))]
fn scroll_to_end() {}

/// Whether the window is scrolled to (near) the end of the document.
#[cfg(feature = "hydrate")]
fn window_at_end() -> bool {
    let Some(window) = web_sys::window() else {
        return true;
    };
    let Some(root) = window.document().and_then(|d| d.document_element()) else {
        return true;
    };
    let seen =
        window.scroll_y().unwrap_or(0.0) + window.inner_height().ok().and_then(|h| h.as_f64()).unwrap_or(0.0);
    seen + AT_END_SLACK >= f64::from(root.scroll_height())
}

#[cfg(feature = "hydrate")]
fn watch(follow: Follow, timeline: NodeRef<Div>) {
    use wasm_bindgen::JsCast;
    use wasm_bindgen::closure::Closure;

    // Growth does not fire `scroll`; only the reader (or `scroll_to_end`) does.
    let listener = window_event_listener(leptos::ev::scroll, move |_| {
        let at_end = window_at_end();
        follow.at_end.set(at_end);
        if at_end {
            follow.unseen.set(false);
        }
    });
    on_cleanup(move || listener.remove());
    // The timeline grew or shrank: new items, a chunk, a form, a surface, a card loaded later.
    let observer = StoredValue::new_local(None::<(web_sys::ResizeObserver, Closure<dyn FnMut()>)>);
    Effect::new(move |_| {
        let Some(element) = timeline.get() else {
            return;
        };
        // Only growth is news: a pending bubble leaving or a reflow is not.
        let element_for_size = element.clone();
        let mut last_height = 0;
        let on_resize = Closure::<dyn FnMut()>::new(move || {
            let height = element_for_size.scroll_height();
            let grew = height > last_height;
            last_height = height;
            if follow.at_end.get_untracked() {
                scroll_to_end();
            } else if grew {
                follow.unseen.set(true);
            }
        });
        if let Ok(resize) = web_sys::ResizeObserver::new(on_resize.as_ref().unchecked_ref()) {
            resize.observe(&element);
            if let Some((old, _)) = observer
                .try_update_value(|o| o.replace((resize, on_resize)))
                .flatten()
            {
                old.disconnect();
            }
        }
    });
    on_cleanup(move || {
        if let Some((resize, _)) = observer.try_update_value(Option::take).flatten() {
            resize.disconnect();
        }
    });
}
