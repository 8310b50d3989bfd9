//! [`Dialog`]: a modal dialog over a backdrop; Escape, or a click on the backdrop, closes it.

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
    view! {
        <div class="dialog-backdrop" on:click=move |_| open.set(false)></div>
        <div
            class=format!("dialog {class}")
            role="dialog"
            aria-modal="true"
            aria-label=label
            aria-labelledby=labelled_by
            on:keydown=on_escape(move || open.set(false))
        >
            {children()}
        </div>
    }
}
