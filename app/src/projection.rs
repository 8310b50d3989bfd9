//! The task projection: what a task looks like after folding its ledger events, and the fold
//! itself. The browser folds the committed events it receives live with exactly this code; the
//! server keeps the same projection in tables and uses the same rules
//! (`shared/spec/security-and-durability.md` §3.3):
//!
//! - untimestamped observations are ordered by the ledger sequence;
//! - remote timestamps reject stale snapshots and stale status, including their content;
//! - a terminal state never goes back to a non-terminal one;
//! - messages de-duplicate by their remote id;
//! - an artifact replacement resets its assembly; append chunks extend it (`append`,
//!   `lastChunk`), adjacent text of the same media type joining into one part.

mod rules;
mod tail;
pub mod time;

pub use rules::{StatusVerdict, append_parts, status_verdict, title_of};
pub use tail::missing_tail;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::a2a::{Artifact, Message, Part, Role, StreamEvent, TaskState, TaskStatus};

/// Longest stored title (first user text), in characters.
pub const MAX_TITLE_CHARS: usize = 500;

crate::stored_words! {
    /// A task row: an A2A task, or a direct Message reply kept as its own row (never a fake
    /// task). Stored in `tasks.kind`.
    #[derive(Default)]
    pub enum TaskKind {
        #[default]
        Task = "task",
        Message = "message",
    }
}

/// One message of a task's timeline.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageView {
    pub message_id: String,
    pub role: Role,
    pub parts: Vec<Part>,
    /// Carried by a status update (the agent's prompt or progress line).
    pub from_status: bool,
    /// The task state the status carried, for prompts (`TASK_STATE_INPUT_REQUIRED`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<TaskState>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extensions: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reference_task_ids: Vec<String>,
    /// The ledger sequence that added it.
    pub sequence: i64,
}

/// One artifact, assembled from its chunks.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ArtifactView {
    pub artifact_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub parts: Vec<Part>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extensions: Vec<String>,
    /// Its latest update did not say `lastChunk`: shown as growing while the task is active.
    pub streaming: bool,
    /// How many updates built it since its last replacement.
    pub chunks: u32,
    /// The ledger sequence of its latest update.
    pub sequence: i64,
}

/// One step of the status timeline.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Transition {
    pub state: TaskState,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
    pub sequence: i64,
}

/// Everything the console shows about one task.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskView {
    pub local_id: String,
    pub kind: TaskKind,
    pub agent_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_name: Option<String>,
    /// The local conversation (chat) this task belongs to.
    pub conversation_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remote_task_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remote_context_id: Option<String>,
    pub tenant: String,
    /// Serialised as `TASK_STATE_*` (or the stored word of a state the console does not know).
    pub state: TaskState,
    /// The remote timestamp of the state, when the agent sent one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state_timestamp: Option<String>,
    pub title: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skill_id: Option<String>,
    pub created_at: String,
    pub updated_at: String,
    /// Bumped by every projection change.
    pub version: i64,
    /// The highest ledger sequence folded in; live events at or below it are already shown.
    pub last_sequence: i64,
    pub messages: Vec<MessageView>,
    pub artifacts: Vec<ArtifactView>,
    pub transitions: Vec<Transition>,
    /// What the server left out: a view holds only the latest messages, artifacts and
    /// transitions up to a limit, and a bounded number of artifact chunks (issue #26).
    #[serde(default, skip_serializing_if = "Omitted::is_empty")]
    pub omitted: Omitted,
}

/// Counts of older items not included in a [`TaskView`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Omitted {
    /// Older messages left out.
    pub messages: u64,
    /// Artifacts left out (the lowest positions).
    pub artifacts: u64,
    /// Older status transitions left out.
    pub transitions: u64,
    /// Chunks of the included artifacts left out (their parts are cut short).
    pub chunks: u64,
}

impl Omitted {
    /// Nothing was left out.
    pub fn is_empty(&self) -> bool {
        *self == Omitted::default()
    }
}

impl MessageView {
    /// The view of a message added at `sequence`.
    pub fn from_message(message: &Message, sequence: i64, status: Option<&TaskStatus>) -> MessageView {
        MessageView {
            message_id: message.message_id.clone(),
            role: message.role,
            parts: message.parts.clone(),
            from_status: status.is_some(),
            state: status.map(|s| s.state.clone()),
            timestamp: status.and_then(|s| s.timestamp.clone()),
            metadata: message.metadata.clone(),
            extensions: message.extensions.clone(),
            reference_task_ids: message.reference_task_ids.clone(),
            sequence,
        }
    }
}

impl ArtifactView {
    /// A fresh artifact (a replacement or the first chunk).
    pub fn from_artifact(artifact: &Artifact, sequence: i64, streaming: bool) -> ArtifactView {
        let mut parts = Vec::new();
        append_parts(&mut parts, &artifact.parts);
        ArtifactView {
            artifact_id: artifact.artifact_id.clone(),
            name: artifact.name.clone(),
            description: artifact.description.clone(),
            parts,
            metadata: artifact.metadata.clone(),
            extensions: artifact.extensions.clone(),
            streaming,
            chunks: 1,
            sequence,
        }
    }

    /// Adds an append chunk.
    pub fn append(&mut self, artifact: &Artifact, sequence: i64, last_chunk: bool) {
        append_parts(&mut self.parts, &artifact.parts);
        if artifact.name.is_some() {
            self.name.clone_from(&artifact.name);
        }
        if artifact.description.is_some() {
            self.description.clone_from(&artifact.description);
        }
        self.streaming = !last_chunk;
        self.chunks += 1;
        self.sequence = sequence;
    }
}

impl TaskView {
    /// Folds one committed ledger event in. Events at or below [`TaskView::last_sequence`]
    /// were folded already and change nothing (a reconnect may deliver them again).
    /// Returns whether the view changed beyond its resume point (`last_sequence`): the browser
    /// re-renders only then, so a flood of repeated statuses costs no rendering.
    pub fn apply(&mut self, sequence: i64, event: &StreamEvent) -> bool {
        if sequence <= self.last_sequence {
            return false;
        }
        self.last_sequence = sequence;
        let before = self.shown();
        match event {
            StreamEvent::Task(task) => {
                self.note_context(task.context_id.as_deref());
                if self.remote_task_id.is_none() && self.kind == TaskKind::Task {
                    self.remote_task_id = Some(task.id.clone());
                }
                // A finished task's artifacts only take a missing tail (see `missing_tail`).
                let finished = self.state.is_terminal();
                if self.apply_status(sequence, &task.status).takes_content() {
                    for message in &task.history {
                        self.add_message(sequence, message, None);
                    }
                    for artifact in &task.artifacts {
                        if finished {
                            self.fill_artifact(sequence, artifact);
                        } else {
                            self.put_artifact(ArtifactView::from_artifact(artifact, sequence, false));
                        }
                    }
                }
            }
            StreamEvent::StatusUpdate(update) => {
                self.note_context(update.context_id.as_deref());
                self.apply_status(sequence, &update.status);
            }
            StreamEvent::ArtifactUpdate(update) => {
                self.note_context(update.context_id.as_deref());
                if !self.state.is_terminal() {
                    self.fold_artifact(sequence, &update.artifact, update.append, update.last_chunk);
                }
            }
            StreamEvent::Message(message) => {
                self.note_context(message.context_id.as_deref());
                self.add_message(sequence, message, None);
            }
        }
        before != self.shown()
    }

    /// What a fold can change that a page shows, besides content (which bumps `version`). The
    /// state's remote timestamp is not shown anywhere (it orders statuses, see
    /// [`status_verdict`]); an agent that stamps every repeated WORKING update re-renders
    /// nothing.
    fn shown(&self) -> (i64, TaskState, Option<String>, Option<String>) {
        (
            self.version,
            self.state.clone(),
            self.remote_context_id.clone(),
            self.remote_task_id.clone(),
        )
    }

    fn note_context(&mut self, context_id: Option<&str>) {
        if self.remote_context_id.is_none()
            && let Some(context) = context_id.filter(|c| !c.is_empty())
        {
            self.remote_context_id = Some(context.to_owned());
        }
    }

    fn apply_status(&mut self, sequence: i64, status: &TaskStatus) -> StatusVerdict {
        let verdict = status_verdict(
            &self.state,
            self.state_timestamp.as_deref(),
            &status.state,
            status.timestamp.as_deref(),
        );
        match verdict {
            StatusVerdict::Apply => {
                self.state = status.state.clone();
                self.transitions.push(Transition {
                    state: self.state.clone(),
                    timestamp: status.timestamp.clone(),
                    sequence,
                });
                self.version += 1;
            }
            StatusVerdict::Same => {}
            StatusVerdict::Stale | StatusVerdict::Final => return verdict,
        }
        if status.timestamp.is_some() {
            self.state_timestamp.clone_from(&status.timestamp);
        }
        if let Some(message) = &status.message {
            self.add_message(sequence, message, Some(status));
        }
        verdict
    }

    fn add_message(&mut self, sequence: i64, message: &Message, status: Option<&TaskStatus>) {
        let known = !message.message_id.is_empty()
            && self.messages.iter().any(|m| m.message_id == message.message_id);
        if known {
            return;
        }
        if self.title.is_empty()
            && message.role == Role::User
            && let Some(title) = title_of(message)
        {
            self.title = title;
        }
        self.messages
            .push(MessageView::from_message(message, sequence, status));
        self.version += 1;
    }

    fn fold_artifact(&mut self, sequence: i64, artifact: &Artifact, append: bool, last_chunk: bool) {
        match self
            .artifacts
            .iter_mut()
            .find(|a| a.artifact_id == artifact.artifact_id)
        {
            Some(existing) if append => {
                existing.append(artifact, sequence, last_chunk);
                self.version += 1;
            }
            _ => self.put_artifact(ArtifactView::from_artifact(artifact, sequence, !last_chunk)),
        }
    }

    fn fill_artifact(&mut self, sequence: i64, artifact: &Artifact) {
        match self
            .artifacts
            .iter_mut()
            .find(|a| a.artifact_id == artifact.artifact_id)
        {
            Some(existing) => {
                if let Some(parts) = missing_tail(&existing.parts, &artifact.parts) {
                    existing.append(
                        &Artifact {
                            parts,
                            ..artifact.clone()
                        },
                        sequence,
                        true,
                    );
                    self.version += 1;
                }
            }
            None => self.put_artifact(ArtifactView::from_artifact(artifact, sequence, false)),
        }
    }

    fn put_artifact(&mut self, view: ArtifactView) {
        match self
            .artifacts
            .iter_mut()
            .find(|a| a.artifact_id == view.artifact_id)
        {
            Some(existing) => *existing = view,
            None => self.artifacts.push(view),
        }
        self.version += 1;
    }
}

#[cfg(test)]
mod tests;
