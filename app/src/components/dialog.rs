//! [`Dialog`]: a modal dialog over a backdrop; Escape, or a click on the backdrop, closes it.
//! While open, Tab and Shift-Tab cycle through its own controls (the page behind is inert to
//! the keyboard); once closed, the focus goes back to where it was when it opened.

use leptos::prelude::*;

use super::keys::on_escape;

/// The dialog around `children`, shown while the caller shows it; `open` is set to `false` to
/// close it. Named by `label` (or by the element `labelled_by` names).
#[component]
pub fn Dialog(
    open: RwSignal<bool>,
    /// Extra classes (`dialog` is always there).
    class: &'static str,
    #[prop(optional)] label: Option<&'static str>,
    #[prop(optional)] labelled_by: Option<&'static str>,
    children: Children,
) -> impl IntoView {
    let node = NodeRef::<leptos::html::Div>::new();
    #[cfg(feature = "hydrate")]
    restore_focus_on_close();
    let escape = on_escape(move || open.set(false));
    let on_keydown = move |ev: leptos::ev::KeyboardEvent| {
        if ev.key() == "Tab" {
            #[cfg(feature = "hydrate")]
            trap_tab(node, &ev);
            return;
        }
        escape(ev);
    };
    view! {
        <div class="dialog-backdrop" on:click=move |_| open.set(false)></div>
        <div
            class=format!("dialog {class}")
            role="dialog"
            aria-modal="true"
            aria-label=label
            aria-labelledby=labelled_by
            node_ref=node
            on:keydown=on_keydown
        >
            {children()}
        </div>
    }
}

/// The selector of what Tab can reach inside a dialog.
#[cfg(feature = "hydrate")]
const FOCUSABLE: &str = "a[href], button:not([disabled]), input:not([disabled]):not([type=hidden]), \
     select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex='-1'])";

/// Keeps Tab inside the dialog: from its last control to its first, and back with Shift.
#[cfg(feature = "hydrate")]
fn trap_tab(node: NodeRef<leptos::html::Div>, ev: &leptos::ev::KeyboardEvent) {
    use wasm_bindgen::JsCast;
    let Some(dialog) = node.get_untracked() else {
        return;
    };
    let Ok(list) = dialog.query_selector_all(FOCUSABLE) else {
        return;
    };
    let controls: Vec<web_sys::HtmlElement> = (0..list.length())
        .filter_map(|i| list.item(i))
        .filter_map(|n| n.dyn_into::<web_sys::HtmlElement>().ok())
        .collect();
    let (Some(first), Some(last)) = (controls.first(), controls.last()) else {
        ev.prevent_default();
        return;
    };
    let active = dialog.owner_document().and_then(|d| d.active_element());
    let is = |el: &web_sys::HtmlElement| {
        active
            .as_ref()
            .is_some_and(|a| a == el.unchecked_ref::<web_sys::Element>())
    };
    let inside = active.as_ref().is_some_and(|a| dialog.contains(Some(a)));
    if ev.shift_key() && (is(first) || !inside) {
        ev.prevent_default();
        let _ = last.focus();
    } else if !ev.shift_key() && (is(last) || !inside) {
        ev.prevent_default();
        let _ = first.focus();
    }
}

/// Remembers the focused element when the dialog opens and focuses it again when it closes on
/// the same screen.
#[cfg(feature = "hydrate")]
fn restore_focus_on_close() {
    use wasm_bindgen::JsCast;
    let before = document()
        .active_element()
        .and_then(|el| el.dyn_into::<web_sys::HtmlElement>().ok());
    let path = || window().location().pathname().ok();
    let opened_on = path();
    let before = StoredValue::new_local(before);
    on_cleanup(move || {
        // A choice that moved to another screen leaves the focus to that screen.
        if path() != opened_on {
            return;
        }
        if let Some(el) = before.try_update_value(Option::take).flatten() {
            let _ = el.focus();
        }
    });
}
