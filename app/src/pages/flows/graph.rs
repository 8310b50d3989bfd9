//! How the tasks of one conversation reference each other: source tasks reference no other
//! task; dependent tasks carry A2A `referenceTaskIds` on their user messages. Pure.

use crate::a2a::{Role, TaskState};
use crate::api::tasks::ConversationView;
use crate::projection::{TaskKind, TaskView};

/// One task card of the flow.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlowTask {
    pub local_id: String,
    pub title: String,
    pub state: TaskState,
    pub kind: TaskKind,
    pub remote_task_id: Option<String>,
    /// The remote task ids it references, in first-seen order; empty for a source task.
    pub references: Vec<FlowReference>,
}

/// One referenced remote task id, resolved to a task of the same conversation when possible.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlowReference {
    pub remote_task_id: String,
    /// The local task whose remote id this is; `None` when it is not in this conversation.
    pub local_id: Option<String>,
}

/// The tasks of a conversation, split into sources and dependents (each oldest first).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Flows {
    pub sources: Vec<FlowTask>,
    pub dependents: Vec<FlowTask>,
}

/// Splits the conversation's tasks. A task is a dependent when its user messages reference at
/// least one task other than itself; every other task is a source.
pub fn split_flows(conversation: &ConversationView) -> Flows {
    let mut flows = Flows::default();
    for task in &conversation.tasks {
        let references: Vec<FlowReference> = referenced_ids(task)
            .into_iter()
            .map(|remote_task_id| FlowReference {
                local_id: local_task_for(conversation, &remote_task_id),
                remote_task_id,
            })
            .collect();
        let card = FlowTask {
            local_id: task.local_id.clone(),
            title: task.title.clone(),
            state: task.state.clone(),
            kind: task.kind,
            remote_task_id: task.remote_task_id.clone(),
            references,
        };
        if card.references.is_empty() {
            flows.sources.push(card);
        } else {
            flows.dependents.push(card);
        }
    }
    flows
}

/// The distinct remote ids the task's user messages reference, its own id left out.
fn referenced_ids(task: &TaskView) -> Vec<String> {
    let mut ids = Vec::<String>::new();
    let user_references = task
        .messages
        .iter()
        .filter(|m| m.role == Role::User)
        .flat_map(|m| m.reference_task_ids.iter());
    for id in user_references {
        let id = id.trim();
        let own = task.remote_task_id.as_deref() == Some(id);
        if !id.is_empty() && !own && !ids.iter().any(|seen| seen == id) {
            ids.push(id.to_owned());
        }
    }
    ids
}

/// The local id of the conversation's task with remote id `remote_task_id`.
fn local_task_for(conversation: &ConversationView, remote_task_id: &str) -> Option<String> {
    conversation
        .tasks
        .iter()
        .find(|t| t.remote_task_id.as_deref() == Some(remote_task_id))
        .map(|t| t.local_id.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::projection::MessageView;

    fn message(role: Role, references: &[&str]) -> MessageView {
        MessageView {
            message_id: format!("m-{}", references.join("-")),
            role,
            parts: Vec::new(),
            from_status: false,
            state: None,
            timestamp: None,
            metadata: None,
            extensions: Vec::new(),
            reference_task_ids: references.iter().map(|r| (*r).to_owned()).collect(),
            sequence: 1,
        }
    }

    fn task(local: &str, remote: Option<&str>, messages: Vec<MessageView>) -> TaskView {
        TaskView {
            local_id: local.into(),
            conversation_id: "c1".into(),
            remote_task_id: remote.map(str::to_owned),
            state: TaskState::Completed,
            title: format!("Task {local}"),
            messages,
            ..TaskView::default()
        }
    }

    fn conversation(tasks: Vec<TaskView>) -> ConversationView {
        ConversationView {
            conversation_id: "c1".into(),
            agent_id: "a1".into(),
            agent_name: Some("Planner".into()),
            remote_context_id: Some("ctx-1".into()),
            tasks,
            commands: Vec::new(),
            last_sequence: 0,
        }
    }

    #[test]
    fn tasks_without_references_are_sources() {
        let flows = split_flows(&conversation(vec![
            task("l1", Some("r1"), vec![message(Role::User, &[])]),
            task("l2", None, Vec::new()),
        ]));
        let sources: Vec<_> = flows.sources.iter().map(|t| t.local_id.as_str()).collect();
        assert_eq!(sources, vec!["l1", "l2"]);
        assert!(flows.dependents.is_empty());
        assert_eq!(flows.sources[0].title, "Task l1");
        assert_eq!(flows.sources[0].state, TaskState::Completed);
    }

    #[test]
    fn user_references_make_dependents_linked_to_local_tasks() {
        let flows = split_flows(&conversation(vec![
            task("l1", Some("r1"), Vec::new()),
            task(
                "l2",
                Some("r2"),
                vec![
                    message(Role::User, &["r1", "elsewhere"]),
                    message(Role::User, &["r1"]),
                ],
            ),
        ]));
        assert_eq!(flows.sources.len(), 1);
        assert_eq!(flows.dependents.len(), 1);
        assert_eq!(
            flows.dependents[0].references,
            vec![
                FlowReference {
                    remote_task_id: "r1".into(),
                    local_id: Some("l1".into())
                },
                FlowReference {
                    remote_task_id: "elsewhere".into(),
                    local_id: None
                },
            ]
        );
    }

    #[test]
    fn agent_references_and_self_references_do_not_count() {
        let flows = split_flows(&conversation(vec![
            task("l1", Some("r1"), vec![message(Role::Agent, &["r2"])]),
            task("l2", Some("r2"), vec![message(Role::User, &["r2", " "])]),
        ]));
        assert_eq!(flows.sources.len(), 2);
        assert!(flows.dependents.is_empty());
    }

    #[test]
    fn an_empty_conversation_has_no_flows() {
        assert_eq!(split_flows(&conversation(Vec::new())), Flows::default());
    }
}
