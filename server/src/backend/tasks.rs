//! The Chat and Tasks screens' backend: queries from the projections, sends and cancels as
//! durable commands.

use app::api::BoxFuture;
use app::api::idempotency;
use app::api::tasks::{
    CommandView, ConversationSummary, ConversationView, LedgerEvent, SendInput, TASK_PAGE_SIZE, TaskFilter,
    TaskPage, TasksBackend, WIRE_HISTORY,
};
use app::error::AppError;
use app::projection::{TaskKind, TaskView};
use serde_json::{Map, Value};

use super::store_error;
use crate::services::commands::{self, CommandBody, CommandConfig, CommandError, NewCommand};
use crate::state::AppState;
use crate::store::agents as agent_store;
use crate::store::tasks as task_store;
use crate::store::{organizations, subscriptions};

/// Conversations on the Chat landing.
pub const RECENT_CONVERSATIONS: u64 = 50;

pub(super) struct Tasks(pub AppState);

pub(super) fn command_error(error: CommandError) -> AppError {
    match error {
        CommandError::Invalid(message) => AppError::Invalid {
            field: "message".into(),
            message,
        },
        CommandError::Conflict(message) => AppError::Conflict(message.to_owned()),
        CommandError::UnknownAgent | CommandError::TaskNotFound => AppError::NotFound,
        CommandError::Forbidden(message) => AppError::Forbidden(message),
        CommandError::Store(error) => store_error(error),
    }
}

impl Tasks {
    async fn organization(&self) -> Result<String, AppError> {
        Ok(organizations::local(&self.0.db).await.map_err(store_error)?.id)
    }

    /// What the console adds to its own sends to an agent whose stored card advertises A2UI
    /// (reference §1.4): the A2UI URI after the Settings URIs, and `a2uiClientCapabilities` in
    /// the message metadata. API callers pass these themselves, as with the original.
    async fn a2ui_additions(
        &self,
        agent_id: &str,
        mut extensions: Vec<String>,
        metadata: Option<Map<String, Value>>,
    ) -> Result<(Vec<String>, Map<String, Value>), AppError> {
        use app::ext::a2ui::{A2UI_CLIENT_CAPABILITIES_KEY, client_capabilities_metadata};
        let mut metadata = metadata.unwrap_or_default();
        let card = crate::store::card_snapshots::latest(&self.0.db, agent_id)
            .await
            .map_err(store_error)?;
        let advertised = card.and_then(|c| app::ext::negotiation::a2ui_advertised(&c.raw_card_json));
        if let Some((uri, version)) = advertised {
            if !extensions.iter().any(|e| e == uri) {
                extensions.push(uri.to_owned());
            }
            metadata.insert(
                A2UI_CLIENT_CAPABILITIES_KEY.to_owned(),
                client_capabilities_metadata(version),
            );
        }
        Ok((extensions, metadata))
    }

    async fn conversation(&self, conversation_id: String) -> Result<ConversationView, AppError> {
        let org = self.organization().await?;
        if uuid::Uuid::parse_str(&conversation_id).is_err() {
            return Err(AppError::NotFound);
        }
        // Commands first: a command that succeeds between the two reads committed its task in
        // the same transaction, so the tasks read after it sees that task. Read the other way
        // round, a new chat's first command could succeed in between and the conversation
        // would look empty (404) right after the send.
        let commands: Vec<CommandView> = commands::of_conversation(&self.0.db, &org, &conversation_id)
            .await
            .map_err(store_error)?
            .iter()
            .map(commands::view)
            .filter(|c| c.task_id.is_none() || c.status != "succeeded")
            .collect();
        let tasks = task_store::conversation_tasks(&self.0.db.read, &org, &conversation_id)
            .await
            .map_err(store_error)?;
        let agent_id = tasks
            .first()
            .map(|t| t.agent_id.clone())
            .or_else(|| commands.first().map(|c| c.agent_id.clone()))
            .ok_or(AppError::NotFound)?;
        let agent_name = match tasks.first() {
            Some(task) => task.agent_name.clone(),
            None => agent_store::find(&self.0.db, &org, &agent_id)
                .await
                .ok()
                .and_then(|a| a.display_name),
        };
        Ok(ConversationView {
            conversation_id,
            agent_id,
            agent_name,
            remote_context_id: tasks.iter().rev().find_map(|t| t.remote_context_id.clone()),
            last_sequence: tasks.iter().map(|t| t.last_sequence).max().unwrap_or(0),
            tasks,
            commands,
        })
    }

    /// Stores the command under the browser's idempotency key: the same key and content replay
    /// the stored command; other content is refused (`409`, [`commands::KEY_CONFLICT`]).
    async fn accept(
        &self,
        org: String,
        agent_id: &str,
        body: CommandBody,
        conversation_id: String,
        idempotency_key: String,
    ) -> Result<CommandView, AppError> {
        let agent = agent_store::find(&self.0.db, &org, agent_id)
            .await
            .map_err(store_error)?;
        let body = commands::validate(body).map_err(|message| AppError::Invalid {
            field: "message".into(),
            message,
        })?;
        let (command, _) = commands::accept(
            &self.0.db,
            &self.0.bus,
            NewCommand {
                organization_id: org,
                agent,
                body,
                idempotency_key,
                conversation_id: Some(conversation_id),
            },
        )
        .await
        .map_err(command_error)?;
        Ok(commands::view(&command))
    }
}

/// The browser's idempotency key, trimmed: required, 1–255 characters (reference §4.4).
fn required_key(key: Option<String>) -> Result<String, AppError> {
    match key.map(|k| k.trim().to_owned()) {
        Some(key) if idempotency::valid_key(&key) => Ok(key),
        _ => Err(AppError::Invalid {
            field: "idempotencyKey".into(),
            message: idempotency::KEY_REQUIRED.into(),
        }),
    }
}

/// The conversation a send goes to: the chat's, or for a new chat one named after the send's
/// key, so that every attempt of a new chat's first send (a retry, a double click racing the
/// first) has the same content and replays the stored command.
fn send_conversation(org: &str, requested: Option<String>, key: &str) -> Result<String, AppError> {
    use sha2::{Digest, Sha256};
    match requested.filter(|c| !c.is_empty()) {
        Some(id) if uuid::Uuid::parse_str(&id).is_ok() => Ok(id),
        Some(_) => Err(AppError::NotFound),
        None => {
            let digest = Sha256::digest(format!("new chat\0{org}\0{key}"));
            let mut bytes = [0_u8; 16];
            bytes.copy_from_slice(&digest[..16]);
            Ok(uuid::Builder::from_random_bytes(bytes).into_uuid().to_string())
        }
    }
}

fn non_empty(list: &[String]) -> Option<Vec<String>> {
    let list: Vec<String> = list
        .iter()
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .collect();
    (!list.is_empty()).then_some(list)
}

impl TasksBackend for Tasks {
    fn list_tasks(&self, filter: TaskFilter, offset: u64) -> BoxFuture<'_, Result<TaskPage, AppError>> {
        Box::pin(async move {
            let org = self.organization().await?;
            task_store::list(&self.0.db.read, &org, filter, offset, TASK_PAGE_SIZE)
                .await
                .map_err(store_error)
        })
    }

    fn get_task(&self, task_id: String) -> BoxFuture<'_, Result<TaskView, AppError>> {
        Box::pin(async move {
            let org = self.organization().await?;
            task_store::view(&self.0.db.read, &org, &task_id)
                .await
                .map_err(store_error)
        })
    }

    fn list_conversations(&self) -> BoxFuture<'_, Result<Vec<ConversationSummary>, AppError>> {
        Box::pin(async move {
            let org = self.organization().await?;
            task_store::conversations(&self.0.db.read, &org, RECENT_CONVERSATIONS)
                .await
                .map_err(store_error)
        })
    }

    fn get_conversation(&self, conversation_id: String) -> BoxFuture<'_, Result<ConversationView, AppError>> {
        Box::pin(self.conversation(conversation_id))
    }

    fn conversation_events(
        &self,
        conversation_id: String,
    ) -> BoxFuture<'_, Result<Vec<LedgerEvent>, AppError>> {
        Box::pin(async move {
            let org = self.organization().await?;
            if uuid::Uuid::parse_str(&conversation_id).is_err() {
                return Err(AppError::NotFound);
            }
            task_store::conversation_tail(&self.0.db.read, &org, &conversation_id, WIRE_HISTORY)
                .await
                .map_err(store_error)
        })
    }

    fn send(&self, input: SendInput) -> BoxFuture<'_, Result<CommandView, AppError>> {
        Box::pin(async move {
            let key = required_key(input.idempotency_key)?;
            let org = self.organization().await?;
            let conversation_id = send_conversation(&org, input.conversation_id, &key)?;
            let task_id = match input.task_id.filter(|t| !t.is_empty()) {
                Some(local) => {
                    let task = task_store::find(&self.0.db.read, &org, &local)
                        .await
                        .map_err(store_error)?;
                    if task.conversation_id != conversation_id || task.kind == TaskKind::Message.as_str() {
                        return Err(AppError::Invalid {
                            field: "sendTo".into(),
                            message: "That task is not part of this conversation.".into(),
                        });
                    }
                    task.remote_task_id
                }
                None => None,
            };
            let options = input.options;
            let (extensions, metadata) = self
                .a2ui_additions(&input.agent_id, options.extensions, input.metadata)
                .await?;
            let config = CommandConfig {
                return_immediately: options.return_immediately,
                history_length: options.history_length,
                accepted_output_modes: non_empty(&options.accepted_output_modes),
                reference_task_ids: non_empty(&options.reference_task_ids),
                extensions: non_empty(&extensions),
                metadata: Some(metadata).filter(|m| !m.is_empty()),
                request_metadata: None::<Map<String, Value>>,
            };
            let body = CommandBody {
                text: Some(input.text).filter(|t| !t.trim().is_empty()),
                parts: Some(input.parts).filter(|p| !p.is_empty()),
                // A follow-up keeps its task's skill; the server checks both (reference §1.3).
                skill_id: input.skill_id.filter(|s| !s.is_empty() && task_id.is_none()),
                task_id,
                config: Some(config),
                ..CommandBody::default()
            };
            self.accept(org, &input.agent_id, body, conversation_id, key)
                .await
        })
    }

    fn cancel(
        &self,
        task_id: String,
        idempotency_key: Option<String>,
    ) -> BoxFuture<'_, Result<CommandView, AppError>> {
        Box::pin(async move {
            let key = required_key(idempotency_key)?;
            let org = self.organization().await?;
            let task = task_store::find(&self.0.db.read, &org, &task_id)
                .await
                .map_err(store_error)?;
            let Some(remote) = task.remote_task_id.clone() else {
                return Err(AppError::Conflict(
                    "A direct message reply has no task to cancel.".into(),
                ));
            };
            let body = CommandBody {
                action: Some("cancelTask".into()),
                task_id: Some(remote),
                tenant: Some(task.tenant.clone()).filter(|t| !t.is_empty()),
                ..CommandBody::default()
            };
            self.accept(org, &task.agent_id, body, task.conversation_id, key)
                .await
        })
    }

    fn subscribe(&self, task_id: String) -> BoxFuture<'_, Result<(), AppError>> {
        Box::pin(async move {
            let org = self.organization().await?;
            let task = task_store::find(&self.0.db.read, &org, &task_id)
                .await
                .map_err(store_error)?;
            if task.remote_task_id.is_none() || app::a2a::TaskState::parse(&task.state).is_terminal() {
                return Err(AppError::Conflict(
                    "The task is finished; there is nothing to follow.".into(),
                ));
            }
            subscriptions::rearm(&self.0.db, &task).await.map_err(store_error)
        })
    }
}
