//! Where a chat send goes ("Send to" chips: reply to a waiting task, follow up on a running one,
//! or start a new task).

use crate::a2a::TaskState;
use crate::projection::{TaskKind, TaskView};

/// Longest task title a chip shows, in characters.
const CHIP_TITLE_CHARS: usize = 40;

/// The task a send continues, or a new task in the conversation's context.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SendTarget {
    NewTask,
    /// A local task id.
    Task(String),
}

impl SendTarget {
    /// The `taskId` of the send.
    pub fn task_id(&self) -> Option<String> {
        match self {
            SendTarget::NewTask => None,
            SendTarget::Task(id) => Some(id.clone()),
        }
    }
}

/// One "Send to" chip.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SendToChoice {
    pub target: SendTarget,
    pub label: String,
    /// The task waits for the user (input or auth required).
    pub waiting: bool,
}

/// A title cut to fit a chip.
pub fn chip_title(title: &str) -> String {
    let title = title.trim();
    if title.is_empty() {
        return "(untitled)".into();
    }
    let mut short: String = title.chars().take(CHIP_TITLE_CHARS).collect();
    if short.len() < title.len() {
        short.push('…');
    }
    short
}

/// The chips, newest task first: waiting tasks ("Reply to …"), running ones ("Follow up on …"),
/// then "+ New task". Finished tasks and direct message replies take no further messages.
pub fn send_to_choices(tasks: &[TaskView]) -> Vec<SendToChoice> {
    let mut choices: Vec<SendToChoice> = tasks
        .iter()
        .rev()
        .filter(|t| t.kind == TaskKind::Task)
        .filter_map(|t| {
            let (verb, waiting) = match t.state {
                TaskState::InputRequired | TaskState::AuthRequired => ("Reply to", true),
                TaskState::Submitted | TaskState::Working => ("Follow up on", false),
                _ => return None,
            };
            Some(SendToChoice {
                target: SendTarget::Task(t.local_id.clone()),
                label: format!("{verb} {}", chip_title(&t.title)),
                waiting,
            })
        })
        .collect();
    choices.push(SendToChoice {
        target: SendTarget::NewTask,
        label: "+ New task".into(),
        waiting: false,
    });
    choices
}

/// The newest waiting task, else a new task.
pub fn default_target(tasks: &[TaskView]) -> SendTarget {
    send_to_choices(tasks)
        .into_iter()
        .find(|c| c.waiting)
        .map_or(SendTarget::NewTask, |c| c.target)
}

/// The user's choice while it is still offered, else the default.
pub fn effective_target(chosen: Option<&SendTarget>, tasks: &[TaskView]) -> SendTarget {
    match chosen {
        Some(target) if send_to_choices(tasks).iter().any(|c| &c.target == target) => target.clone(),
        _ => default_target(tasks),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(id: &str, state: TaskState, title: &str) -> TaskView {
        TaskView {
            local_id: id.into(),
            state,
            title: title.into(),
            ..TaskView::default()
        }
    }

    #[test]
    fn choices_list_open_tasks_newest_first_then_new_task() {
        let tasks = vec![
            task("a", TaskState::Working, "Deploy"),
            task("b", TaskState::Completed, "Done thing"),
            task("c", TaskState::InputRequired, ""),
            task("d", TaskState::AuthRequired, "Login"),
        ];
        let labels: Vec<String> = send_to_choices(&tasks).into_iter().map(|c| c.label).collect();
        assert_eq!(
            labels,
            [
                "Reply to Login",
                "Reply to (untitled)",
                "Follow up on Deploy",
                "+ New task"
            ]
        );
        assert_eq!(default_target(&tasks), SendTarget::Task("d".into()));
    }

    #[test]
    fn default_is_a_new_task_when_nothing_waits() {
        let tasks = vec![task("a", TaskState::Working, "Deploy")];
        assert_eq!(default_target(&tasks), SendTarget::NewTask);
        assert_eq!(default_target(&[]), SendTarget::NewTask);
        let mut message = task("m", TaskState::InputRequired, "x");
        message.kind = TaskKind::Message;
        assert_eq!(send_to_choices(&[message]).len(), 1);
    }

    #[test]
    fn a_choice_that_is_no_longer_offered_falls_back_to_the_default() {
        let mut tasks = vec![task("a", TaskState::Working, "Deploy")];
        let chosen = SendTarget::Task("a".into());
        assert_eq!(effective_target(Some(&chosen), &tasks), chosen);
        tasks[0].state = TaskState::Completed;
        assert_eq!(effective_target(Some(&chosen), &tasks), SendTarget::NewTask);
        assert_eq!(effective_target(None, &tasks), SendTarget::NewTask);
    }

    #[test]
    fn long_titles_are_cut() {
        let title = "x".repeat(60);
        assert_eq!(chip_title(&title).chars().count(), CHIP_TITLE_CHARS + 1);
    }
}
