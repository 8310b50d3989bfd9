//! Structured forms and quick replies in an agent's prompt (`shared/spec/reference.md` §1.1):
//! the pure rules that decide which prompt shows a form or answer buttons and what each bubble
//! keeps, and [`PromptForm`], the form that answers the prompt on the same task.

use leptos::prelude::*;
use serde_json::{Map, Value};

use super::state::ChatState;
use super::summary::{PartPlace, Renders, Shown, shown_part};
use crate::a2a::{Part, PartContent, Role, TaskState};
use crate::api::tasks::SendInput;
use crate::components::a2ui_surface::mask_user_secrets;
use crate::components::structured_form::StructuredForm;
use crate::ext::form::{FormDefinition, is_form_media_type, parse_form, quick_replies, reply_parts};
use crate::projection::{MessageView, TaskView};

/// The prompt that may carry a form or quick replies: the task's newest agent status message
/// (`fromStatus`), while the task is `INPUT_REQUIRED` and no user message came after it (an
/// earlier or answered prompt is history).
pub fn open_prompt(task: &TaskView) -> Option<&MessageView> {
    if task.state != TaskState::InputRequired {
        return None;
    }
    let prompt = task
        .messages
        .iter()
        .filter(|m| m.role == Role::Agent && m.from_status)
        .max_by_key(|m| m.sequence)?;
    let answered = task
        .messages
        .iter()
        .any(|m| m.role == Role::User && m.sequence > prompt.sequence);
    (!answered).then_some(prompt)
}

/// The form a part carries: a data part of the form media type (any case) whose definition parses.
fn form_of(part: &Part) -> Option<FormDefinition> {
    let PartContent::Data(data) = &part.content else {
        return None;
    };
    if !part.media_type.as_deref().is_some_and(is_form_media_type) {
        return None;
    }
    parse_form(data).ok()
}

/// The form the chat renders for `task` (§1.1 "When the console renders it"): the agent
/// advertises the form extension in its stored card (`forms_advertised`), the message is the
/// [`open_prompt`], and the first of its parts with the form media type and a valid definition
/// wins. Returns the message id, the part's index and the form.
pub fn active_form(task: &TaskView, forms_advertised: bool) -> Option<(String, usize, FormDefinition)> {
    if !forms_advertised {
        return None;
    }
    let prompt = open_prompt(task)?;
    prompt
        .parts
        .iter()
        .enumerate()
        .find_map(|(index, part)| Some((prompt.message_id.clone(), index, form_of(part)?)))
}

/// The answers the open prompt offers (§1.1, quick replies): the `options` or `choices` strings
/// of its data parts, without blanks or repeats.
pub fn prompt_quick_replies(task: &TaskView) -> Vec<String> {
    let Some(prompt) = open_prompt(task) else {
        return Vec::new();
    };
    let mut replies: Vec<String> = Vec::new();
    for part in &prompt.parts {
        if let PartContent::Data(data) = &part.content {
            for reply in quick_replies(data) {
                if !reply.trim().is_empty() && !replies.contains(&reply) {
                    replies.push(reply);
                }
            }
        }
    }
    replies
}

/// The parts of a form answer: one `application/json` data part holding the submission.
pub fn reply_part_list(submission: &Map<String, Value>) -> Vec<Value> {
    match reply_parts(submission) {
        Value::Array(parts) => parts,
        other => vec![other],
    }
}

/// One message of the timeline as shown: its bubble's parts and the form rendered after it.
#[derive(Clone, Debug, PartialEq)]
pub struct TimelineMessage {
    /// The message with the parts its bubble shows.
    pub message: MessageView,
    /// For each part shown, the one line it is shown as, if it is (see [`shown_part`]).
    pub summaries: Vec<Option<String>>,
    /// How many parts were left out (a rendered form, quick replies, an approval request, A2UI
    /// parts drawn as surfaces).
    pub hidden: usize,
    /// The form rendered right after the bubble.
    pub form: Option<FormDefinition>,
}

impl TimelineMessage {
    /// Whether the bubble has anything to show (a message whose parts all render elsewhere has none).
    pub fn shows_bubble(&self) -> bool {
        self.hidden == 0 || !self.message.parts.is_empty()
    }
}

/// The task's messages in sequence order, each with the parts its bubble shows and how
/// ([`shown_part`]): what renders elsewhere (the active form, the open prompt's quick replies,
/// an approval request, agent A2UI parts) is left out; what the chat understands is one line.
pub fn timeline_messages(task: &TaskView, renders: Renders) -> Vec<TimelineMessage> {
    let active = active_form(task, renders.forms);
    let open = open_prompt(task).map(|m| m.message_id.clone());
    let mut messages = task.messages.clone();
    messages.sort_by_key(|m| m.sequence);
    mask_user_secrets(&mut messages, task);
    messages
        .into_iter()
        .map(|mut message| {
            let form = active
                .as_ref()
                .filter(|(id, _, _)| *id == message.message_id)
                .map(|(_, index, form)| (*index, form.clone()));
            let open_prompt = open.as_deref() == Some(message.message_id.as_str());
            let before = message.parts.len();
            let mut summaries = Vec::with_capacity(before);
            let mut index = 0;
            message.parts.retain(|part| {
                let place = PartPlace {
                    role: message.role,
                    open_prompt,
                    active_form: form.as_ref().is_some_and(|(i, _)| *i == index),
                };
                index += 1;
                match shown_part(part, place, renders) {
                    Shown::Hidden => false,
                    Shown::Full => {
                        summaries.push(None);
                        true
                    }
                    Shown::Summary(line) => {
                        summaries.push(Some(line));
                        true
                    }
                }
            });
            TimelineMessage {
                hidden: before - message.parts.len(),
                summaries,
                message,
                form: form.map(|(_, form)| form),
            }
        })
        .collect()
}

/// The form of an agent's prompt; submitting answers the prompt on the same task with the
/// submission as one `application/json` data part (no text).
#[component]
pub fn PromptForm(
    state: ChatState,
    #[prop(into)] task: Signal<TaskView>,
    form: FormDefinition,
) -> impl IntoView {
    let id_prefix = task.with_untracked(|t| {
        format!(
            "prompt-{}",
            crate::components::a2ui_surface::dom_token(&t.local_id)
        )
    });
    let key = crate::api::idempotency::DraftKey::new();
    let on_submit = Callback::new(move |submission: Map<String, Value>| {
        let input = task.with_untracked(|t| SendInput::on_task(t, reply_part_list(&submission)));
        state.send(input, key, || {});
    });
    let sending = Signal::derive(move || state.sending.get());
    view! {
        <div class="prompt-form" data-testid="prompt-form">
            <StructuredForm form id_prefix disabled=sending heading_level=2 on_submit/>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::ext::uri::FORM_MEDIA_TYPE;

    const A2UI: Renders = Renders {
        forms: false,
        a2ui: true,
        approvals: false,
    };
    const FORMS: Renders = Renders {
        forms: true,
        a2ui: false,
        approvals: false,
    };

    fn definition(title: &str) -> Value {
        json!({
            "title": title,
            "schema": {"type": "object", "properties": {"environment": {"type": "string", "enum": ["staging", "production"]}}}
        })
    }

    fn form_part(data: Value, media_type: &str) -> Part {
        Part::data(data, Some(media_type.into()))
    }

    fn prompt(id: &str, sequence: i64, parts: Vec<Part>) -> MessageView {
        MessageView {
            message_id: id.into(),
            role: Role::Agent,
            parts,
            from_status: true,
            state: Some(TaskState::InputRequired),
            timestamp: None,
            metadata: None,
            extensions: Vec::new(),
            reference_task_ids: Vec::new(),
            sequence,
        }
    }

    /// Issue #26 "Secrets in forms": the user's bubble for an A2UI action shows the value typed
    /// into an obscured field masked, like the Wire panel; other values stay as sent.
    #[test]
    fn an_obscured_field_s_value_is_masked_in_the_user_s_bubble() {
        let surface = crate::ext::a2ui::sign_in_messages();
        let mut agent = prompt(
            "m1",
            1,
            vec![Part::data(surface, Some("application/a2ui+json".into()))],
        );
        agent.state = Some(TaskState::Working);
        let action = json!({"version": "v0.9", "action": {"name": "signIn", "surfaceId": "s",
            "sourceComponentId": "go", "context": {"user": "ada", "password": "hunter2"}}});
        let mut user = prompt(
            "m2",
            2,
            vec![Part::data(action, Some("application/a2ui+json".into()))],
        );
        user.role = Role::User;
        user.state = None;
        let task = waiting(vec![agent, user]);
        let shown = timeline_messages(&task, A2UI);
        let bubble = serde_json::to_string(&shown[1].message.parts).unwrap();
        assert!(!bubble.contains("hunter2"), "{bubble}");
        assert!(
            bubble.contains(crate::ext::a2ui::MASK) && bubble.contains("ada"),
            "{bubble}"
        );
        // The task itself, what was sent, is untouched.
        assert!(
            serde_json::to_string(&task.messages[1].parts)
                .unwrap()
                .contains("hunter2")
        );
    }

    fn waiting(messages: Vec<MessageView>) -> TaskView {
        TaskView {
            local_id: "t".into(),
            state: TaskState::InputRequired,
            messages,
            ..TaskView::default()
        }
    }

    fn deploy_prompt() -> TaskView {
        waiting(vec![prompt(
            "p",
            2,
            vec![
                Part::text("Where should I deploy?"),
                form_part(definition("Deploy request"), FORM_MEDIA_TYPE),
            ],
        )])
    }

    fn title(found: Option<(String, usize, FormDefinition)>) -> Option<(String, usize, String)> {
        found.map(|(id, index, form)| (id, index, form.title))
    }

    #[test]
    fn the_form_of_the_open_prompt_renders() {
        assert_eq!(
            title(active_form(&deploy_prompt(), true)),
            Some(("p".into(), 1, "Deploy request".into()))
        );
    }

    #[test]
    fn not_when_the_card_does_not_advertise_forms() {
        assert_eq!(active_form(&deploy_prompt(), false), None);
    }

    #[test]
    fn the_media_type_must_match_in_any_case() {
        let task = waiting(vec![prompt(
            "p",
            1,
            vec![form_part(definition("A"), "application/json")],
        )]);
        assert_eq!(active_form(&task, true), None);
        let task = waiting(vec![prompt(
            "p",
            1,
            vec![form_part(
                definition("A"),
                "Application/VND.Agent-Taskbay.Form+JSON",
            )],
        )]);
        assert!(active_form(&task, true).is_some());
        let mut untyped = deploy_prompt();
        untyped.messages[0].parts[1].media_type = None;
        assert_eq!(active_form(&untyped, true), None);
    }

    #[test]
    fn an_invalid_definition_is_no_form() {
        let nested = json!({"schema": {"type": "object", "properties": {"target": {"type": "object"}}}});
        let task = waiting(vec![prompt("p", 1, vec![form_part(nested, FORM_MEDIA_TYPE)])]);
        assert_eq!(active_form(&task, true), None);
    }

    #[test]
    fn only_a_status_prompt_counts() {
        let mut task = deploy_prompt();
        task.messages[0].from_status = false;
        assert_eq!(active_form(&task, true), None);
    }

    #[test]
    fn only_while_the_task_waits_for_input() {
        let mut task = deploy_prompt();
        task.state = TaskState::Working;
        assert_eq!(active_form(&task, true), None);
        task.state = TaskState::AuthRequired;
        assert_eq!(active_form(&task, true), None);
    }

    #[test]
    fn an_earlier_or_answered_prompt_is_history() {
        let mut task = deploy_prompt();
        task.messages
            .push(prompt("later", 5, vec![Part::text("And how many replicas?")]));
        assert_eq!(active_form(&task, true), None);
        let mut answered = deploy_prompt();
        let mut reply = prompt("r", 3, vec![Part::data(json!({"environment": "staging"}), None)]);
        reply.role = Role::User;
        reply.from_status = false;
        answered.messages.push(reply);
        assert_eq!(active_form(&answered, true), None);
    }

    #[test]
    fn the_first_valid_form_part_wins() {
        let task = waiting(vec![prompt(
            "p",
            1,
            vec![
                form_part(json!({"schema": {"type": "array"}}), FORM_MEDIA_TYPE),
                form_part(definition("Second"), FORM_MEDIA_TYPE),
                form_part(definition("Third"), FORM_MEDIA_TYPE),
            ],
        )]);
        assert_eq!(
            title(active_form(&task, true)),
            Some(("p".into(), 1, "Second".into()))
        );
    }

    #[test]
    fn the_reply_is_one_json_data_part() {
        let submission = json!({"environment": "production", "replicas": 3, "dryRun": false});
        let parts = reply_part_list(submission.as_object().expect("object"));
        assert_eq!(
            parts,
            vec![
                json!({"data": {"environment": "production", "replicas": 3, "dryRun": false}, "mediaType": "application/json"})
            ]
        );
    }

    #[test]
    fn the_bubble_hides_only_a_rendered_form() {
        let shown = timeline_messages(&deploy_prompt(), FORMS);
        assert_eq!(shown.len(), 1);
        assert_eq!(shown[0].message.parts, vec![Part::text("Where should I deploy?")]);
        assert_eq!((shown[0].hidden, shown[0].form.is_some()), (1, true));
        // Unadvertised: the definition stays ordinary data.
        let shown = timeline_messages(&deploy_prompt(), Renders::default());
        assert_eq!(
            (
                shown[0].message.parts.len(),
                shown[0].hidden,
                shown[0].form.is_none()
            ),
            (2, 0, true)
        );
    }

    #[test]
    fn agent_a2ui_parts_leave_the_bubble_when_surfaces_render() {
        let surface = Part::data(json!([]), Some("application/a2ui+json".into()));
        let mut task = waiting(vec![prompt("p", 1, vec![surface.clone()])]);
        let shown = timeline_messages(&task, A2UI);
        assert!(shown[0].message.parts.is_empty() && !shown[0].shows_bubble());
        let shown = timeline_messages(&task, Renders::default());
        assert!(shown[0].shows_bubble() && shown[0].hidden == 0);
        task.messages[0].role = Role::User;
        assert_eq!(timeline_messages(&task, A2UI)[0].hidden, 0);
    }

    #[test]
    fn quick_replies_come_from_the_open_prompt() {
        let mut task = waiting(vec![prompt(
            "p",
            1,
            vec![
                Part::text("Which size?"),
                Part::data(json!({"options": ["S", "M", "M", " "]}), None),
                Part::data(json!({"choices": ["L"]}), None),
                Part::data(json!({"options": ["x", 3]}), None),
            ],
        )]);
        assert_eq!(prompt_quick_replies(&task), vec!["S", "M", "L"]);
        task.messages[0].from_status = false;
        assert!(prompt_quick_replies(&task).is_empty());
        task.messages[0].from_status = true;
        task.state = TaskState::Completed;
        assert!(prompt_quick_replies(&task).is_empty());
    }
}
