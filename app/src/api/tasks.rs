//! Server functions of the Chat and Tasks screens: sends, cancels and queries. Every send is
//! stored as a command before anything leaves (`shared/spec/security-and-durability.md` §3.4);
//! the views come from committed projections, and live changes arrive over the ledger stream
//! (`/api/live/…`, decoded in the browser with [`crate::projection`]).

use leptos::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::a2a::TaskState;
use crate::error::AppError;
use crate::projection::{TaskKind, TaskView};
pub use crate::words::{CommandAction, CommandStatus};

/// Rows per page of the task list.
pub const TASK_PAGE_SIZE: u64 = 50;

/// Stored ledger events the Wire panel loads when it opens (the newest ones).
pub const WIRE_HISTORY: u64 = 200;

/// HTTP exchanges the Wire panel lists for a conversation (the newest ones).
pub const WIRE_EXCHANGES: u64 = 200;

/// One HTTP request a worker made to the conversation's agent and what came back (issue #32:
/// the Wire panel as an inspector). Headers carry every secret replaced by `[redacted]`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WireExchange {
    pub id: String,
    /// The local task, once the exchange had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    /// The A2A operation (`SendStreamingMessage`, `GetTask`, …).
    pub operation: String,
    pub method: String,
    pub url: String,
    /// The HTTP status; absent when no answer came.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// Milliseconds from sending to the response head (a stream's events come later).
    pub latency_ms: u32,
    /// Why no answer came.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub request_headers: Vec<(String, String)>,
    pub response_headers: Vec<(String, String)>,
    /// RFC 3339.
    pub started_at: String,
}

/// Narrows the task list beyond its filter (the Tasks screen's search box and agent choice;
/// the `list_tasks` server function and `GET /api/tasks?q=&agentId=`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskSearch {
    /// Words that must each appear in the title or the remote task id, any case; blank: none.
    pub text: String,
    /// Only this agent's tasks; empty: every agent.
    pub agent_id: String,
}

/// The longest search text accepted.
pub const MAX_SEARCH_CHARS: usize = 200;
/// The refusal of a longer one.
pub const SEARCH_TOO_LONG: &str = "Search text is at most 200 characters.";

impl TaskSearch {
    /// The search's words, lowercased; `Err` with [`SEARCH_TOO_LONG`] for a text over the limit.
    pub fn words(&self) -> Result<Vec<String>, &'static str> {
        if self.text.chars().count() > MAX_SEARCH_CHARS {
            return Err(SEARCH_TOO_LONG);
        }
        Ok(self.text.split_whitespace().map(str::to_lowercase).collect())
    }
}

/// The task list filters (`GET /api/tasks?filter=`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum TaskFilter {
    #[default]
    All,
    /// Submitted or working.
    Active,
    /// Input or auth required ("Needs you").
    NeedsInput,
    /// Everything that is neither active nor waiting: completed, failed, canceled, rejected,
    /// direct message replies, and states the console does not know.
    Done,
}

impl TaskFilter {
    /// Every filter, in the order the chips show.
    pub const ALL: [TaskFilter; 4] = [
        TaskFilter::All,
        TaskFilter::Active,
        TaskFilter::NeedsInput,
        TaskFilter::Done,
    ];

    /// The query value.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskFilter::All => "all",
            TaskFilter::Active => "active",
            TaskFilter::NeedsInput => "needs-input",
            TaskFilter::Done => "done",
        }
    }

    /// The chip label.
    pub fn label(self) -> &'static str {
        match self {
            TaskFilter::All => "All",
            TaskFilter::Active => "Active",
            TaskFilter::NeedsInput => "Needs you",
            TaskFilter::Done => "Done",
        }
    }

    /// Parses a query value; `None` for anything else (`400 Invalid task filter.`).
    pub fn parse(value: &str) -> Option<TaskFilter> {
        TaskFilter::ALL.into_iter().find(|f| f.as_str() == value)
    }
}

impl std::str::FromStr for TaskFilter {
    type Err = ();

    /// [`TaskFilter::parse`], for typed query parameters.
    fn from_str(value: &str) -> Result<TaskFilter, ()> {
        TaskFilter::parse(value).ok_or(())
    }
}

/// One row of the task list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskSummary {
    pub local_id: String,
    pub kind: TaskKind,
    pub agent_id: String,
    pub agent_name: Option<String>,
    pub conversation_id: String,
    pub remote_task_id: Option<String>,
    pub remote_context_id: Option<String>,
    pub tenant: String,
    pub state: TaskState,
    pub title: String,
    pub created_at: String,
    pub updated_at: String,
}

/// One page of the task list, newest first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskPage {
    pub tasks: Vec<TaskSummary>,
    pub offset: u64,
    pub has_more: bool,
}

/// A recent conversation on the Chat landing.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConversationSummary {
    pub conversation_id: String,
    pub agent_id: String,
    pub agent_name: Option<String>,
    pub title: String,
    pub task_count: u64,
    /// The state of its newest task.
    pub state: TaskState,
    pub updated_at: String,
}

/// A stored send or cancel and how its dispatch went.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CommandView {
    pub id: String,
    pub agent_id: String,
    pub action: CommandAction,
    /// The A2A `messageId`, fixed when the command was accepted.
    pub message_id: String,
    pub status: CommandStatus,
    pub error: Option<String>,
    /// The local task the outcome landed in, once known.
    pub task_id: Option<String>,
    pub conversation_id: Option<String>,
    /// The text of the message, shown as the pending bubble.
    pub text: String,
    pub created_at: String,
}

impl CommandView {
    /// Still on its way (not yet succeeded, failed or uncertain).
    pub fn in_flight(&self) -> bool {
        matches!(self.status, CommandStatus::Pending | CommandStatus::Dispatching)
    }
}

/// One conversation (a chat): one context, many tasks, plus sends not yet settled.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConversationView {
    pub conversation_id: String,
    pub agent_id: String,
    pub agent_name: Option<String>,
    pub remote_context_id: Option<String>,
    /// Oldest first.
    pub tasks: Vec<TaskView>,
    /// Commands of this conversation that have no task yet or did not succeed.
    pub commands: Vec<CommandView>,
    /// The highest ledger sequence included; the live stream resumes after it.
    pub last_sequence: i64,
}

/// Per-request options of a send (the chat's Options panel).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SendOptions {
    #[serde(default)]
    pub return_immediately: Option<bool>,
    #[serde(default)]
    pub history_length: Option<u64>,
    #[serde(default)]
    pub accepted_output_modes: Vec<String>,
    #[serde(default)]
    pub reference_task_ids: Vec<String>,
    /// Settings' "Extension URIs activated on every request" (reference §2.2 caller URIs).
    #[serde(default)]
    pub extensions: Vec<String>,
}

/// A send from the chat composer.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SendInput {
    pub agent_id: String,
    /// The conversation to send in; `None` starts a new one.
    pub conversation_id: Option<String>,
    /// The local task to continue (reply to a waiting task, follow up on a running one);
    /// `None` starts a new task in the conversation's context.
    pub task_id: Option<String>,
    pub text: String,
    /// Further A2A 1.0 part JSON objects (files, data) after the text.
    pub parts: Vec<Value>,
    pub options: SendOptions,
    /// The skill a new task is restricted to (skill routing, reference §1.3); a follow-up
    /// keeps its task's skill.
    #[serde(default)]
    pub skill_id: Option<String>,
    /// Extra message metadata (A2UI actions add none beyond what the server adds).
    #[serde(default)]
    pub metadata: Option<serde_json::Map<String, Value>>,
    /// The draft's idempotency key ([`crate::api::idempotency`]), 1–255 characters, required:
    /// the same key with the same content replays the stored command, with other content it is
    /// refused (`409`). Not part of the command's content.
    #[serde(default)]
    pub idempotency_key: Option<String>,
}

impl SendInput {
    /// An answer on `task` (a reply to its prompt, an A2UI action, a form's submission) made of
    /// `parts`; the caller adds text when there is any.
    pub fn on_task(task: &TaskView, parts: Vec<Value>) -> SendInput {
        SendInput {
            agent_id: task.agent_id.clone(),
            conversation_id: Some(task.conversation_id.clone()),
            task_id: Some(task.local_id.clone()),
            parts,
            ..SendInput::default()
        }
    }
}

/// One committed ledger event, as the live stream sends it (`data:` of an SSE frame whose
/// `id:` is the sequence).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LedgerEvent {
    pub sequence: i64,
    /// The local task id.
    pub task_id: String,
    pub conversation_id: String,
    /// `command_response`, `stream`, `reconcile`, `command`.
    pub source: String,
    /// The stored A2A event (a stream response object; inline bytes replaced by archive URLs).
    pub payload: Value,
    /// Sideband extension URIs negotiated for the exchange that produced it: what the browser
    /// decodes sideband events under (reference §3.5).
    pub extensions: Vec<String>,
    /// `1.0` or `0.3`: the protocol of the interface it came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol_version: Option<String>,
    pub received_at: String,
}

/// What the Chat and Tasks screens need from the server.
#[cfg(feature = "ssr")]
pub trait TasksBackend: Send + Sync {
    fn list_tasks(
        &self,
        filter: TaskFilter,
        offset: u64,
        search: TaskSearch,
    ) -> crate::api::BoxFuture<'_, Result<TaskPage, AppError>>;
    fn get_task(&self, task_id: String) -> crate::api::BoxFuture<'_, Result<TaskView, AppError>>;
    fn list_conversations(&self) -> crate::api::BoxFuture<'_, Result<Vec<ConversationSummary>, AppError>>;
    fn get_conversation(
        &self,
        conversation_id: String,
    ) -> crate::api::BoxFuture<'_, Result<ConversationView, AppError>>;
    /// The newest [`WIRE_HISTORY`] ledger events of a conversation, oldest first.
    fn conversation_events(
        &self,
        conversation_id: String,
    ) -> crate::api::BoxFuture<'_, Result<Vec<LedgerEvent>, AppError>>;
    /// The newest [`WIRE_EXCHANGES`] HTTP exchanges of a conversation, oldest first.
    fn conversation_exchanges(
        &self,
        conversation_id: String,
    ) -> crate::api::BoxFuture<'_, Result<Vec<WireExchange>, AppError>>;
    fn send(&self, input: SendInput) -> crate::api::BoxFuture<'_, Result<CommandView, AppError>>;
    fn cancel(
        &self,
        task_id: String,
        idempotency_key: Option<String>,
    ) -> crate::api::BoxFuture<'_, Result<CommandView, AppError>>;
    fn subscribe(&self, task_id: String) -> crate::api::BoxFuture<'_, Result<(), AppError>>;
}

/// A page of the task list; `search` and `agent_id` narrow it ([`TaskSearch`]).
#[server(prefix = "/api/fn", endpoint = "list_tasks")]
pub async fn list_tasks(
    filter: TaskFilter,
    offset: u64,
    #[server(default)] search: String,
    #[server(default)] agent_id: String,
) -> Result<TaskPage, AppError> {
    let search = TaskSearch {
        text: search,
        agent_id,
    };
    crate::api::respond(
        async {
            crate::api::backend()?
                .tasks
                .list_tasks(filter, offset, search)
                .await
        }
        .await,
    )
}

/// One task with its timeline, history and artifacts.
#[server(prefix = "/api/fn", endpoint = "get_task")]
pub async fn get_task(task_id: String) -> Result<TaskView, AppError> {
    crate::api::respond(async { crate::api::backend()?.tasks.get_task(task_id).await }.await)
}

/// Recent conversations, newest first.
#[server(prefix = "/api/fn", endpoint = "list_conversations")]
pub async fn list_conversations() -> Result<Vec<ConversationSummary>, AppError> {
    crate::api::respond(async { crate::api::backend()?.tasks.list_conversations().await }.await)
}

/// One conversation with its tasks and unsettled sends.
#[server(prefix = "/api/fn", endpoint = "get_conversation")]
pub async fn get_conversation(conversation_id: String) -> Result<ConversationView, AppError> {
    crate::api::respond(
        async {
            crate::api::backend()?
                .tasks
                .get_conversation(conversation_id)
                .await
        }
        .await,
    )
}

/// The empty conversation a new chat with an agent starts from: the agent's id and its card's
/// name (the card fetched again, as for `get_agent`). A new chat and a stored one are the same
/// type to the chat's page, which renders both the same way.
#[server(prefix = "/api/fn", endpoint = "get_new_conversation")]
pub async fn get_new_conversation(agent_id: String) -> Result<ConversationView, AppError> {
    crate::api::respond(
        async {
            let detail = crate::api::backend()?.agents.get_agent(agent_id).await?;
            Ok(ConversationView {
                conversation_id: String::new(),
                agent_id: detail.id,
                agent_name: detail.card.map(|c| c.name),
                remote_context_id: None,
                tasks: Vec::new(),
                commands: Vec::new(),
                last_sequence: 0,
            })
        }
        .await,
    )
}

/// The stored exchange of a conversation for the Wire panel: its newest ledger events.
#[server(prefix = "/api/fn", endpoint = "get_conversation_events")]
pub async fn get_conversation_events(conversation_id: String) -> Result<Vec<LedgerEvent>, AppError> {
    crate::api::respond(
        async {
            crate::api::backend()?
                .tasks
                .conversation_events(conversation_id)
                .await
        }
        .await,
    )
}

/// The HTTP exchanges of a conversation for the Wire panel: the newest requests the workers
/// made to its agent, with what came back (headers without secrets).
#[server(prefix = "/api/fn", endpoint = "get_conversation_exchanges")]
pub async fn get_conversation_exchanges(conversation_id: String) -> Result<Vec<WireExchange>, AppError> {
    crate::api::respond(
        async {
            crate::api::backend()?
                .tasks
                .conversation_exchanges(conversation_id)
                .await
        }
        .await,
    )
}

/// Stores a send (and its dispatch intent) and returns the command; the agent is called by a
/// worker, not by this request. `input.idempotency_key` is required: a retry with the same key
/// and content returns the same command (issue #26).
// JSON input: the parts are arbitrary A2A JSON, which the default URL encoding cannot carry.
#[server(prefix = "/api/fn", endpoint = "send_message", input = leptos::server_fn::codec::Json)]
pub async fn send_message(input: SendInput) -> Result<CommandView, AppError> {
    crate::api::respond(async { crate::api::backend()?.tasks.send(input).await }.await)
}

/// Stores a CancelTask for the task. `idempotency_key` is required, with the same rules as a
/// send's.
#[server(prefix = "/api/fn", endpoint = "cancel_task")]
pub async fn cancel_task(task_id: String, idempotency_key: Option<String>) -> Result<CommandView, AppError> {
    crate::api::respond(
        async {
            crate::api::backend()?
                .tasks
                .cancel(task_id, idempotency_key)
                .await
        }
        .await,
    )
}

/// Asks the workers to follow the task again (SubscribeToTask, or GetTask polling).
#[server(prefix = "/api/fn", endpoint = "subscribe_task")]
pub async fn subscribe_task(task_id: String) -> Result<(), AppError> {
    crate::api::respond(async { crate::api::backend()?.tasks.subscribe(task_id).await }.await)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_round_trip_and_reject_unknown_values() {
        for filter in TaskFilter::ALL {
            assert_eq!(TaskFilter::parse(filter.as_str()), Some(filter));
        }
        assert_eq!(TaskFilter::parse("mine"), None);
        assert_eq!(TaskFilter::parse(""), None);
    }

    #[test]
    fn send_options_refuse_unknown_keys() {
        let err =
            serde_json::from_value::<SendOptions>(serde_json::json!({"returnImmediately": true, "x": 1}));
        assert!(err.is_err());
    }
}
