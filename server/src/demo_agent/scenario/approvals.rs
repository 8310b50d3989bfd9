//! Approval request payloads (`reference.md` §1.2) and the reply to an approved action.

use app::a2a::TaskState;
use serde_json::{Value, json};

use super::forms;
use crate::demo_agent::extension::APPROVAL_MEDIA_TYPE;
use crate::demo_agent::wire::{Incoming, Update, data_part, text_part};

/// A `send_message` approval: "Delete the staging cluster", high risk, quoting `user_text`.
pub(crate) fn send_message_request(user_text: &str) -> Value {
    json!({
        "title": "Delete the staging cluster",
        "summary": format!("You asked: \"{user_text}\". This deletes every workload in the staging cluster."),
        "risk": "high",
        "expiresInSeconds": 3600,
        "action": {
            "kind": "send_message",
            "text": "Approved: delete the staging cluster.",
            "data": {"cluster": "staging", "operation": "delete"},
        },
    })
}

/// A `send_data` approval whose action is a filled-in deploy form.
pub(crate) fn send_data_request(user_text: &str) -> Value {
    json!({
        "title": "Deploy billing-api to production",
        "summary": format!("You asked: \"{user_text}\". Review the deploy request before it runs."),
        "risk": "medium",
        "action": {
            "kind": "send_data",
            "form": forms::deploy_form(),
            "values": {"environment": "production", "replicas": 3, "dryRun": false},
        },
    })
}

/// An approval request the console must ignore: blank title, unknown risk and action kind.
pub(crate) fn malformed_request() -> Value {
    json!({
        "title": "   ",
        "risk": "catastrophic",
        "expiresInSeconds": "forever",
        "action": {"kind": "run_shell", "command": "rm -rf /"},
    })
}

/// INPUT_REQUIRED with a short prompt and `request` as an approval part.
pub(crate) fn prompt(request: Value) -> Update {
    let title = request["title"].as_str().unwrap_or("an action").trim().to_owned();
    Update::parts(
        TaskState::InputRequired,
        vec![
            text_part(format!("Approval needed: {title}.")),
            data_part(request, APPROVAL_MEDIA_TYPE),
        ],
    )
}

/// The reply to a message carrying `metadata.approval`: completes and echoes the digest.
pub(crate) fn reply(incoming: &Incoming) -> Option<Update> {
    let approval = incoming.metadata.get("approval").filter(|a| a.is_object())?;
    let digest = approval["revisionDigest"].as_str().unwrap_or("(none)");
    let revision = approval["revision"].as_i64().unwrap_or(1);
    let what = if incoming.text.trim().is_empty() {
        "the approved data".to_owned()
    } else {
        format!("\"{}\"", incoming.text.trim())
    };
    Some(
        Update::say(
            TaskState::Completed,
            format!("Approved action carried out: {what} (revision {revision}, revisionDigest {digest})."),
        )
        .with_message_metadata(json!({"approval": approval, "revisionDigest": digest})),
    )
}
