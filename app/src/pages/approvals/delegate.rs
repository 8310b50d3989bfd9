//! "Delegate to…": hands the request to another member who can operate its agent, without
//! deciding it (`shared/spec/security-and-durability.md` §4.1 `delegate`). The choice lists the
//! members the server names as reviewers of the task, the caller left out; a rationale is
//! required, as for every outcome but approve.

use leptos::prelude::*;

use crate::api::approvals::list_reviewers;

/// The select of reviewers and the Delegate button; `on_delegate` gets the chosen membership id.
/// The choice is the page's (`chosen`), so it stays when the page reads the request again.
#[component]
pub fn DelegateControl(
    task_id: String,
    #[prop(into)] pending: Signal<bool>,
    chosen: RwSignal<String>,
    on_delegate: Callback<String>,
) -> impl IntoView {
    let reviewers = crate::api::browser_value(move || list_reviewers(task_id.clone()));
    let others = move || {
        reviewers
            .get()
            .unwrap_or_default()
            .into_iter()
            .filter(|r| !r.is_self)
            .collect::<Vec<_>>()
    };
    view! {
        <div class="delegate" role="group" aria-label="Delegate">
            <label for="delegate-to">"Delegate to"</label>
            <select id="delegate-to" on:change=move |ev| chosen.set(event_target_value(&ev))>
                <option value="">"Choose a reviewer…"</option>
                {move || others().into_iter().map(|r| {
                    let id = r.membership_id.clone();
                    let selected = move || chosen.with(|chosen| *chosen == id);
                    view! {
                        <option value=r.membership_id.clone() selected=selected>
                            {format!("{} ({})", r.display_name, r.role.label())}
                        </option>
                    }
                }).collect_view()}
            </select>
            <button
                type="button"
                class="button"
                disabled=move || pending.get() || chosen.with(String::is_empty)
                on:click=move |_| on_delegate.run(chosen.get_untracked())
            >
                "Delegate"
            </button>
        </div>
    }
}
