//! "Cancel task" with an inline confirmation step, used by the task detail page and the task
//! cards of the Chat timeline. The cancel is stored as a command; the task's state changes
//! when the agent's answer is observed, not when this button is pressed. The server renders the
//! button in place; its code (the confirm step and the request) loads after hydration, as a
//! deferred view (ADR 0015, ADR 0017).

use leptos::prelude::*;

use crate::api::idempotency::DraftKey;
use crate::api::tasks::{CommandView, cancel_task};

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
    let (busy, set_busy) = signal(false);
    let (outcome, set_outcome) = signal(None::<Result<(), String>>);
    // One key per cancel until it is accepted: a retried confirm replays it (issue #26).
    let key = DraftKey::new();
    let confirm = move |_| {
        set_busy.set(true);
        set_outcome.set(None);
        let id = task_id.get_value();
        leptos::task::spawn_local(async move {
            let result = cancel_task(id, Some(key.get())).await;
            key.settle(&result);
            set_busy.try_set(false);
            match result {
                Ok(command) => {
                    set_confirming.try_set(false);
                    set_outcome.try_set(Some(Ok(())));
                    if let Some(on_sent) = on_sent {
                        on_sent.try_run(command);
                    }
                }
                Err(error) => {
                    set_outcome.try_set(Some(Err(error.to_string())));
                }
            }
        });
    };
    view! {
        <span class="cancel-control">
            <Show
                when=move || confirming.get()
                fallback=move || view! {
                    <button type="button" class="button" data-testid="cancel-task" on:click=move |_| set_confirming.set(true)>
                        "Cancel task"
                    </button>
                }
            >
                <span class="confirm" role="group" aria-label="Confirm cancel">
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
            {move || outcome.get().map(|result| match result {
                Ok(()) => view! { <span class="muted" role="status">"Cancel requested."</span> }.into_any(),
                Err(error) => view! { <span class="error" role="alert">{error}</span> }.into_any(),
            })}
        </span>
    }
    .into_any()
}
