//! [`CopyId`]: an identifier shown whole (never cut to a prefix) with a button that copies it
//! (issue #32, "full ids with a copy button"); [`CopyButton`] copies any text.

use leptos::prelude::*;

/// The id in a `<code>` and a [`CopyButton`] for it.
#[component]
pub fn CopyId(
    #[prop(into)] id: String,
    /// What the id is, for the button's accessible name ("Copy the context id").
    #[prop(into)]
    what: String,
) -> impl IntoView {
    view! {
        <span class="copy-id">
            <code>{id.clone()}</code>
            <CopyButton text=id what/>
        </span>
    }
}

/// A "Copy" button for `text`; "Copied" is shown and announced once it is on the clipboard.
#[component]
pub fn CopyButton(
    #[prop(into)] text: String,
    /// What is copied, for the button's accessible name ("Copy the card JSON").
    #[prop(into)]
    what: String,
) -> impl IntoView {
    let text = StoredValue::new(text);
    view! { <CopyWith text=Callback::new(move |()| text.get_value()) what/> }
}

/// A copy button whose text is made when it is pressed (a whole log, say), labelled `label`.
#[component]
pub fn CopyWith(
    text: Callback<(), String>,
    /// What is copied, for the button's accessible name.
    #[prop(into)]
    what: String,
    #[prop(default = "Copy")] label: &'static str,
) -> impl IntoView {
    let copied = RwSignal::new(false);
    let on_click = move |_| {
        write_clipboard(&text.run(()));
        copied.set(true);
        set_timeout(
            move || {
                copied.try_set(false);
            },
            std::time::Duration::from_secs(2),
        );
    };
    view! {
        <button type="button" class="copy-button" aria-label=format!("Copy the {what}") on:click=on_click>
            {move || if copied.get() { "Copied" } else { label }}
        </button>
        <span class="visually-hidden" role="status">{move || copied.get().then_some("Copied.")}</span>
    }
}

/// `navigator.clipboard.writeText(text)`, called through JavaScript reflection: web-sys keeps
/// the Clipboard API behind `web_sys_unstable_apis`, a flag this build does not set.
#[cfg(feature = "hydrate")]
fn write_clipboard(text: &str) {
    use wasm_bindgen::{JsCast, JsValue};
    use web_sys::js_sys::{Function, Reflect};

    let Some(window) = web_sys::window() else {
        return;
    };
    let navigator: JsValue = window.navigator().into();
    let Ok(clipboard) = Reflect::get(&navigator, &JsValue::from_str("clipboard")) else {
        return;
    };
    if let Ok(write) = Reflect::get(&clipboard, &JsValue::from_str("writeText"))
        && let Ok(write) = write.dyn_into::<Function>()
    {
        let _ = write.call1(&clipboard, &JsValue::from_str(text));
    }
}

#[cfg(not(feature = "hydrate"))]
fn write_clipboard(text: &str) {
    let _ = text;
}
