//! The original fixture's variants (`product.md` §6: showcase, form, approver, a2ui, plain,
//! invalid, rogue, unknown) and `legacy`, which answers like a simple 0.3 agent.

use std::time::Duration;

use app::a2a::TaskState;
use serde_json::{Value, json};

use super::{a2ui, approvals, forms};
use crate::demo_agent::extension::{A2UI_MEDIA_TYPE, APPROVAL_MEDIA_TYPE, FORM_MEDIA_TYPE};
use crate::demo_agent::runner::Step;
use crate::demo_agent::variant::Variant;
use crate::demo_agent::wire::{Incoming, Update, data_part, text_part};

/// The script of one of the fixture variants.
pub(crate) fn plan(variant: Variant, incoming: &Incoming) -> Vec<Step> {
    if let Some(update) = reply(incoming) {
        return vec![Step::Do(update)];
    }
    let lower = incoming.lower_text();
    if matches!(variant, Variant::Showcase | Variant::Form) {
        if let Some(update) = forms::choice_reply(&incoming.text) {
            return vec![Step::Do(update)];
        }
        if lower.contains("choose") {
            return vec![Step::Do(forms::choice_prompt())];
        }
    }
    let update = match variant {
        Variant::Showcase if lower.contains("surface") => a2ui::prompt(),
        Variant::Showcase if lower.contains("approve") => {
            approvals::prompt(approvals::send_message_request(&incoming.text))
        }
        Variant::Approver if lower.contains("invalid") => approvals::prompt(approvals::malformed_request()),
        Variant::Approver if lower.contains("structured") => {
            approvals::prompt(approvals::send_data_request(&incoming.text))
        }
        Variant::Approver | Variant::Rogue => {
            approvals::prompt(approvals::send_message_request(&incoming.text))
        }
        Variant::A2ui if lower.contains("v0.8") => a2ui::prompt_v08(),
        Variant::A2ui => a2ui::prompt(),
        Variant::Invalid => forms::prompt(forms::nested_form()),
        Variant::Unknown => everything(&incoming.text),
        Variant::Legacy if !lower.contains("form") => return echo(&incoming.text),
        _ => forms::prompt(forms::deploy_form()),
    };
    vec![Step::Do(update)]
}

/// Answers to a reply on an open task: an A2UI action, an approved action, a form submission.
fn reply(incoming: &Incoming) -> Option<Update> {
    if let Some(action) = incoming.a2ui_actions.first() {
        return Some(a2ui::reply(action));
    }
    if let Some(update) = approvals::reply(incoming) {
        return Some(update);
    }
    let data = incoming.data_object()?;
    if let Some(update) = forms::deploy_reply(data).or_else(|| forms::start_reply(data)) {
        return Some(update);
    }
    incoming.text.trim().is_empty().then(|| {
        Update::say(
            TaskState::Completed,
            format!("Received data: {}", Value::Object(data.clone())),
        )
    })
}

/// The `unknown` variant's message: form, A2UI and approval parts at once.
fn everything(user_text: &str) -> Update {
    Update::parts(
        TaskState::InputRequired,
        vec![
            text_part(
                "Here is a form, an interface and an approval request; reply in plain text if none shows.",
            ),
            data_part(forms::deploy_form(), FORM_MEDIA_TYPE),
            data_part(a2ui::surface(), A2UI_MEDIA_TYPE),
            data_part(approvals::send_message_request(user_text), APPROVAL_MEDIA_TYPE),
        ],
    )
}

/// `legacy`: a short working phase, an echo artifact, then COMPLETED.
fn echo(user_text: &str) -> Vec<Step> {
    vec![
        Step::Do(Update::say(TaskState::Working, "Working on it (A2A 0.3).")),
        Step::Sleep(Duration::from_millis(100)),
        Step::Do(Update::artifact(json!({
            "artifactId": "echo",
            "name": "echo.txt",
            "parts": [text_part(user_text)],
        }))),
        Step::Do(Update::say(
            TaskState::Completed,
            format!("You said: {user_text}"),
        )),
    ]
}
