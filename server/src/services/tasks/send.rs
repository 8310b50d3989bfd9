//! Sends, cancels and follows: the console's own sends are assembled here, once, from what the
//! browser chose (the Settings extension URIs, a skill, a task to continue) plus what the console
//! adds for the agent's stored card (A2UI, reference §1.4), then stored as durable commands.
//! Sideband URIs are negotiated by the dispatch worker against the live card, not here.

use app::api::idempotency;
use app::api::tasks::{CommandView, SendInput};
use app::projection::TaskKind;
use serde_json::{Map, Value};

use super::TaskError;
use crate::db::Db;
use crate::db::entity::task;
use crate::ingest::bus::Bus;
use crate::services::commands::{self, CommandBody, CommandConfig, NewCommand};
use crate::store::StoreError;
use crate::store::access::Access;
use crate::store::agents as agent_store;
use crate::store::tasks as task_store;
use crate::store::{card_snapshots, subscriptions};

/// Stores a send of the Chat screen under the browser's idempotency key: the same key and
/// content replay the stored command; other content is refused ([`commands::KEY_CONFLICT`]).
pub async fn send(db: &Db, bus: &Bus, access: &Access, input: SendInput) -> Result<CommandView, TaskError> {
    let key = required_key(input.idempotency_key)?;
    let conversation_id = send_conversation(&access.organization_id, input.conversation_id, &key)?;
    let task_id = match input.task_id.filter(|t| !t.is_empty()) {
        Some(local) => continued_task(db, access, &local, &conversation_id).await?,
        None => None,
    };
    let options = input.options;
    let (extensions, metadata) =
        a2ui_additions(db, &input.agent_id, options.extensions, input.metadata).await?;
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
    accept(db, bus, access, &input.agent_id, body, conversation_id, key).await
}

/// Stores a `cancelTask` for the task's remote id under the browser's idempotency key.
pub async fn cancel(
    db: &Db,
    bus: &Bus,
    access: &Access,
    task_id: &str,
    idempotency_key: Option<String>,
) -> Result<CommandView, TaskError> {
    let key = required_key(idempotency_key)?;
    let task = task_store::find(&db.read, access, task_id).await?;
    let Some(remote) = task.remote_task_id.clone() else {
        return Err(TaskError::Conflict(
            "A direct message reply has no task to cancel.".into(),
        ));
    };
    let body = CommandBody {
        action: Some("cancelTask".into()),
        task_id: Some(remote),
        tenant: Some(task.tenant.clone()).filter(|t| !t.is_empty()),
        ..CommandBody::default()
    };
    accept(db, bus, access, &task.agent_id, body, task.conversation_id, key).await
}

/// Starts following an unfinished task again (its subscription is re-armed).
pub async fn follow(db: &Db, access: &Access, task_id: &str) -> Result<(), TaskError> {
    let task = task_store::find(&db.read, access, task_id).await?;
    if !access.operates(&task.agent_id, task.skill_id.as_deref()) {
        return Err(TaskError::Command(
            crate::services::commands::CommandError::Forbidden(
                crate::services::commands::NOT_PERMITTED.into(),
            ),
        ));
    }
    if task.remote_task_id.is_none() || task.state.is_terminal() {
        return Err(TaskError::Conflict(
            "The task is finished; there is nothing to follow.".into(),
        ));
    }
    Ok(subscriptions::rearm(db, &task).await?)
}

/// Why a readable task cannot be followed again: the caller's grant on it is `read` only.
pub const NOT_OPERABLE: &str = crate::services::commands::NOT_PERMITTED;

/// The agent's task by its remote id, its subscription re-armed when it is unfinished (the
/// API's `resubscribe`). `Conflict(NOT_OPERABLE)` when the caller only reads it.
pub async fn resubscribe(
    db: &Db,
    access: &Access,
    agent_id: &str,
    tenant: &str,
    remote_task_id: &str,
) -> Result<task::Model, StoreError> {
    let found = task_store::find_remote(
        &db.read,
        &access.organization_id,
        agent_id,
        tenant,
        remote_task_id,
    )
    .await?;
    // A task the caller cannot read is not found (§1.3); following needs `operate` on it.
    if !access.reads(&found.agent_id, found.skill_id.as_deref()) {
        return Err(StoreError::NotFound);
    }
    if !access.operates(&found.agent_id, found.skill_id.as_deref()) {
        return Err(StoreError::Conflict(NOT_OPERABLE));
    }
    if !found.state.is_terminal() {
        subscriptions::rearm(db, &found).await?;
    }
    Ok(found)
}

/// The remote id of the task a send continues, which must be a task of the send's conversation.
async fn continued_task(
    db: &Db,
    access: &Access,
    local: &str,
    conversation_id: &str,
) -> Result<Option<String>, TaskError> {
    let task = task_store::find(&db.read, access, local).await?;
    if task.conversation_id != conversation_id || task.kind == TaskKind::Message {
        return Err(TaskError::Invalid {
            field: "sendTo",
            message: "That task is not part of this conversation.".into(),
        });
    }
    Ok(task.remote_task_id)
}

/// What the console adds to its own sends to an agent whose stored card advertises A2UI
/// (reference §1.4): the A2UI URI after the Settings URIs, and `a2uiClientCapabilities` in
/// the message metadata. API callers pass these themselves, as with the original.
async fn a2ui_additions(
    db: &Db,
    agent_id: &str,
    mut extensions: Vec<String>,
    metadata: Option<Map<String, Value>>,
) -> Result<(Vec<String>, Map<String, Value>), StoreError> {
    use app::ext::a2ui::{A2UI_CLIENT_CAPABILITIES_KEY, client_capabilities_metadata};
    let mut metadata = metadata.unwrap_or_default();
    let card = card_snapshots::latest(db, agent_id).await?;
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

/// Validates and stores the command in the conversation.
async fn accept(
    db: &Db,
    bus: &Bus,
    access: &Access,
    agent_id: &str,
    body: CommandBody,
    conversation_id: String,
    idempotency_key: String,
) -> Result<CommandView, TaskError> {
    let agent = agent_store::find(db, access, agent_id).await?;
    let body = commands::validate(body).map_err(|message| TaskError::Invalid {
        field: "message",
        message,
    })?;
    let new = NewCommand {
        access: access.clone(),
        agent,
        body,
        idempotency_key,
        conversation_id: Some(conversation_id),
    };
    let (command, _) = commands::accept(db, bus, new).await?;
    Ok(commands::view(&command))
}

/// The browser's idempotency key, trimmed: required, 1–255 characters (reference §4.4).
fn required_key(key: Option<String>) -> Result<String, TaskError> {
    match key.map(|k| k.trim().to_owned()) {
        Some(key) if idempotency::valid_key(&key) => Ok(key),
        _ => Err(TaskError::Invalid {
            field: "idempotencyKey",
            message: idempotency::KEY_REQUIRED.into(),
        }),
    }
}

/// The conversation a send goes to: the chat's, or for a new chat one named after the send's
/// key, so that every attempt of a new chat's first send (a retry, a double click racing the
/// first) has the same content and replays the stored command.
fn send_conversation(
    organization_id: &str,
    requested: Option<String>,
    key: &str,
) -> Result<String, TaskError> {
    use sha2::{Digest, Sha256};
    match requested.filter(|c| !c.is_empty()) {
        Some(id) if uuid::Uuid::parse_str(&id).is_ok() => Ok(id),
        Some(_) => Err(TaskError::NotFound),
        None => {
            let digest = Sha256::digest(format!("new chat\0{organization_id}\0{key}"));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_chat_is_named_after_the_key_and_a_bad_id_is_not_found() {
        let first = send_conversation("org", None, "k1").unwrap();
        assert_eq!(
            send_conversation("org", Some(String::new()), "k1").unwrap(),
            first
        );
        assert_ne!(send_conversation("org", None, "k2").unwrap(), first);
        assert_ne!(send_conversation("other", None, "k1").unwrap(), first);
        assert_eq!(
            send_conversation("org", Some(first.clone()), "k9").unwrap(),
            first
        );
        assert!(matches!(
            send_conversation("org", Some("nope".into()), "k1"),
            Err(TaskError::NotFound)
        ));
    }

    #[test]
    fn a_key_is_required_and_trimmed() {
        assert_eq!(required_key(Some(" k ".into())).unwrap(), "k");
        for missing in [None, Some("  ".into()), Some("x".repeat(256))] {
            assert!(matches!(
                required_key(missing),
                Err(TaskError::Invalid {
                    field: "idempotencyKey",
                    ..
                })
            ));
        }
    }

    #[test]
    fn blank_list_entries_are_dropped() {
        assert_eq!(non_empty(&[" a ".into(), " ".into()]), Some(vec!["a".into()]));
        assert_eq!(non_empty(&[" ".into()]), None);
    }
}
