//! The task state chip shown by the Tasks, task detail and Chat screens: a human label and a
//! tone for every `TASK_STATE_*` value (either spelling), and "Message" for direct replies.

use leptos::prelude::*;

use crate::a2a::TaskState;
use crate::projection::TaskKind;

/// The label a person reads for a task state; direct message replies read "Message".
pub fn state_label(state: &TaskState, kind: TaskKind) -> String {
    if kind == TaskKind::Message {
        return "Message".into();
    }
    match state {
        TaskState::Submitted => "Submitted".into(),
        TaskState::Working => "Working".into(),
        TaskState::InputRequired => "Needs input".into(),
        TaskState::AuthRequired => "Needs auth".into(),
        TaskState::Completed => "Completed".into(),
        TaskState::Failed => "Failed".into(),
        TaskState::Canceled => "Canceled".into(),
        TaskState::Rejected => "Rejected".into(),
        TaskState::Unspecified => "Unknown".into(),
        TaskState::Other(other) if other.is_empty() => "Unknown".into(),
        TaskState::Other(other) => other.clone(),
    }
}

/// The colour family of a state chip (a CSS class suffix).
pub fn state_tone(state: &TaskState, kind: TaskKind) -> &'static str {
    if kind == TaskKind::Message {
        return "message";
    }
    match state {
        TaskState::Submitted | TaskState::Working => "active",
        TaskState::InputRequired => "input",
        TaskState::AuthRequired => "auth",
        TaskState::Completed => "done",
        TaskState::Failed | TaskState::Rejected => "failed",
        TaskState::Canceled | TaskState::Unspecified | TaskState::Other(_) => "neutral",
    }
}

/// A compact chip with the state's label; `data-state` keeps the raw value for tests.
#[component]
pub fn StateChip(
    #[prop(into)] state: TaskState,
    /// Direct message replies show "Message" whatever their state.
    #[prop(optional)]
    kind: TaskKind,
) -> impl IntoView {
    let class = format!("state-chip tone-{}", state_tone(&state, kind));
    view! {
        <span class=class data-testid="state-chip" data-state=state.as_v1_str().to_owned()>{state_label(&state, kind)}</span>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_cover_every_state_in_both_spellings() {
        let cases = [
            ("TASK_STATE_SUBMITTED", "Submitted"),
            ("working", "Working"),
            ("TASK_STATE_INPUT_REQUIRED", "Needs input"),
            ("auth-required", "Needs auth"),
            ("TASK_STATE_COMPLETED", "Completed"),
            ("TASK_STATE_FAILED", "Failed"),
            ("cancelled", "Canceled"),
            ("TASK_STATE_REJECTED", "Rejected"),
            ("TASK_STATE_UNSPECIFIED", "Unknown"),
            ("", "Unknown"),
            ("paused-by-ops", "paused-by-ops"),
        ];
        for (state, label) in cases {
            assert_eq!(
                state_label(&TaskState::parse(state), TaskKind::Task),
                label,
                "{state}"
            );
        }
    }

    #[test]
    fn message_rows_read_message() {
        assert_eq!(state_label(&TaskState::Completed, TaskKind::Message), "Message");
        assert_eq!(state_tone(&TaskState::Completed, TaskKind::Message), "message");
    }

    #[test]
    fn tones_group_states() {
        assert_eq!(state_tone(&TaskState::Working, TaskKind::Task), "active");
        assert_eq!(state_tone(&TaskState::InputRequired, TaskKind::Task), "input");
        assert_eq!(state_tone(&TaskState::AuthRequired, TaskKind::Task), "auth");
        assert_eq!(state_tone(&TaskState::Rejected, TaskKind::Task), "failed");
        assert_eq!(state_tone(&TaskState::Canceled, TaskKind::Task), "neutral");
    }
}
