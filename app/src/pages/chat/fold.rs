//! Folding live frames into a loaded conversation: ledger events into their task (with the
//! shared projection fold), command status changes into the unsettled sends. Pure: the page
//! decides what to re-fetch from the outcome.

use std::collections::HashMap;

use crate::a2a::DecodedEvent;
use crate::api::tasks::{CommandStatus, CommandView, ConversationView, LedgerEvent};
use crate::live::{decode_ledger_event, fold_decoded};

/// What folding one ledger event did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Folded {
    /// The task's view changed.
    Changed,
    /// Already folded in (a reconnect delivered it again), or it changed nothing visible.
    Unchanged,
    /// The event names a task this page has not loaded: re-fetch the conversation.
    UnknownTask,
    /// The stored payload did not decode; the wire inspector shows why.
    Undecodable(String),
}

/// Whether the conversation has loaded the local task `task_id`.
pub fn knows_task(view: &ConversationView, task_id: &str) -> bool {
    view.tasks.iter().any(|t| t.local_id == task_id)
}

/// Folds one ledger event into the task it names.
pub fn fold_ledger(view: &mut ConversationView, event: &LedgerEvent) -> Folded {
    fold_ledger_decoded(view, event, &decode_ledger_event(event))
}

/// [`fold_ledger`] of an event whose payload is already decoded.
pub fn fold_ledger_decoded(
    view: &mut ConversationView,
    event: &LedgerEvent,
    decoded: &Result<DecodedEvent, String>,
) -> Folded {
    if !view.conversation_id.is_empty() && event.conversation_id != view.conversation_id {
        return Folded::Unchanged;
    }
    view.last_sequence = view.last_sequence.max(event.sequence);
    let Some(task) = view.tasks.iter_mut().find(|t| t.local_id == event.task_id) else {
        return Folded::UnknownTask;
    };
    match fold_decoded(task, event.sequence, decoded) {
        Ok(true) => Folded::Changed,
        Ok(false) => Folded::Unchanged,
        Err(error) => Folded::Undecodable(error),
    }
}

/// Folds the events received while `view` was being loaded into it (those it already holds
/// change nothing). Returns whether one of them names a task the view does not have.
pub fn catch_up(view: &mut ConversationView, missed: &[LedgerEvent]) -> bool {
    // Every event is folded; `any` would stop at the first unknown task.
    let mut unknown = false;
    for event in missed {
        unknown |= fold_ledger(view, event) == Folded::UnknownTask;
    }
    unknown
}

/// Records a command's new status: unsettled and failed commands are shown (replacing the
/// older copy), a succeeded one leaves the list. Returns `true` when the command landed in a
/// task this page has not loaded, so the conversation must be re-fetched.
pub fn note_command(view: &mut ConversationView, command: CommandView) -> bool {
    let foreign = command
        .conversation_id
        .as_deref()
        .is_some_and(|c| !view.conversation_id.is_empty() && c != view.conversation_id);
    if foreign {
        return false;
    }
    if command.status == CommandStatus::Succeeded {
        view.commands.retain(|c| c.id != command.id);
        return command.task_id.as_deref().is_some_and(|t| !knows_task(view, t));
    }
    match view.commands.iter_mut().find(|c| c.id == command.id) {
        Some(existing) => *existing = command,
        None => view.commands.push(command),
    }
    false
}

/// The commands this page has seen settle. The send's own answer (still `pending`) and a
/// conversation loaded before the dispatch ended can arrive after the live frame that settled
/// it; neither may bring its "Sending…" back.
#[derive(Clone, Debug, Default)]
pub struct SettledCommands(HashMap<String, CommandView>);

impl SettledCommands {
    /// [`note_command`], unless the page already saw this command settle and `command` is an
    /// older copy of it.
    pub fn note(&mut self, view: &mut ConversationView, command: CommandView) -> bool {
        if command.status.is_settled() {
            self.0.insert(command.id.clone(), command.clone());
        } else if self.0.contains_key(&command.id) {
            return false;
        }
        note_command(view, command)
    }

    /// Brings a freshly loaded `view` up to date: unsettled copies of commands this page saw
    /// settle leave (succeeded) or show how they ended (failed, uncertain).
    pub fn apply(&self, view: &mut ConversationView) {
        view.commands.retain_mut(|command| match self.0.get(&command.id) {
            Some(settled) if command.in_flight() => {
                *command = settled.clone();
                settled.status != CommandStatus::Succeeded
            }
            _ => true,
        });
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::a2a::TaskState;
    use crate::api::tasks::CommandAction;
    use crate::projection::TaskView;

    fn conversation() -> ConversationView {
        ConversationView {
            conversation_id: "c".into(),
            agent_id: "a".into(),
            agent_name: None,
            remote_context_id: None,
            tasks: vec![TaskView {
                local_id: "t1".into(),
                conversation_id: "c".into(),
                state: TaskState::Submitted,
                last_sequence: 4,
                ..TaskView::default()
            }],
            commands: Vec::new(),
            last_sequence: 4,
        }
    }

    fn event(sequence: i64, task_id: &str, payload: serde_json::Value) -> LedgerEvent {
        LedgerEvent {
            sequence,
            task_id: task_id.into(),
            conversation_id: "c".into(),
            source: "stream".into(),
            payload,
            extensions: Vec::new(),
            protocol_version: None,
            received_at: "2026-01-01T00:00:00Z".into(),
        }
    }

    fn working() -> serde_json::Value {
        json!({"statusUpdate": {"taskId": "r1", "contextId": "ctx", "status": {"state": "TASK_STATE_WORKING"}}})
    }

    fn command(id: &str, status: CommandStatus, task_id: Option<&str>) -> CommandView {
        CommandView {
            id: id.into(),
            agent_id: "a".into(),
            action: CommandAction::Send,
            message_id: "m".into(),
            status,
            error: None,
            task_id: task_id.map(str::to_owned),
            conversation_id: Some("c".into()),
            text: "hi".into(),
            created_at: "2026-01-01T00:00:00Z".into(),
        }
    }

    #[test]
    fn events_fold_into_their_task_once() {
        let mut view = conversation();
        assert_eq!(
            fold_ledger(&mut view, &event(5, "t1", working())),
            Folded::Changed
        );
        assert_eq!(view.tasks[0].state, TaskState::Working);
        assert_eq!(view.last_sequence, 5);
        assert_eq!(
            fold_ledger(&mut view, &event(5, "t1", working())),
            Folded::Unchanged
        );
        assert_eq!(
            fold_ledger(&mut view, &event(3, "t1", working())),
            Folded::Unchanged
        );
    }

    #[test]
    fn events_received_during_a_reload_are_folded_into_the_fresh_view_once() {
        // The fresh view already holds sequence 5; 5 arrived live during the load, 6 after it.
        let mut fresh = conversation();
        fold_ledger(&mut fresh, &event(5, "t1", working()));
        let completed = json!({"statusUpdate": {"taskId": "r1", "contextId": "ctx", "status": {"state": "TASK_STATE_COMPLETED"}}});
        let missed = [event(5, "t1", working()), event(6, "t1", completed)];
        assert!(!catch_up(&mut fresh, &missed));
        assert_eq!(fresh.tasks[0].state, TaskState::Completed);
        assert_eq!(fresh.last_sequence, 6);
        // An event for a task the load did not include asks for another load.
        assert!(catch_up(&mut fresh, &[event(7, "t9", working())]));
    }

    #[test]
    fn unknown_tasks_and_bad_payloads_are_reported() {
        let mut view = conversation();
        assert_eq!(
            fold_ledger(&mut view, &event(6, "t9", working())),
            Folded::UnknownTask
        );
        assert!(matches!(
            fold_ledger(&mut view, &event(7, "t1", json!({"nope": 1}))),
            Folded::Undecodable(_)
        ));
        let mut other = event(8, "t1", working());
        other.conversation_id = "elsewhere".into();
        assert_eq!(fold_ledger(&mut view, &other), Folded::Unchanged);
    }

    #[test]
    fn commands_are_upserted_until_they_succeed() {
        let mut view = conversation();
        assert!(!note_command(
            &mut view,
            command("k", CommandStatus::Pending, None)
        ));
        assert!(!note_command(
            &mut view,
            command("k", CommandStatus::Dispatching, None)
        ));
        assert_eq!(view.commands.len(), 1);
        assert_eq!(view.commands[0].status, CommandStatus::Dispatching);
        assert!(!note_command(
            &mut view,
            command("k", CommandStatus::Succeeded, Some("t1"))
        ));
        assert!(view.commands.is_empty());
    }

    #[test]
    fn a_success_in_an_unseen_task_asks_for_a_refetch() {
        let mut view = conversation();
        note_command(&mut view, command("k", CommandStatus::Pending, None));
        assert!(note_command(
            &mut view,
            command("k", CommandStatus::Succeeded, Some("t2"))
        ));
        assert!(view.commands.is_empty());
        assert!(!note_command(
            &mut view,
            command("j", CommandStatus::Failed, None)
        ));
        assert_eq!(view.commands[0].status, CommandStatus::Failed);
    }

    /// Issue #32: "a Sending… placeholder stays after the task has completed" when the live
    /// frame that settled a send arrives before the send's own answer or a slower reload.
    #[test]
    fn a_settled_command_never_goes_back_to_sending() {
        let mut view = conversation();
        let mut settled = SettledCommands::default();
        assert!(!settled.note(&mut view, command("k", CommandStatus::Succeeded, Some("t1"))));
        assert!(!settled.note(&mut view, command("k", CommandStatus::Pending, None)));
        assert!(view.commands.is_empty());
        // A reload taken before the dispatch ended.
        let mut fresh = conversation();
        fresh
            .commands
            .push(command("k", CommandStatus::Dispatching, None));
        fresh.commands.push(command("j", CommandStatus::Pending, None));
        settled.note(&mut view, command("f", CommandStatus::Failed, None));
        fresh
            .commands
            .push(command("f", CommandStatus::Dispatching, None));
        settled.apply(&mut fresh);
        let left: Vec<_> = fresh.commands.iter().map(|c| (c.id.as_str(), c.status)).collect();
        assert_eq!(
            left,
            [("j", CommandStatus::Pending), ("f", CommandStatus::Failed)]
        );
    }

    #[test]
    fn a_new_chat_takes_its_first_command() {
        let mut view = conversation();
        view.conversation_id = String::new();
        assert!(!note_command(
            &mut view,
            command("k", CommandStatus::Pending, None)
        ));
        assert_eq!(view.commands.len(), 1);
    }
}
