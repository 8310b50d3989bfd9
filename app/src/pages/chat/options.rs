//! The composer's Options panel: per-request settings that apply to the next message only
//! (`returnImmediately`, `historyLength`, `acceptedOutputModes`, `referenceTaskIds`).

use leptos::prelude::*;

use super::composer::Draft;
use crate::api::agents::ChatAgent;

/// The four options, with the card's declared output modes (★) as a hint.
#[component]
pub fn OptionsPanel(draft: Draft, agent: Signal<Option<ChatAgent>>) -> impl IntoView {
    let declared = move || {
        agent.with(|c| {
            c.as_ref()
                .filter(|c| !c.default_output_modes.is_empty())
                .map(|c| format!("★ declared by the card: {}", c.default_output_modes.join(", ")))
        })
    };
    view! {
        <div class="options-panel" id="send-options" role="group" aria-label="Options for the next message">
            <label class="check" for="opt-return">
                <input
                    id="opt-return"
                    type="checkbox"
                    prop:checked=move || draft.return_immediately.get()
                    on:change=move |ev| draft.return_immediately.set(event_target_checked(&ev))
                />
                "Return immediately"
            </label>
            <label for="opt-history">"History length"</label>
            <input
                id="opt-history"
                type="number"
                min="0"
                step="1"
                inputmode="numeric"
                prop:value=move || draft.history_length.get()
                on:input=move |ev| draft.history_length.set(event_target_value(&ev))
            />
            <label for="opt-output-modes">"Accepted output modes (comma separated)"</label>
            <input
                id="opt-output-modes"
                type="text"
                placeholder="text/plain, application/json"
                prop:value=move || draft.accepted_output_modes.get()
                on:input=move |ev| draft.accepted_output_modes.set(event_target_value(&ev))
            />
            {move || declared().map(|hint| view! { <p class="muted small">{hint}</p> })}
            <label for="opt-references">"Reference task ids (comma separated)"</label>
            <input
                id="opt-references"
                type="text"
                placeholder="task ids this message refers to"
                prop:value=move || draft.reference_task_ids.get()
                on:input=move |ev| draft.reference_task_ids.set(event_target_value(&ev))
            />
            <p class="muted small">"These apply to the next message only."</p>
        </div>
    }
    .into_any()
}
