//! Tasks, their status and state (both enum spellings), and ListTasks pages.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use super::artifact::Artifact;
use super::error::DecodeError;
use super::lenient::{array, as_object, index, join, opt_object, opt_str, opt_u64, present, req_str};
use super::message::Message;

/// The lifecycle state of a task. Serialises as the 1.0 name; reads both spellings. With `ssr`
/// it is also a sea-orm string column (`tasks.state`, `task_transitions.state`), stored as the
/// 1.0 name ([`TaskState::Other`] verbatim), which [`TaskState::parse`] reads back unchanged.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "ssr",
    derive(sea_orm::DeriveValueType),
    sea_orm(
        value_type = "String",
        from_str = "TaskState::from_stored",
        to_str = "TaskState::as_v1_str"
    )
)]
pub enum TaskState {
    /// Accepted, not started.
    Submitted,
    /// Running.
    Working,
    /// Paused until the user answers.
    InputRequired,
    /// Paused until the user authenticates.
    AuthRequired,
    /// Finished successfully.
    Completed,
    /// Cancelled.
    Canceled,
    /// Finished with an error.
    Failed,
    /// Refused by the agent.
    Rejected,
    /// `TASK_STATE_UNSPECIFIED` (1.0) or `unknown` (0.3); the default.
    #[default]
    Unspecified,
    /// Any other string, kept verbatim.
    Other(String),
}

impl TaskState {
    /// Reads `TASK_STATE_WORKING`, `working`, `input-required`, `INPUT_REQUIRED` and so on;
    /// anything unrecognised becomes [`TaskState::Other`].
    pub fn parse(state: &str) -> Self {
        let trimmed = state.trim();
        let upper = trimmed.to_ascii_uppercase().replace('-', "_");
        let bare = upper.strip_prefix("TASK_STATE_").unwrap_or(&upper);
        match bare {
            "SUBMITTED" => TaskState::Submitted,
            "WORKING" => TaskState::Working,
            "INPUT_REQUIRED" => TaskState::InputRequired,
            "AUTH_REQUIRED" => TaskState::AuthRequired,
            "COMPLETED" => TaskState::Completed,
            "CANCELED" | "CANCELLED" => TaskState::Canceled,
            "FAILED" => TaskState::Failed,
            "REJECTED" => TaskState::Rejected,
            "UNSPECIFIED" | "UNKNOWN" => TaskState::Unspecified,
            _ => TaskState::Other(trimmed.to_owned()),
        }
    }

    /// Reads a stored state (sea-orm's `from_str`): never fails, see [`TaskState::parse`].
    #[cfg(feature = "ssr")]
    fn from_stored(state: &str) -> Result<TaskState, std::convert::Infallible> {
        Ok(TaskState::parse(state))
    }

    /// The 1.0 spelling, e.g. `TASK_STATE_INPUT_REQUIRED`.
    pub fn as_v1_str(&self) -> &str {
        match self {
            TaskState::Submitted => "TASK_STATE_SUBMITTED",
            TaskState::Working => "TASK_STATE_WORKING",
            TaskState::InputRequired => "TASK_STATE_INPUT_REQUIRED",
            TaskState::AuthRequired => "TASK_STATE_AUTH_REQUIRED",
            TaskState::Completed => "TASK_STATE_COMPLETED",
            TaskState::Canceled => "TASK_STATE_CANCELED",
            TaskState::Failed => "TASK_STATE_FAILED",
            TaskState::Rejected => "TASK_STATE_REJECTED",
            TaskState::Unspecified => "TASK_STATE_UNSPECIFIED",
            TaskState::Other(s) => s,
        }
    }

    /// The 0.3 spelling, e.g. `input-required`.
    pub fn as_v03_str(&self) -> &str {
        match self {
            TaskState::Submitted => "submitted",
            TaskState::Working => "working",
            TaskState::InputRequired => "input-required",
            TaskState::AuthRequired => "auth-required",
            TaskState::Completed => "completed",
            TaskState::Canceled => "canceled",
            TaskState::Failed => "failed",
            TaskState::Rejected => "rejected",
            TaskState::Unspecified => "unknown",
            TaskState::Other(s) => s,
        }
    }

    /// Completed, failed, canceled or rejected: no further messages (spec A.3).
    pub fn is_terminal(&self) -> bool {
        matches!(
            self,
            TaskState::Completed | TaskState::Failed | TaskState::Canceled | TaskState::Rejected
        )
    }

    /// Input or auth required: the task waits for the user (spec A.3 "interrupted").
    pub fn is_paused(&self) -> bool {
        matches!(self, TaskState::InputRequired | TaskState::AuthRequired)
    }

    /// A stream for this task closes at this state (terminal or paused).
    pub fn ends_stream(&self) -> bool {
        self.is_terminal() || self.is_paused()
    }
}

/// The 1.0 spelling (as [`TaskState::as_v1_str`]).
impl std::fmt::Display for TaskState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_v1_str())
    }
}

/// Compares with a stored or wire word in the 1.0 spelling (as [`TaskState::as_v1_str`]).
impl PartialEq<&str> for TaskState {
    fn eq(&self, word: &&str) -> bool {
        self.as_v1_str() == *word
    }
}

impl Serialize for TaskState {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_v1_str())
    }
}

impl<'de> Deserialize<'de> for TaskState {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = String::deserialize(deserializer)?;
        Ok(TaskState::parse(&s))
    }
}

/// A task's current status.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskStatus {
    /// The state.
    pub state: TaskState,
    /// The agent's message about this status (e.g. the question when input is required).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<Message>,
    /// ISO-8601 timestamp as sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
}

impl TaskStatus {
    /// Decodes a status; `state` is required.
    pub fn decode(value: &Value) -> Result<Self, DecodeError> {
        Self::decode_at(value, "")
    }

    pub(crate) fn decode_at(value: &Value, path: &str) -> Result<Self, DecodeError> {
        let obj = as_object(value, path)?;
        let state = req_str(obj, "state", path)?;
        let message = match present(obj, "message") {
            Some(m) => Some(Message::decode_at(m, &join(path, "message"))?),
            None => None,
        };
        Ok(TaskStatus {
            state: TaskState::parse(&state),
            message,
            timestamp: opt_str(obj, "timestamp"),
        })
    }
}

/// One normalised task.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Task {
    /// The agent-assigned task id.
    pub id: String,
    /// Conversation id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_id: Option<String>,
    /// Current status.
    pub status: TaskStatus,
    /// Outputs so far (may be omitted by ListTasks unless asked for).
    #[serde(default)]
    pub artifacts: Vec<Artifact>,
    /// Messages so far, oldest first, as far as the agent returned them.
    #[serde(default)]
    pub history: Vec<Message>,
    /// Task metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
}

impl Task {
    /// Decodes a task of either version; `id` and `status.state` are required.
    pub fn decode(value: &Value) -> Result<Self, DecodeError> {
        Self::decode_at(value, "")
    }

    pub(crate) fn decode_at(value: &Value, path: &str) -> Result<Self, DecodeError> {
        let obj = as_object(value, path)?;
        let id = req_str(obj, "id", path)?;
        let status_path = join(path, "status");
        let status = match present(obj, "status") {
            Some(s) => TaskStatus::decode_at(s, &status_path)?,
            None => return Err(DecodeError::missing(status_path)),
        };
        let artifacts_path = join(path, "artifacts");
        let artifacts = array(obj, "artifacts")
            .iter()
            .enumerate()
            .map(|(i, a)| Artifact::decode_at(a, &index(&artifacts_path, i)))
            .collect::<Result<Vec<_>, _>>()?;
        let history_path = join(path, "history");
        let history = array(obj, "history")
            .iter()
            .enumerate()
            .map(|(i, m)| Message::decode_at(m, &index(&history_path, i)))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Task {
            id,
            context_id: opt_str(obj, "contextId"),
            status,
            artifacts,
            history,
            metadata: opt_object(obj, "metadata"),
        })
    }
}

/// One page of a 1.0 `ListTasks` result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskPage {
    /// The tasks, most recently updated first.
    pub tasks: Vec<Task>,
    /// Token for the next page; `None` on the last page (sent as `""`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
    /// Page size the agent applied.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_size: Option<u64>,
    /// Total matching tasks, when the agent reports it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_size: Option<u64>,
}

impl TaskPage {
    /// Decodes a ListTasks result; one undecodable task fails the page.
    pub fn decode(value: &Value) -> Result<Self, DecodeError> {
        let obj = as_object(value, "")?;
        let tasks = array(obj, "tasks")
            .iter()
            .enumerate()
            .map(|(i, t)| Task::decode_at(t, &index("tasks", i)))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(TaskPage {
            tasks,
            next_page_token: opt_str(obj, "nextPageToken"),
            page_size: opt_u64(obj, "pageSize"),
            total_size: opt_u64(obj, "totalSize"),
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn states_in_both_spellings() {
        let pairs = [
            ("TASK_STATE_SUBMITTED", "submitted", TaskState::Submitted),
            ("TASK_STATE_WORKING", "working", TaskState::Working),
            (
                "TASK_STATE_INPUT_REQUIRED",
                "input-required",
                TaskState::InputRequired,
            ),
            (
                "TASK_STATE_AUTH_REQUIRED",
                "auth-required",
                TaskState::AuthRequired,
            ),
            ("TASK_STATE_COMPLETED", "completed", TaskState::Completed),
            ("TASK_STATE_CANCELED", "canceled", TaskState::Canceled),
            ("TASK_STATE_FAILED", "failed", TaskState::Failed),
            ("TASK_STATE_REJECTED", "rejected", TaskState::Rejected),
            ("TASK_STATE_UNSPECIFIED", "unknown", TaskState::Unspecified),
        ];
        for (v1, v03, state) in pairs {
            assert_eq!(TaskState::parse(v1), state);
            assert_eq!(TaskState::parse(v03), state);
            assert_eq!(state.as_v1_str(), v1);
            assert_eq!(state.as_v03_str(), v03);
        }
        assert_eq!(
            TaskState::parse("paused-ish"),
            TaskState::Other("paused-ish".into())
        );
        assert_eq!(
            serde_json::to_value(TaskState::Working).expect("ser"),
            json!("TASK_STATE_WORKING")
        );
        assert_eq!(
            serde_json::from_value::<TaskState>(json!("failed")).expect("de"),
            TaskState::Failed
        );
    }

    #[test]
    fn terminal_and_paused() {
        let terminal: Vec<_> = ["completed", "failed", "canceled", "rejected"]
            .map(TaskState::parse)
            .into();
        assert!(terminal.iter().all(TaskState::is_terminal));
        assert!(terminal.iter().all(|s| !s.is_paused()));
        assert!(TaskState::InputRequired.is_paused() && TaskState::AuthRequired.is_paused());
        assert!(!TaskState::Working.ends_stream() && !TaskState::Submitted.is_terminal());
        assert!(TaskState::AuthRequired.ends_stream());
        assert!(!TaskState::Other("x".into()).ends_stream());
    }

    #[test]
    fn v1_task_with_python_quirks() {
        let t = Task::decode(&json!({
            "id": "t1", "contextId": "c1",
            "status": {"state": "TASK_STATE_INPUT_REQUIRED", "timestamp": "2026-01-01T00:00:00.000Z",
                       "message": {"messageId": "q", "role": "ROLE_AGENT", "parts": [{"text": "Which?", "filename": "", "mediaType": ""}]}},
            "artifacts": [{"artifactId": "a", "parts": [{"data": {"n": 1.0}}], "extensions": []}],
            "history": [], "metadata": {}
        }))
        .expect("task");
        assert_eq!(t.id, "t1");
        assert_eq!(t.status.state, TaskState::InputRequired);
        assert_eq!(
            t.status.message.as_ref().map(Message::text).as_deref(),
            Some("Which?")
        );
        assert_eq!(t.artifacts.len(), 1);
        assert_eq!(t.metadata, None);
    }

    #[test]
    fn v03_task() {
        let t = Task::decode(&json!({
            "kind": "task", "id": "t2", "contextId": "c",
            "status": {"state": "completed"},
            "history": [{"kind": "message", "messageId": "m", "role": "user", "parts": [{"kind": "text", "text": "hi"}]}]
        }))
        .expect("task");
        assert_eq!(t.status.state, TaskState::Completed);
        assert_eq!(t.history[0].text(), "hi");
    }

    #[test]
    fn required_fields() {
        assert_eq!(
            Task::decode(&json!({"status": {"state": "working"}})),
            Err(DecodeError::missing("id"))
        );
        assert_eq!(
            Task::decode(&json!({"id": "t"})),
            Err(DecodeError::missing("status"))
        );
        assert_eq!(
            Task::decode(&json!({"id": "t", "status": {}})),
            Err(DecodeError::missing("status.state"))
        );
        assert_eq!(
            Task::decode(&json!({"id": "t", "status": {"state": "working"}, "history": [{"role": "user"}]})),
            Err(DecodeError::missing("history[0].messageId"))
        );
    }

    #[test]
    fn list_tasks_page() {
        let page = TaskPage::decode(&json!({
            "tasks": [{"id": "t", "status": {"state": "TASK_STATE_WORKING"}}],
            "nextPageToken": "", "pageSize": 25.0, "totalSize": 1
        }))
        .expect("page");
        assert_eq!(page.tasks.len(), 1);
        assert_eq!(page.next_page_token, None);
        assert_eq!(page.page_size, Some(25));
        assert_eq!(page.total_size, Some(1));
    }
}
