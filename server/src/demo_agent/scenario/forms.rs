//! Structured form definitions (`reference.md` §1.1) and the replies to their submissions.

use app::a2a::TaskState;
use serde_json::{Map, Value, json};

use crate::demo_agent::extension::FORM_MEDIA_TYPE;
use crate::demo_agent::wire::{Update, data_part, text_part};

/// The "Deploy request" form the `form`, `showcase`, `plain` and `unknown` variants ask with.
pub(crate) fn deploy_form() -> Value {
    json!({
        "title": "Deploy request",
        "description": "Choose where to deploy and how many replicas to run.",
        "submitLabel": "Request deploy",
        "schema": {
            "type": "object",
            "properties": {
                "environment": {"type": "string", "title": "Environment", "enum": ["staging", "production"],
                                "enumNames": ["Staging", "Production"]},
                "replicas": {"type": "integer", "title": "Replicas", "minimum": 1, "maximum": 10, "default": 2},
                "note": {"type": "string", "title": "Note", "maxLength": 200},
                "dryRun": {"type": "boolean", "title": "Dry run"},
            },
            "required": ["environment", "replicas"],
        },
        "order": ["environment", "replicas", "note", "dryRun"],
    })
}

/// The card's `params.startForm`: "New deployment task".
pub(crate) fn start_form() -> Value {
    json!({
        "title": "New deployment task",
        "submitLabel": "Start task",
        "schema": {
            "type": "object",
            "properties": {
                "service": {"type": "string", "title": "Service", "maxLength": 60},
                "priority": {"type": "string", "title": "Priority", "enum": ["low", "high"], "default": "low"},
            },
            "required": ["service"],
        },
        "order": ["service", "priority"],
    })
}

/// A form with a nested object property, which the console must reject (`invalid` variant).
pub(crate) fn nested_form() -> Value {
    json!({
        "title": "Deploy request",
        "schema": {
            "type": "object",
            "properties": {
                "target": {"type": "object", "title": "Target",
                           "properties": {"environment": {"type": "string"}}},
            },
        },
    })
}

/// INPUT_REQUIRED "Where should I deploy?" with `form` as a form part.
pub(crate) fn prompt(form: Value) -> Update {
    Update::parts(
        TaskState::InputRequired,
        vec![
            text_part("Where should I deploy?"),
            data_part(form, FORM_MEDIA_TYPE),
        ],
    )
}

/// The answers "choose" offers as quick replies (`reference.md`, the quick-replies convention).
pub(crate) const ENVIRONMENTS: [&str; 2] = ["staging", "production"];

/// INPUT_REQUIRED "Which environment?" with a data part whose `options` are [`ENVIRONMENTS`]:
/// the console shows them as buttons that send their text.
pub(crate) fn choice_prompt() -> Update {
    Update::parts(
        TaskState::InputRequired,
        vec![
            text_part("Which environment?"),
            data_part(json!({"options": ENVIRONMENTS}), "application/json"),
        ],
    )
}

/// A quick reply (an environment's name, alone) → "Deploying to ENV.".
pub(crate) fn choice_reply(text: &str) -> Option<Update> {
    let environment = text.trim().to_lowercase();
    ENVIRONMENTS
        .contains(&environment.as_str())
        .then(|| Update::say(TaskState::Completed, format!("Deploying to {environment}.")))
}

/// A deploy form submission → "Deploying N replica(s) to ENV.".
pub(crate) fn deploy_reply(data: &Map<String, Value>) -> Option<Update> {
    if !data.contains_key("environment") && !data.contains_key("replicas") {
        return None;
    }
    let env = data
        .get("environment")
        .and_then(Value::as_str)
        .unwrap_or("staging");
    let replicas = data.get("replicas").map_or_else(|| "2".to_owned(), number_text);
    Some(Update::say(
        TaskState::Completed,
        format!("Deploying {replicas} replica(s) to {env}."),
    ))
}

/// A start form submission → "Started SERVICE at PRIORITY priority.".
pub(crate) fn start_reply(data: &Map<String, Value>) -> Option<Update> {
    let service = data.get("service").and_then(Value::as_str)?;
    let priority = data.get("priority").and_then(Value::as_str).unwrap_or("low");
    Some(Update::say(
        TaskState::Completed,
        format!("Started {service} at {priority} priority."),
    ))
}

/// A JSON value as a person would write it: `3` for `3.0`, strings without quotes.
fn number_text(value: &Value) -> String {
    match value {
        Value::Number(n) => match n.as_f64() {
            Some(f) if f.fract() == 0.0 && f.abs() < 1e15 => format!("{}", f as i64),
            _ => n.to_string(),
        },
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn said(update: Option<Update>) -> String {
        match update {
            Some(Update::Status { parts, .. }) => parts[0]["text"].as_str().unwrap().to_owned(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn replies_quote_the_submission() {
        let data = json!({"environment": "production", "replicas": 3.0, "dryRun": false});
        assert_eq!(
            said(deploy_reply(data.as_object().unwrap())),
            "Deploying 3 replica(s) to production."
        );
        let data = json!({"service": "billing-api", "priority": "high"});
        assert_eq!(
            said(start_reply(data.as_object().unwrap())),
            "Started billing-api at high priority."
        );
        assert!(deploy_reply(json!({"x": 1}).as_object().unwrap()).is_none());
    }

    #[test]
    fn choose_offers_quick_replies_and_a_reply_names_the_environment() {
        match choice_prompt() {
            Update::Status { state, parts, .. } => {
                assert_eq!(state, TaskState::InputRequired);
                assert_eq!(parts[1]["data"], json!({"options": ["staging", "production"]}));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(said(choice_reply(" Production\n")), "Deploying to production.");
        assert!(choice_reply("staging, two replicas").is_none());
    }
}
