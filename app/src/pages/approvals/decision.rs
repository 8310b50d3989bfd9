//! The review page's decision controls (reference §1.2): the rationale, Approve with its
//! confirmation, Edit… then "Approve edited version" with the same confirmation, Request
//! changes, Reject and Delegate; a refusal is shown right under the control that caused it.

use leptos::prelude::*;
use serde_json::{Map, Value, json};

use crate::api::approvals::{ActionKind, ApprovalRevision, DecideApproval, DecisionInput};
use crate::components::keys::on_escape;
use crate::components::structured_form::StructuredForm;
use crate::ext::approval::{MAX_RATIONALE_CHARS, Outcome, check_rationale};
use crate::ext::form::parse_form;

/// The idempotency key of a decision made on this page: a repeated click on the same outcome
/// for the same revision is a replay, never a second decision.
pub fn decision_key(request_id: &str, revision: i32, outcome: &str) -> String {
    format!("ui:{request_id}:{revision}:{outcome}")
}

/// The reviewer's unsent decision; it lives with the page, not with one rendering of it.
#[derive(Clone, Copy)]
pub struct Draft {
    rationale: RwSignal<String>,
    confirming: RwSignal<bool>,
    editing: RwSignal<bool>,
    /// The membership chosen under "Delegate to".
    delegate_to: RwSignal<String>,
}

impl Default for Draft {
    fn default() -> Draft {
        Draft {
            rationale: RwSignal::new(String::new()),
            confirming: RwSignal::new(false),
            editing: RwSignal::new(false),
            delegate_to: RwSignal::new(String::new()),
        }
    }
}

impl Draft {
    /// Whether the reviewer has started writing a decision.
    pub fn in_progress(self) -> bool {
        self.confirming.get_untracked()
            || self.editing.get_untracked()
            || !self.rationale.with_untracked(|r| r.trim().is_empty())
            || !self.delegate_to.with_untracked(String::is_empty)
    }

    /// Clears the draft after a decision was recorded.
    fn clear(self) {
        self.rationale.set(String::new());
        self.confirming.set(false);
        self.editing.set(false);
        self.delegate_to.set(String::new());
    }
}

/// Rationale, the four outcomes, and the edit form.
#[component]
pub fn DecisionForm(
    request_id: String,
    task_id: String,
    revision: ApprovalRevision,
    refresh: Callback<()>,
    draft: Draft,
) -> impl IntoView {
    let Draft {
        rationale,
        confirming,
        editing,
        delegate_to,
    } = draft;
    // The last refusal (the rationale check below, or the server's answer), shown beside the
    // control that caused it.
    let error = RwSignal::new(None::<(Origin, String)>);
    // Where the last decision was sent from.
    let origin = StoredValue::new(Origin::Outcomes);
    // An edited version waiting for "Confirm" (an edit approves, so it asks like Approve does).
    let edit_ready = RwSignal::new(None::<Value>);
    let decide = ServerAction::<DecideApproval>::new();
    let request_id = StoredValue::new(request_id);
    Effect::new(move |_| match decide.value().get() {
        Some(Ok(_)) => {
            error.set(None);
            edit_ready.set(None);
            draft.clear();
            refresh.run(());
        }
        Some(Err(e)) => error.set(Some((origin.get_value(), e.to_string()))),
        None => {}
    });
    let pending = decide.pending();
    // The rationale rule is checked here first (same rule and message as the server), so a
    // missing rationale is shown at once instead of after a refused request.
    let rationale_ok = move |outcome: &str, from: Origin| {
        let checked =
            Outcome::parse(outcome).map(|o| check_rationale(o, Some(rationale.get_untracked().as_str())));
        match checked {
            Some(Err(e)) => {
                error.set(Some((from, e.to_string())));
                false
            }
            _ => true,
        }
    };
    let send_to = move |outcome: &str, edit: Option<Value>, delegate: Option<String>| {
        let from = match (&edit, &delegate) {
            (Some(_), _) => Origin::Edit,
            (_, Some(_)) => Origin::Delegate,
            _ => Origin::Outcomes,
        };
        if !rationale_ok(outcome, from) {
            return;
        }
        origin.set_value(from);
        error.set(None);
        decide.dispatch(DecideApproval {
            id: request_id.get_value(),
            key: request_id.with_value(|id| decision_key(id, revision.revision, outcome)),
            input: DecisionInput {
                outcome: outcome.to_owned(),
                expected_revision: revision.revision,
                rationale: Some(rationale.get_untracked()).filter(|r| !r.trim().is_empty()),
                edit,
                delegate_membership_id: delegate,
            },
        });
    };
    let send = move |outcome: &str, edit: Option<Value>| send_to(outcome, edit, None);
    let on_delegate = Callback::new(move |target: String| send_to("delegate", None, Some(target)));
    let action = revision.action.clone();
    view! {
        <section class="card decision" aria-labelledby="decision-heading">
            <h2 id="decision-heading">"Your decision"</h2>
            <label for="rationale">"Rationale"</label>
            <p class="muted" id="rationale-help">"Required to reject, edit, request changes or delegate."</p>
            <textarea
                id="rationale"
                aria-describedby="rationale-help"
                maxlength=MAX_RATIONALE_CHARS.to_string()
                prop:value=rationale
                on:input=move |ev| rationale.set(event_target_value(&ev))
            ></textarea>
            <div class="button-row" on:keydown=on_escape(move || confirming.set(false))>
                {move || if confirming.get() {
                    view! {
                        <button type="button" class="button primary" disabled=pending on:click=move |_| send("approve", None)>
                            "Confirm: send it to the agent"
                        </button>
                        <button type="button" class="button" on:click=move |_| confirming.set(false)>"Back"</button>
                    }.into_any()
                } else {
                    view! {
                        <button type="button" class="button primary" disabled=pending on:click=move |_| confirming.set(true)>"Approve"</button>
                    }.into_any()
                }}
                <button type="button" class="button" disabled=pending on:click=move |_| editing.update(|e| *e = !*e)>"Edit…"</button>
                <button type="button" class="button" disabled=pending on:click=move |_| send("request_changes", None)>"Request changes"</button>
                <button type="button" class="button danger" disabled=pending on:click=move |_| send("reject", None)>"Reject"</button>
            </div>
            {refusal(error, Origin::Outcomes)}
            <super::delegate::DelegateControl task_id pending chosen=delegate_to on_delegate/>
            {refusal(error, Origin::Delegate)}
            {move || editing.get().then(|| {
                let action = action.clone();
                // Checked first, then confirmed: nothing is sent by the edit form's own button.
                let on_edit = Callback::new(move |edit| {
                    if rationale_ok("edit", Origin::Edit) {
                        error.set(None);
                        edit_ready.set(Some(edit));
                    }
                });
                view! { <EditProposal action on_edit/> }
            })}
            {move || edit_ready.get().map(|edit| {
                let edit = StoredValue::new(edit);
                view! {
                    <div class="button-row" role="group" aria-label="Confirm the edited version" on:keydown=on_escape(move || edit_ready.set(None))>
                        <button type="button" class="button primary" disabled=pending on:click=move |_| send("edit", Some(edit.get_value()))>
                            "Confirm: send the edited version to the agent"
                        </button>
                        <button type="button" class="button" on:click=move |_| edit_ready.set(None)>"Back"</button>
                    </div>
                }
            })}
            {refusal(error, Origin::Edit)}
        </section>
    }
}

/// Which control a decision was sent from: its refusal is shown right under it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Origin {
    /// Approve, Request changes, Reject.
    Outcomes,
    Delegate,
    Edit,
}

/// The last refusal, when it came from `place`.
fn refusal(error: RwSignal<Option<(Origin, String)>>, place: Origin) -> impl IntoView {
    move || {
        error.get().filter(|(from, _)| *from == place).map(|(_, text)| {
            view! { <p role="alert" class="error" data-testid="decision-error">{text}</p> }
        })
    }
}

/// Edit then approve: the text of a `send_message`, or the values of a `send_data` form.
#[component]
fn EditProposal(action: Value, on_edit: Callback<Value>) -> impl IntoView {
    if action
        .get("kind")
        .and_then(Value::as_str)
        .and_then(ActionKind::parse)
        == Some(ActionKind::SendData)
    {
        let form_json = action.get("form").cloned().unwrap_or(Value::Null);
        let Ok(form) = parse_form(&form_json) else {
            return view! { <p class="error">"The proposal's form cannot be edited here."</p> }.into_any();
        };
        let initial: Map<String, Value> = action
            .get("values")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        return view! {
            <StructuredForm
                form
                initial
                submit_label="Approve edited version".to_owned()
                on_submit=Callback::new(move |values: Map<String, Value>| {
                    on_edit.run(json!({"kind": ActionKind::SendData, "form": form_json.clone(), "values": values}));
                })
            />
        }
        .into_any();
    }
    let text = RwSignal::new(
        action
            .get("text")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
    );
    let data = action.get("data").cloned();
    view! {
        <form class="edit-proposal" on:submit=move |ev| {
            ev.prevent_default();
            let mut edit = json!({"kind": ActionKind::SendMessage, "text": text.get_untracked()});
            if let Some(data) = data.clone() {
                edit["data"] = data;
            }
            on_edit.run(edit);
        }>
            <label for="edit-text">"Reply text"</label>
            <textarea id="edit-text" prop:value=text on:input=move |ev| text.set(event_target_value(&ev))></textarea>
            <button type="submit" class="button primary">"Approve edited version"</button>
        </form>
    }
    .into_any()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_click_on_the_same_revision_is_one_key() {
        assert_eq!(decision_key("r", 2, "approve"), decision_key("r", 2, "approve"));
        assert_ne!(decision_key("r", 2, "approve"), decision_key("r", 3, "approve"));
        assert_ne!(decision_key("r", 2, "approve"), decision_key("r", 2, "reject"));
    }
}
