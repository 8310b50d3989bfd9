//! [`TaskInterface`]: the task page's "Interface" section: the task's A2UI surfaces, shown when
//! the agent's stored card advertises A2UI and its messages carry any; a button's action is
//! sent on the same task through `send_message`, and a refusal is shown.

use leptos::prelude::*;
use serde_json::Value;

use super::{A2uiSurfaces, has_a2ui_parts};
use crate::api::extensions::get_agent_extensions;
use crate::api::idempotency::DraftKey;
use crate::api::tasks::{SendInput, SendMessage};
use crate::projection::TaskView;

/// The "Interface" section of the task page (nothing when the task has no A2UI part). The server
/// never shows it: the agent's extensions are read in the browser.
#[component]
pub fn TaskInterface(#[prop(into)] task: Signal<TaskView>) -> impl IntoView {
    view! {
        <Show when=move || task.with(has_a2ui_parts)>
            <Interface task/>
        </Show>
    }
}

/// The section: surfaces once the agent's card is known to advertise A2UI, and the outcome of
/// the last action sent.
#[component]
fn Interface(task: Signal<TaskView>) -> impl IntoView {
    let agent_id = task.with_untracked(|t| t.agent_id.clone());
    // Browser only: the page renders without it on the server and adds it once known.
    let extensions =
        crate::api::browser_value(move || get_agent_extensions(agent_id.clone(), Vec::new(), None));
    let version = Signal::derive(move || extensions.with(|e| e.as_ref().and_then(|e| e.a2ui)));
    let send = ServerAction::<SendMessage>::new();
    // One key per action until it is accepted: a retried click replays (issue #26).
    let key = DraftKey::new();
    Effect::new(move |_| send.value().with(|result| result.as_ref().map(|r| key.settle(r))));
    let on_action = Callback::new(move |parts: Vec<Value>| {
        let mut input = with_settings(task.with_untracked(|t| SendInput::on_task(t, parts)));
        input.idempotency_key = Some(key.get());
        send.dispatch(SendMessage { input });
    });
    let shown = move || version.with(Option::is_some) && task.with(has_a2ui_parts);
    view! {
        <Show when=shown>
            <section class="panel" aria-label="Interface" data-testid="task-interface">
                <h2>"Interface"</h2>
                <A2uiSurfaces task version on_action busy=send.pending() heading_level=3/>
                {move || send.value().get().map(|result| match result {
                    Ok(_) => view! { <p class="muted" role="status">"Sent to the agent."</p> }.into_any(),
                    Err(error) => view! { <p class="error" role="alert">{format!("Not sent: {error}")}</p> }.into_any(),
                })}
            </section>
        </Show>
    }
    .into_any()
}

/// Every send carries Settings' extension URIs (reference §2.2), as the chat's sends do.
fn with_settings(mut input: SendInput) -> SendInput {
    input.options.extensions = crate::settings::active_extension_uris(&crate::settings::load());
    input
}
