//! One variant's tasks, in memory: the current Task JSON, a broadcast of its stream events and
//! the tokens that stop its work. Locks are held only for short, synchronous edits.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use app::a2a::TaskState;
use serde_json::{Value, json};
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

use super::error::A2aError;
use super::task_json::{merge_artifact, push_history, stamp, status_event, task_state, trim, user_message};
use super::wire::{self, Incoming, Update};

/// Events buffered per task for slow subscribers; a subscriber that falls further behind
/// gets a fresh task snapshot instead of the missed events.
const EVENT_BUFFER: usize = 1024;
/// ListTasks page size when the request gives none, and the largest accepted.
const DEFAULT_PAGE_SIZE: usize = 50;
const MAX_PAGE_SIZE: usize = 100;

/// The tasks of one variant; cheap to clone.
#[derive(Clone)]
pub(crate) struct TaskStore {
    inner: Arc<Mutex<State>>,
    /// The variant name: task ids are `<prefix>-task-<n>`, the default context `<prefix>-context`.
    prefix: &'static str,
    /// Cancelled at shutdown; every task's token is a child of it.
    shutdown: CancellationToken,
}

#[derive(Default)]
struct State {
    next_task: u64,
    next_seq: u64,
    tasks: HashMap<String, Entry>,
}

struct Entry {
    task: Value,
    /// Order of the last change, for ListTasks (newest first).
    seq: u64,
    /// Agent messages written so far, for message ids.
    messages: u64,
    events: broadcast::Sender<Value>,
    /// Stops any work on the task (CancelTask, shutdown).
    cancel: CancellationToken,
    /// Cancelled when the current run of the scenario ends.
    run: CancellationToken,
}

/// A stream attached to a task: what it starts with and how it follows.
pub(crate) struct Attached {
    pub(crate) task_id: String,
    /// The task as it was when the receiver was created.
    pub(crate) snapshot: Value,
    pub(crate) events: broadcast::Receiver<Value>,
    /// Cancelled when the current run ends, so followers stop even without a final status.
    pub(crate) run_finished: CancellationToken,
}

/// A run of the scenario that was just started on a task.
pub(crate) struct Started {
    pub(crate) attached: Attached,
    /// Stops the run (cancel, shutdown).
    pub(crate) cancel: CancellationToken,
}

/// ListTasks filters.
#[derive(Debug, Default)]
pub(crate) struct ListQuery {
    pub(crate) context_id: Option<String>,
    pub(crate) status: Option<String>,
    pub(crate) page_size: Option<usize>,
    pub(crate) page_token: Option<String>,
    pub(crate) history_length: Option<usize>,
    pub(crate) include_artifacts: bool,
}

/// Why the runner must stop writing to a task.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Finished;

impl TaskStore {
    /// An empty store for the variant `prefix`.
    pub(crate) fn new(prefix: &'static str, shutdown: CancellationToken) -> TaskStore {
        TaskStore {
            inner: Arc::default(),
            prefix,
            shutdown,
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock leaves plain JSON behind, still usable.
        self.inner.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Creates a task for a new message, or continues the task the message names.
    pub(crate) fn start(&self, incoming: &Incoming) -> Result<Started, A2aError> {
        let mut state = self.lock();
        state.next_seq += 1;
        let seq = state.next_seq;
        let task_id = match &incoming.task_id {
            Some(id) => {
                let entry = state
                    .tasks
                    .get_mut(id)
                    .ok_or_else(|| A2aError::TaskNotFound(id.clone()))?;
                let current = task_state(&entry.task).to_owned();
                if TaskState::parse(&current).is_terminal() {
                    return Err(A2aError::UnsupportedOperation(format!(
                        "Task {id} is in a terminal state ({current}) and accepts no more messages"
                    )));
                }
                if !entry.run.is_cancelled() {
                    return Err(A2aError::UnsupportedOperation(format!(
                        "Task {id} is still working; wait for it or cancel it"
                    )));
                }
                if let Some(context) = &incoming.context_id
                    && entry.task["contextId"].as_str() != Some(context)
                {
                    return Err(A2aError::InvalidParams(format!(
                        "contextId {context} does not match task {id}"
                    )));
                }
                let message = user_message(incoming, id, entry.task["contextId"].as_str().unwrap_or(""));
                push_history(&mut entry.task, message);
                entry.task["status"] = json!({"state": TaskState::Working, "timestamp": wire::now_iso()});
                entry.seq = seq;
                entry.run = CancellationToken::new();
                let event = status_event(&entry.task, None);
                // No receiver is fine: nobody follows an interrupted task.
                let _ = entry.events.send(event);
                id.clone()
            }
            None => {
                state.next_task += 1;
                let id = format!("{}-task-{}", self.prefix, state.next_task);
                let context = incoming
                    .context_id
                    .clone()
                    .unwrap_or_else(|| format!("{}-context", self.prefix));
                let task = json!({
                    "id": id,
                    "contextId": context,
                    "status": {"state": TaskState::Working, "timestamp": wire::now_iso()},
                    "artifacts": [],
                    "history": [user_message(incoming, &id, &context)],
                });
                let (events, _) = broadcast::channel(EVENT_BUFFER);
                state.tasks.insert(
                    id.clone(),
                    Entry {
                        task,
                        seq,
                        messages: 0,
                        events,
                        cancel: self.shutdown.child_token(),
                        run: CancellationToken::new(),
                    },
                );
                id
            }
        };
        let entry = state
            .tasks
            .get(&task_id)
            .ok_or_else(|| A2aError::TaskNotFound(task_id.clone()))?;
        Ok(Started {
            cancel: entry.cancel.clone(),
            attached: Attached {
                task_id,
                snapshot: entry.task.clone(),
                events: entry.events.subscribe(),
                run_finished: entry.run.clone(),
            },
        })
    }

    /// Applies one agent update and broadcasts it; fails once the task is terminal.
    pub(crate) fn apply(&self, task_id: &str, update: Update) -> Result<(), Finished> {
        let mut state = self.lock();
        state.next_seq += 1;
        let seq = state.next_seq;
        let entry = state.tasks.get_mut(task_id).ok_or(Finished)?;
        if TaskState::parse(task_state(&entry.task)).is_terminal() {
            return Err(Finished);
        }
        entry.seq = seq;
        let event = match update {
            Update::Status {
                state: new_state,
                parts,
                message_metadata,
                event_metadata,
            } => {
                let mut status = json!({"state": new_state, "timestamp": wire::now_iso()});
                if !parts.is_empty() {
                    entry.messages += 1;
                    let mut message = json!({
                        "messageId": format!("agent-{task_id}-{}-{}", new_state.as_v03_str(), entry.messages),
                        "role": "ROLE_AGENT",
                        "taskId": task_id,
                        "contextId": entry.task["contextId"],
                        "parts": parts,
                    });
                    if let Some(metadata) = message_metadata {
                        message["metadata"] = metadata;
                    }
                    push_history(&mut entry.task, message.clone());
                    status["message"] = message;
                }
                entry.task["status"] = status;
                status_event(&entry.task, event_metadata)
            }
            Update::Artifact {
                artifact,
                append,
                last_chunk,
            } => {
                merge_artifact(&mut entry.task, &artifact, append);
                json!({"artifactUpdate": {
                    "taskId": task_id,
                    "contextId": entry.task["contextId"],
                    "artifact": artifact,
                    "append": append,
                    "lastChunk": last_chunk,
                }})
            }
        };
        let _ = entry.events.send(stamp(event));
        Ok(())
    }

    /// The whole task, if it exists.
    pub(crate) fn snapshot(&self, task_id: &str) -> Option<Value> {
        self.lock().tasks.get(task_id).map(|entry| entry.task.clone())
    }

    /// GetTask: the task with at most `history_length` recent messages.
    pub(crate) fn get(&self, task_id: &str, history_length: Option<usize>) -> Result<Value, A2aError> {
        let task = self
            .snapshot(task_id)
            .ok_or_else(|| A2aError::TaskNotFound(task_id.to_owned()))?;
        Ok(trim(task, history_length, true))
    }

    /// ListTasks: newest change first, paged by offset tokens.
    pub(crate) fn list(&self, query: &ListQuery) -> Result<Value, A2aError> {
        let page_size = query
            .page_size
            .unwrap_or(DEFAULT_PAGE_SIZE)
            .clamp(1, MAX_PAGE_SIZE);
        let offset = match query.page_token.as_deref().filter(|t| !t.is_empty()) {
            Some(token) => token
                .parse::<usize>()
                .map_err(|_| A2aError::InvalidParams(format!("invalid pageToken {token}")))?,
            None => 0,
        };
        let status = query
            .status
            .as_deref()
            .filter(|s| !s.is_empty() && *s != TaskState::Unspecified.as_v1_str());
        let mut matching: Vec<(u64, Value)> = {
            let state = self.lock();
            state
                .tasks
                .values()
                .filter(|e| {
                    query
                        .context_id
                        .as_deref()
                        .is_none_or(|c| e.task["contextId"] == c)
                })
                .filter(|e| status.is_none_or(|s| task_state(&e.task) == s))
                .map(|e| (e.seq, e.task.clone()))
                .collect()
        };
        matching.sort_by_key(|(seq, _)| std::cmp::Reverse(*seq));
        let total = matching.len();
        let tasks: Vec<Value> = matching
            .into_iter()
            .skip(offset)
            .take(page_size)
            .map(|(_, task)| trim(task, query.history_length, query.include_artifacts))
            .collect();
        let next = if offset + tasks.len() < total {
            (offset + tasks.len()).to_string()
        } else {
            String::new()
        };
        Ok(json!({"tasks": tasks, "nextPageToken": next, "pageSize": page_size, "totalSize": total}))
    }

    /// CancelTask: moves a live task to CANCELED and stops its work.
    pub(crate) fn cancel(&self, task_id: &str) -> Result<Value, A2aError> {
        let cancel = {
            let state = self.lock();
            let entry = state
                .tasks
                .get(task_id)
                .ok_or_else(|| A2aError::TaskNotFound(task_id.to_owned()))?;
            entry.cancel.clone()
        };
        self.apply(
            task_id,
            Update::say(TaskState::Canceled, "Canceled at the client's request."),
        )
        .map_err(|Finished| A2aError::TaskNotCancelable(task_id.to_owned()))?;
        cancel.cancel();
        self.get(task_id, None)
    }

    /// SubscribeToTask: the current task, then its live events.
    pub(crate) fn subscribe(&self, task_id: &str) -> Result<Attached, A2aError> {
        let state = self.lock();
        let entry = state
            .tasks
            .get(task_id)
            .ok_or_else(|| A2aError::TaskNotFound(task_id.to_owned()))?;
        let current = task_state(&entry.task);
        if TaskState::parse(current).is_terminal() {
            return Err(A2aError::UnsupportedOperation(format!(
                "Task {task_id} is in a terminal state ({current}); nothing to subscribe to"
            )));
        }
        Ok(Attached {
            task_id: task_id.to_owned(),
            snapshot: entry.task.clone(),
            events: entry.events.subscribe(),
            run_finished: entry.run.clone(),
        })
    }

    /// How many streams (or waiting SendMessage calls) follow the task.
    pub(crate) fn watchers(&self, task_id: &str) -> usize {
        self.lock()
            .tasks
            .get(task_id)
            .map_or(0, |entry| entry.events.receiver_count())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn incoming(text: &str, task_id: Option<&str>) -> Incoming {
        let mut message = json!({"messageId": "m", "role": "ROLE_USER", "parts": [{"text": text}]});
        if let Some(id) = task_id {
            message["taskId"] = json!(id);
        }
        Incoming::from_params(&json!({ "message": message })).unwrap()
    }

    #[test]
    fn tasks_are_numbered_and_cancel_only_once() {
        let store = TaskStore::new("form", CancellationToken::new());
        let started = store.start(&incoming("hi", None)).unwrap();
        assert_eq!(started.attached.task_id, "form-task-1");
        assert_eq!(started.attached.snapshot["contextId"], "form-context");
        store
            .apply("form-task-1", Update::say(TaskState::InputRequired, "Where?"))
            .unwrap();
        let task = store.get("form-task-1", None).unwrap();
        assert_eq!(
            task["status"]["message"]["messageId"],
            "agent-form-task-1-input-required-1"
        );
        assert_eq!(
            store.cancel("form-task-1").unwrap()["status"]["state"],
            TaskState::Canceled.as_v1_str()
        );
        assert!(started.cancel.is_cancelled());
        assert_eq!(store.cancel("form-task-1").unwrap_err().code(), -32002);
        assert_eq!(store.cancel("nope").unwrap_err().code(), -32001);
        assert_eq!(
            store.apply("form-task-1", Update::say(TaskState::Completed, "late")),
            Err(Finished)
        );
    }

    #[test]
    fn chunks_append_to_one_artifact_and_list_pages() {
        let store = TaskStore::new("slow", CancellationToken::new());
        store.start(&incoming("a", None)).unwrap();
        store.start(&incoming("b", None)).unwrap();
        for (i, append) in [(1, false), (2, true)] {
            let artifact = json!({"artifactId": "r", "parts": [{"text": i.to_string()}]});
            store
                .apply(
                    "slow-task-1",
                    Update::Artifact {
                        artifact,
                        append,
                        last_chunk: append,
                    },
                )
                .unwrap();
        }
        let task = store.get("slow-task-1", Some(0)).unwrap();
        assert_eq!(task["artifacts"][0]["parts"].as_array().unwrap().len(), 2);
        assert_eq!(task["history"], json!([]));
        let page = store
            .list(&ListQuery {
                page_size: Some(1),
                ..ListQuery::default()
            })
            .unwrap();
        assert_eq!(page["tasks"][0]["id"], "slow-task-1", "last changed first");
        assert_eq!(page["nextPageToken"], "1");
        assert_eq!(page["totalSize"], 2);
        assert!(page["tasks"][0].get("artifacts").is_none());
    }

    #[test]
    fn a_working_task_refuses_a_second_message() {
        let store = TaskStore::new("slow", CancellationToken::new());
        let started = store.start(&incoming("a", None)).unwrap();
        let err = store.start(&incoming("b", Some("slow-task-1"))).err().unwrap();
        assert_eq!(err.code(), -32004);
        started.attached.run_finished.cancel();
        assert!(store.start(&incoming("b", Some("slow-task-1"))).is_ok());
    }
}
