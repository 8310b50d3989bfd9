//! "Cancel task" with an inline confirmation step, used by the task detail page and the task
//! cards of the Chat timeline. The cancel is stored as a command; the task's state changes
//! when the agent's answer is observed, not when this button is pressed.

use leptos::prelude::*;

use crate::api::idempotency::DraftKey;
use crate::api::tasks::{CancelTask, CommandView};

/// The button, its confirm step, and the outcome of the request.
#[component]
pub fn CancelTaskControl(
    /// The local task id.
    #[prop(into)]
    task_id: String,
    /// Told about the stored cancel command (the chat shows it as pending and logs it).
    #[prop(optional)]
    on_sent: Option<Callback<CommandView>>,
) -> impl IntoView {
    let task_id = StoredValue::new(task_id);
    let (confirming, set_confirming) = signal(false);
    let viewer = crate::api::identity::known_viewer();
    let cancel = ServerAction::<CancelTask>::new();
    let busy = cancel.pending();
    // One key per cancel until it is accepted: a retried confirm replays it (issue #26).
    let key = DraftKey::new();
    // Each answer: renew the key if it is done with, and tell the caller about a stored cancel.
    Effect::new(move |_| {
        let Some(result) = cancel.value().get() else {
            return;
        };
        untrack(|| {
            key.settle(&result);
            if let Ok(command) = result {
                set_confirming.set(false);
                if let Some(on_sent) = on_sent {
                    on_sent.run(command);
                }
            }
        });
    });
    // The last request's outcome, hidden while the next one runs.
    let outcome = move || {
        if busy.get() {
            return None;
        }
        cancel.value().with(|result| {
            result
                .as_ref()
                .map(|r| r.as_ref().map(|_| ()).map_err(ToString::to_string))
        })
    };
    let confirm = move |_| {
        cancel.dispatch(CancelTask {
            task_id: task_id.get_value(),
            idempotency_key: Some(key.get()),
        });
    };
    view! {
        <span class="cancel-control">
            <Show
                when=move || confirming.get()
                fallback=move || view! {
                    <button
                        type="button"
                        class="button"
                        data-testid="cancel-task"
                        disabled=move || viewer.get()
                        title=move || viewer.get().then_some(crate::api::identity::READ_ONLY)
                        on:click=move |_| set_confirming.set(true)
                    >
                        "Cancel task"
                    </button>
                }
            >
                <span class="confirm" role="group" aria-label="Confirm cancel" on:keydown=super::keys::on_escape(move || set_confirming.set(false))>
                    "Ask the agent to cancel this task?"
                    <button
                        type="button"
                        class="button danger"
                        data-testid="confirm-cancel"
                        disabled=move || busy.get()
                        on:click=confirm
                    >
                        {move || if busy.get() { "Canceling…" } else { "Cancel task" }}
                    </button>
                    <button type="button" class="button subtle" on:click=move |_| set_confirming.set(false)>"Keep running"</button>
                </span>
            </Show>
            {move || outcome().map(|result| match result {
                Ok(()) => view! { <span class="muted" role="status">"Cancel requested."</span> }.into_any(),
                Err(error) => view! { <span class="error" role="alert">{error}</span> }.into_any(),
            })}
        </span>
    }
    .into_any()
}
