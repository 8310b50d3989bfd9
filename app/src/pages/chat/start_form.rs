//! "Start with a form" (`shared/spec/reference.md` §1.1, start-of-task form): offered when the
//! agent's stored card advertises the form extension with a valid `params.startForm`;
//! submitting starts a new task whose message is one `application/json` data part holding the
//! submission.

use leptos::prelude::*;
use serde_json::{Map, Value};

use super::prompt_form::reply_part_list;
use super::state::ChatState;
use crate::api::tasks::SendInput;
use crate::components::structured_form::StructuredForm;
use crate::ext::form::parse_form;

/// The "Start with a form" toggle and, once opened, the agent's start form; offered when the
/// browser's read of the agent's extensions has one (so never on the server).
#[component]
pub fn StartForm(state: ChatState) -> impl IntoView {
    let offered = move || {
        state
            .extensions
            .with(|e| e.as_ref().is_some_and(|e| e.start_form.is_some()))
    };
    view! {
        <Show when=offered>
            {start_form(state)}
        </Show>
    }
}

fn start_form(state: ChatState) -> AnyView {
    // The server sends only a definition that parses.
    let form = Memo::new(move |_| {
        state.extensions.with(|e| {
            e.as_ref()
                .and_then(|e| e.start_form.as_ref())
                .and_then(|definition| parse_form(definition).ok())
        })
    });
    let open = RwSignal::new(false);
    let key = crate::api::idempotency::DraftKey::new();
    let on_submit = Callback::new(move |submission: Map<String, Value>| {
        let input = state.conversation.with_untracked(|c| SendInput {
            agent_id: c.agent_id.clone(),
            conversation_id: (!c.conversation_id.is_empty()).then(|| c.conversation_id.clone()),
            task_id: None,
            // A skill binds a new task (reference §1.3), whichever control starts it.
            skill_id: state.skill.get_untracked(),
            parts: reply_part_list(&submission),
            ..SendInput::default()
        });
        state.send(input, key, move || {
            open.try_set(false);
        });
    });
    let sending = Signal::derive(move || state.sending.get());
    view! {
        {move || form.get().map(|form| view! {
            <div class="start-form">
                <button
                    type="button"
                    class="button"
                    data-testid="start-form-toggle"
                    aria-expanded=move || open.get().to_string()
                    aria-controls="start-form-panel"
                    on:click=move |_| open.update(|o| *o = !*o)
                >
                    "Start with a form"
                </button>
                <div id="start-form-panel" class="start-form-panel" hidden=move || !open.get()>
                    <Show when=move || open.get()>
                        <StructuredForm form=form.clone() id_prefix="start-form" disabled=sending heading_level=2 on_submit/>
                    </Show>
                </div>
            </div>
        })}
    }
    .into_any()
}
