//! "Ask for approval" on an unfinished task (`shared/spec/security-and-durability.md` §4.1,
//! `POST /api/decisions`): a person proposes a message for the agent and asks a colleague to
//! approve it first. Nothing goes to the agent until someone else approves (the one who asks
//! cannot decide their own request). The choices follow the spec's UI: expiry in 1 h, 8 h, 24 h
//! or 7 days; an optional assignee among the task's reviewers.

use leptos::prelude::*;

use crate::api::approvals::{ApprovalAsk, OpenApproval, list_reviewers};
use crate::api::idempotency::DraftKey;

const EXPIRIES: [(u32, &str); 4] = [(1, "1 hour"), (8, "8 hours"), (24, "24 hours"), (168, "7 days")];

/// The button, and the form it opens.
#[component]
pub fn AskApproval(task_id: String) -> impl IntoView {
    let open = RwSignal::new(false);
    let task_id = StoredValue::new(task_id);
    view! {
        <button type="button" class="button" aria-expanded=move || open.get().to_string()
            on:click=move |_| open.update(|o| *o = !*o)>
            "Ask for approval…"
        </button>
        <Show when=move || open.get()>
            <AskForm task_id=task_id.get_value()/>
        </Show>
    }
}

#[component]
fn AskForm(task_id: String) -> impl IntoView {
    let ask = ServerAction::<OpenApproval>::new();
    let key = DraftKey::new();
    let reviewers = {
        let task_id = task_id.clone();
        crate::api::browser_value(move || list_reviewers(task_id.clone()))
    };
    let title = RwSignal::new(String::new());
    let text = RwSignal::new(String::new());
    let summary = RwSignal::new(String::new());
    let risk = RwSignal::new("medium".to_owned());
    let hours = RwSignal::new(24_u32);
    let assignee = RwSignal::new(String::new());
    Effect::new(move |_| {
        if let Some(result) = ask.value().get() {
            untrack(|| key.settle(&result));
        }
    });
    let task_id = StoredValue::new(task_id);
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        ask.dispatch(OpenApproval {
            input: ApprovalAsk {
                task_id: task_id.get_value(),
                title: title.get_untracked(),
                summary: summary.get_untracked(),
                risk: risk.get_untracked(),
                text: text.get_untracked(),
                expires_in_hours: hours.get_untracked(),
                assigned_membership_id: Some(assignee.get_untracked()).filter(|a| !a.is_empty()),
                key: key.get(),
            },
        });
    };
    let outcome = move || {
        ask.value().get().map(|result| match result {
            Ok(id) => view! {
                <p role="status" data-testid="approval-asked">
                    "Approval requested. " <a href=format!("/approvals/{id}")>"Open the request"</a>
                </p>
            }
            .into_any(),
            Err(error) => view! { <p class="error" role="alert">{error.to_string()}</p> }.into_any(),
        })
    };
    view! {
        <form class="access-form ask-approval" on:submit=submit aria-label="Ask for approval">
            <label>"Title"
                <input type="text" required maxlength="300" prop:value=title on:input=move |ev| title.set(event_target_value(&ev))/>
            </label>
            <label>"Message to send once approved"
                <textarea required prop:value=text on:input=move |ev| text.set(event_target_value(&ev))></textarea>
            </label>
            <label>"Why (optional)"
                <input type="text" maxlength="4000" prop:value=summary on:input=move |ev| summary.set(event_target_value(&ev))/>
            </label>
            <label>"Risk"
                <select on:change=move |ev| risk.set(event_target_value(&ev))>
                    <option value="low">"Low"</option>
                    <option value="medium" selected>"Medium"</option>
                    <option value="high">"High"</option>
                </select>
            </label>
            <label>"Expires in"
                <select on:change=move |ev| hours.set(event_target_value(&ev).parse().unwrap_or(24))>
                    {EXPIRIES.into_iter().map(|(h, label)| view! {
                        <option value=h.to_string() selected=h == 24>{label}</option>
                    }).collect_view()}
                </select>
            </label>
            <label>"Assign to"
                <select on:change=move |ev| assignee.set(event_target_value(&ev))>
                    <option value="">"Anyone who can decide"</option>
                    {move || reviewers.get().unwrap_or_default().into_iter().filter(|r| !r.is_self).map(|r| view! {
                        <option value=r.membership_id.clone()>{r.display_name.clone()}</option>
                    }).collect_view()}
                </select>
            </label>
            <button type="submit" class="button primary" disabled=move || ask.pending().get()>"Ask for approval"</button>
        </form>
        {outcome}
    }
}
