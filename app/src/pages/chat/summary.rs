//! Each thing once (issue #32): a data part the chat renders in its own way (a form, quick
//! replies, an approval request, an A2UI surface) is left out of its bubble while that rendering
//! is on screen, and shown as one short line once it is history; a structured reply is shown as
//! what was sent. The part's JSON stays one "Raw" click away. Pure: [`shown_part`] decides.

use serde_json::Value;

use crate::a2a::{Part, PartContent, Role};
use crate::components::a2ui_surface::a2ui_part_version;
use crate::ext::approval::{parse_approval, validate_action};
use crate::ext::form::{is_form_media_type, parse_form, quick_replies};
use crate::ext::uri::{A2UI_LEGACY_MEDIA_TYPE, A2UI_MEDIA_TYPE, APPROVAL_MEDIA_TYPE};

/// What the chat renders by itself for this agent (from its stored card).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Renders {
    /// Forms (reference §1.1): an open prompt's form is a form.
    pub forms: bool,
    /// A2UI (§1.4): agent A2UI parts are surfaces.
    pub a2ui: bool,
    /// Approvals (§1.2): a request is a card.
    pub approvals: bool,
}

/// How a part appears in its bubble.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Shown {
    /// As content (text, Markdown, a file, a JSON tree for data the chat does not understand).
    Full,
    /// As one line; the JSON behind the part's Raw toggle.
    Summary(String),
    /// Not in the bubble: rendered elsewhere on the screen.
    Hidden,
}

/// Where a part sits: whose message, and whether that message is the task's open prompt.
#[derive(Clone, Copy, Debug)]
pub struct PartPlace {
    pub role: Role,
    pub open_prompt: bool,
    /// This part is the open prompt's active form (rendered as a form right after the bubble).
    pub active_form: bool,
}

/// At most this many fields are named in a reply's summary.
const SUMMARY_FIELDS: usize = 6;
/// A value longer than this is cut in a summary.
const SUMMARY_VALUE_CHARS: usize = 60;

/// How `part` appears in its bubble (see the module doc).
pub fn shown_part(part: &Part, place: PartPlace, renders: Renders) -> Shown {
    let PartContent::Data(data) = &part.content else {
        return Shown::Full;
    };
    let media_type = part.media_type.as_deref().unwrap_or_default();
    if place.role == Role::User {
        if is_a2ui_action(media_type, data) {
            return Shown::Summary(action_summary(data));
        }
        return data.as_object().map_or(Shown::Full, |fields| {
            Shown::Summary(fields_summary(fields.iter()))
        });
    }
    if renders.a2ui && a2ui_part_version(part).is_some() {
        return Shown::Hidden;
    }
    // An approval request the console can open is its card; one it cannot (malformed, or an
    // action it refuses) stays content, so nothing the agent sent disappears.
    let approval = renders.approvals
        && media_type.eq_ignore_ascii_case(APPROVAL_MEDIA_TYPE)
        && parse_approval(data).is_ok_and(|request| validate_action(&request.action).is_ok());
    if place.active_form || approval {
        return Shown::Hidden;
    }
    if renders.forms
        && is_form_media_type(media_type)
        && let Ok(form) = parse_form(data)
    {
        return Shown::Summary(format!("Form “{}”", form.title));
    }
    let replies = quick_replies(data);
    if !replies.is_empty() {
        return if place.open_prompt {
            Shown::Hidden
        } else {
            Shown::Summary(format!("Choices: {}", replies.join(" · ")))
        };
    }
    Shown::Full
}

/// `name: value · name: value`, at most [`SUMMARY_FIELDS`] of them.
fn fields_summary<'a>(fields: impl ExactSizeIterator<Item = (&'a String, &'a Value)>) -> String {
    let total = fields.len();
    if total == 0 {
        return "(no fields)".to_owned();
    }
    let mut shown: Vec<String> = fields
        .take(SUMMARY_FIELDS)
        .map(|(name, value)| format!("{name}: {}", value_summary(value)))
        .collect();
    if total > SUMMARY_FIELDS {
        shown.push(format!("and {} more", total - SUMMARY_FIELDS));
    }
    shown.join(" · ")
}

/// A scalar as written; anything else as compact JSON, cut at [`SUMMARY_VALUE_CHARS`].
fn value_summary(value: &Value) -> String {
    let text = match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    if text.chars().count() <= SUMMARY_VALUE_CHARS {
        return text;
    }
    let cut: String = text.chars().take(SUMMARY_VALUE_CHARS).collect();
    format!("{cut}…")
}

/// Whether a user's data part is an A2UI action message: an A2UI media type (v0.9
/// `application/a2ui+json`, v0.8 `application/json+a2ui`) around `{action}` or `{userAction}`.
fn is_a2ui_action(media_type: &str, data: &Value) -> bool {
    [A2UI_MEDIA_TYPE, A2UI_LEGACY_MEDIA_TYPE]
        .iter()
        .any(|t| media_type.eq_ignore_ascii_case(t))
        && (data.get("action").is_some_and(Value::is_object)
            || data.get("userAction").is_some_and(Value::is_object))
}

/// `Action “name”: field: value · …` for a user's A2UI action (its context, already masked).
fn action_summary(data: &Value) -> String {
    let action = data.get("action").or_else(|| data.get("userAction"));
    let name = action
        .and_then(|a| a.get("name"))
        .and_then(Value::as_str)
        .unwrap_or("action");
    match action.and_then(|a| a.get("context")).and_then(Value::as_object) {
        Some(context) if !context.is_empty() => {
            format!("Action “{name}”: {}", fields_summary(context.iter()))
        }
        _ => format!("Action “{name}”"),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::ext::uri::FORM_MEDIA_TYPE;

    const AGENT: PartPlace = PartPlace {
        role: Role::Agent,
        open_prompt: false,
        active_form: false,
    };
    const ALL: Renders = Renders {
        forms: true,
        a2ui: true,
        approvals: true,
    };

    fn data(value: Value, media_type: Option<&str>) -> Part {
        Part::data(value, media_type.map(str::to_owned))
    }

    #[test]
    fn quick_replies_are_buttons_while_open_and_one_line_after() {
        let part = data(json!({"options": ["staging", "production"]}), None);
        let open = PartPlace {
            open_prompt: true,
            ..AGENT
        };
        assert_eq!(shown_part(&part, open, Renders::default()), Shown::Hidden);
        assert_eq!(
            shown_part(&part, AGENT, Renders::default()),
            Shown::Summary("Choices: staging · production".into())
        );
    }

    #[test]
    fn an_approval_request_is_only_its_card_when_approvals_render() {
        let request = json!({"title": "Delete the cluster", "risk": "high",
            "action": {"kind": "send_message", "text": "Approved."}});
        let part = data(request, Some(APPROVAL_MEDIA_TYPE));
        assert_eq!(shown_part(&part, AGENT, ALL), Shown::Hidden);
        assert_eq!(shown_part(&part, AGENT, Renders::default()), Shown::Full);
        // One the console cannot open as a request stays content (review of issue #32).
        let malformed = data(
            json!({"title": "  ", "action": {"kind": "run_shell"}}),
            Some(APPROVAL_MEDIA_TYPE),
        );
        assert_eq!(shown_part(&malformed, AGENT, ALL), Shown::Full);
    }

    #[test]
    fn a_form_is_the_form_while_open_then_its_title() {
        let definition = json!({"title": "Deploy request", "schema": {"type": "object",
            "properties": {"environment": {"type": "string"}}}});
        let part = data(definition, Some(FORM_MEDIA_TYPE));
        let active = PartPlace {
            open_prompt: true,
            active_form: true,
            ..AGENT
        };
        assert_eq!(shown_part(&part, active, ALL), Shown::Hidden);
        assert_eq!(
            shown_part(&part, AGENT, ALL),
            Shown::Summary("Form “Deploy request”".into())
        );
        // Not advertised: ordinary data, as the agent sent it (reference §1.1).
        assert_eq!(shown_part(&part, AGENT, Renders::default()), Shown::Full);
    }

    #[test]
    fn a_structured_reply_is_what_was_sent() {
        let user = PartPlace {
            role: Role::User,
            ..AGENT
        };
        let reply = data(
            json!({"environment": "staging", "replicas": 3, "notes": "x".repeat(80)}),
            Some("application/json"),
        );
        let Shown::Summary(line) = shown_part(&reply, user, ALL) else {
            panic!("a summary");
        };
        assert!(line.starts_with("environment: staging · "), "{line}");
        assert!(
            line.contains("replicas: 3") && line.contains(&format!("{}…", "x".repeat(60))),
            "{line}"
        );
        let many: serde_json::Map<String, Value> = (0..9).map(|i| (format!("f{i}"), json!(i))).collect();
        let Shown::Summary(line) = shown_part(&data(Value::Object(many), None), user, ALL) else {
            panic!("a summary");
        };
        assert!(line.ends_with("f5: 5 · and 3 more"), "{line}");
        let action = json!({"version": "v0.9", "action": {"name": "signIn", "surfaceId": "s",
            "context": {"user": "ada"}}});
        assert_eq!(
            shown_part(&data(action, Some("application/a2ui+json")), user, ALL),
            Shown::Summary("Action “signIn”: user: ada".into())
        );
        // Text stays text.
        assert_eq!(shown_part(&Part::text("hello"), user, ALL), Shown::Full);
    }
}
