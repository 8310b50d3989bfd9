//! Accepting sends and cancels as durable commands (`shared/spec/security-and-durability.md`
//! §3.4, `shared/spec/reference.md` §4.4): the command row and its outbox row are written in
//! one transaction before anything goes out; the A2A `messageId` is fixed here and reused on
//! every attempt. The same idempotency key with the same content returns the original
//! command; with different content it is refused.

mod body;

use chrono::Utc;
use sea_orm::{DatabaseTransaction, TransactionTrait};
use serde_json::{Value, json};

use crate::db::Db;
use crate::db::entity::{agent, task, task_command};
use crate::ingest::archive::digest;
use crate::ingest::bus::{Bus, Notice};
use crate::store::access::Access;
use crate::store::commands::{self as command_store, CommandStatus};
use crate::store::{StoreError, card_snapshots, dispatch, new_id, tasks};

/// A send the sender's grants do not allow (the route's own `403`).
pub const NOT_PERMITTED: &str = "This action is not permitted.";
/// A send under a skill-only grant that would join an existing conversation or context.
pub const SKILL_SEND_NEW_CONTEXT: &str =
    "With access to one skill only, a send must start a new conversation.";
use app::ext::canonical::ledger_json;

pub use self::body::{
    Action, CANCEL_NEEDS_TASK, CommandBody, CommandConfig, KEY_CONFLICT, KEY_REQUIRED, MAX_KEY_CHARS,
    NEEDS_CONTENT, ValidBody, validate,
};
pub use crate::store::dispatch::DISPATCH_TOPIC;

/// Why a command was not accepted.
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    #[error("{0}")]
    Invalid(String),
    #[error("{0}")]
    Conflict(&'static str),
    #[error("Unknown agent.")]
    UnknownAgent,
    #[error("Task not found.")]
    TaskNotFound,
    /// The send names a conversation of another agent (or one its sender cannot read).
    #[error("Conversation not found.")]
    ConversationNotFound,
    /// Refused by a rule (skill routing, reference §1.3); the message says which.
    #[error("{0}")]
    Forbidden(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<sea_orm::DbErr> for CommandError {
    fn from(e: sea_orm::DbErr) -> Self {
        CommandError::Store(StoreError::Db(e))
    }
}

/// A command to accept.
#[derive(Clone, Debug)]
pub struct NewCommand {
    /// Who sends: the organization, and the grants the send must pass (`operate` on the agent, or
    /// on the skill of the task it starts or continues; §1.3).
    pub access: Access,
    pub agent: agent::Model,
    pub body: ValidBody,
    pub idempotency_key: String,
    /// The conversation to send in (the chat's); `None` derives it from the task or context,
    /// or starts a new one.
    pub conversation_id: Option<String>,
}

/// Stores a command and its dispatch intent in one transaction. Returns the command and
/// whether it already existed under this key (a replay).
pub async fn accept(
    db: &Db,
    bus: &Bus,
    new: NewCommand,
) -> Result<(task_command::Model, bool), CommandError> {
    let tx = db.write.begin().await?;
    let (command, replay) = accept_in(&tx, new).await?;
    if replay {
        return Ok((command, true));
    }
    tx.commit().await?;
    publish_accepted(bus, &command);
    Ok((command, false))
}

/// Tells this process's workers about an accepted command.
pub fn publish_accepted(bus: &Bus, command: &task_command::Model) {
    bus.publish(Notice::Command {
        organization_id: command.organization_id.clone(),
        command_id: command.id.clone(),
        conversation_id: command.conversation_id.clone(),
    });
}

/// [`accept`] inside the caller's transaction (an approval's decision and its command commit
/// together). The caller commits, then calls [`publish_accepted`] unless it was a replay.
pub async fn accept_in(
    tx: &DatabaseTransaction,
    new: NewCommand,
) -> Result<(task_command::Model, bool), CommandError> {
    let key = new.idempotency_key.trim().to_owned();
    if key.is_empty() || key.chars().count() > MAX_KEY_CHARS {
        return Err(CommandError::Invalid(KEY_REQUIRED.into()));
    }
    let organization_id = new.access.organization_id.clone();
    let ValidBody { action, body, .. } = new.body;
    let tenant = body.tenant.clone().unwrap_or_default();
    let content = json!({"agentId": new.agent.id, "conversationId": new.conversation_id, "body": body});
    let payload_digest = digest(ledger_json(&content).as_bytes());
    if let Some(existing) = command_store::by_key(tx, &organization_id, &key).await? {
        return replay(&new.access, existing, &payload_digest);
    }
    credential_ready(tx, &new.agent).await?;
    // The task this continues (reference §1.3 rule 2), and the conversation it belongs to.
    let known_task = match &body.task_id {
        Some(remote) => Some(
            tasks::find_remote(tx, &organization_id, &new.agent.id, &tenant, remote)
                .await
                .ok()
                // A task the sender cannot read does not exist for them (§1.3: 404).
                .filter(|t| new.access.reads(&t.agent_id, t.skill_id.as_deref()))
                .ok_or(CommandError::TaskNotFound)?,
        ),
        None => None,
    };
    // Grants first: a skill the sender may not use is refused the same way whether or not the
    // card has it (nothing about hidden skills is revealed).
    let asked = known_task
        .as_ref()
        .map_or_else(|| body.skill_id.clone(), |t| t.skill_id.clone());
    if !new.access.operates(&new.agent.id, asked.as_deref()) {
        return Err(CommandError::Forbidden(NOT_PERMITTED.into()));
    }
    let skill_id = effective_skill(tx, &new.agent, &body, known_task.as_ref()).await?;
    let sender = Sender {
        access: &new.access,
        agent_id: &new.agent.id,
        conversation_id: new.conversation_id.as_deref(),
    };
    permitted(tx, &sender, &body, known_task.as_ref(), skill_id.as_deref()).await?;
    let context_task = match (&known_task, &body.context_id) {
        (None, Some(context)) => tasks::latest_in_context(tx, &new.agent.id, context).await?,
        _ => None,
    };
    let conversation_id = new
        .conversation_id
        .or_else(|| known_task.as_ref().map(|t| t.conversation_id.clone()))
        .or_else(|| context_task.as_ref().map(|t| t.conversation_id.clone()))
        .unwrap_or_else(new_id);
    let now = Utc::now();
    let id = new_id();
    let message_id = body
        .message_id
        .clone()
        .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
    let row = task_command::Model {
        id: id.clone(),
        organization_id: organization_id.clone(),
        agent_id: new.agent.id.clone(),
        conversation_id: Some(conversation_id),
        task_id: known_task.as_ref().map(|t| t.id.clone()),
        tenant,
        action,
        idempotency_key: key.clone(),
        message_id,
        payload_digest: payload_digest.clone(),
        payload_json: serde_json::to_value(&body).map_err(|e| CommandError::Invalid(e.to_string()))?,
        status: CommandStatus::Pending,
        attempts: 0,
        result_json: None,
        last_error: None,
        skill_id,
        created_at: now,
        updated_at: now,
    };
    if !command_store::insert(tx, row).await? {
        // Another request with the same key committed first.
        let existing = command_store::by_key(tx, &organization_id, &key)
            .await?
            .ok_or(CommandError::Store(StoreError::NotFound))?;
        return replay(&new.access, existing, &payload_digest);
    }
    dispatch::enqueue(tx, &organization_id, &id, now).await?;
    let command = command_store::by_id(tx, &id)
        .await?
        .ok_or(CommandError::Store(StoreError::NotFound))?;
    Ok((command, false))
}

/// Whether the sender may send this (§1.3): `operate` on the agent, or on the skill of the task
/// it starts or continues; with only a skill grant, a send that starts a task must also start a
/// new conversation (it may not join another skill's context).
/// Who sends a command, and where.
struct Sender<'a> {
    access: &'a Access,
    agent_id: &'a str,
    conversation_id: Option<&'a str>,
}

async fn permitted(
    tx: &DatabaseTransaction,
    sender: &Sender<'_>,
    body: &CommandBody,
    known_task: Option<&task::Model>,
    skill_id: Option<&str>,
) -> Result<(), CommandError> {
    let access = sender.access;
    if !access.operates(sender.agent_id, skill_id) {
        return Err(CommandError::Forbidden(NOT_PERMITTED.into()));
    }
    // A conversation belongs to one agent: a send names only a new one or its agent's own (it
    // must not borrow another agent's context, nor join a conversation its sender cannot read).
    let conversation_agent = match sender.conversation_id {
        Some(id) => tasks::conversation_agent(tx, &access.organization_id, id).await?,
        None => None,
    };
    if conversation_agent
        .as_deref()
        .is_some_and(|agent| agent != sender.agent_id)
    {
        return Err(CommandError::ConversationNotFound);
    }
    if known_task.is_some() || access.operates(sender.agent_id, None) {
        return Ok(());
    }
    let joins_conversation = conversation_agent.is_some();
    if joins_conversation || body.context_id.is_some() {
        return Err(CommandError::Forbidden(SKILL_SEND_NEW_CONTEXT.into()));
    }
    Ok(())
}

/// The command already accepted under a key: a replay when its content is the same (and the
/// sender reads it: another member's command under the same key is a conflict, not a replay).
fn replay(
    access: &Access,
    existing: task_command::Model,
    payload_digest: &str,
) -> Result<(task_command::Model, bool), CommandError> {
    if !access.reads(&existing.agent_id, existing.skill_id.as_deref()) {
        return Err(CommandError::Conflict(KEY_CONFLICT));
    }
    if existing.payload_digest == payload_digest {
        Ok((existing, true))
    } else {
        Err(CommandError::Conflict(KEY_CONFLICT))
    }
}

/// The skill a send is bound to, checked against the reference §1.3 rules 3, 7 and 8 (there is
/// one operator, with whole-agent access, until grants exist: rules 4 and 7 always pass). A task's
/// skill never changes; a new task takes the body's `skillId`, which the agent's stored card
/// must list together with the skill-routing URI.
async fn effective_skill(
    tx: &DatabaseTransaction,
    agent: &agent::Model,
    body: &CommandBody,
    task: Option<&task::Model>,
) -> Result<Option<String>, CommandError> {
    use app::ext::skill_routing::{self, SkillError};
    if let Some(task) = task {
        if body.skill_id.is_some() && body.skill_id != task.skill_id {
            return Err(CommandError::Forbidden(SkillError::SkillChanged.to_string()));
        }
        if let (Some(context), Some(known)) = (&body.context_id, &task.remote_context_id)
            && context != known
        {
            return Err(CommandError::Forbidden(SkillError::ContextMismatch.to_string()));
        }
    }
    let skill = task.map_or_else(|| body.skill_id.clone(), |t| t.skill_id.clone());
    let Some(skill) = skill else { return Ok(None) };
    let card = card_snapshots::latest_on(tx, &agent.id).await?;
    if !card.is_some_and(|c| skill_routing::card_supports_skill(&c.raw_card_json, &skill)) {
        return Err(CommandError::Forbidden(SkillError::Unsupported.to_string()));
    }
    Ok(Some(skill))
}

/// Refuses a send the agent could only receive without its credential (issue #30): a revoked
/// credential, or none stored while the latest card requires a security scheme. The dispatch
/// checks again (and the vault opens the binding) when it sends.
async fn credential_ready(tx: &DatabaseTransaction, agent: &agent::Model) -> Result<(), CommandError> {
    match crate::store::credentials::find(tx, &agent.organization_id, &agent.id).await? {
        Some(row) if !row.enabled => Err(CommandError::Conflict(crate::vault::DISABLED)),
        Some(_) => Ok(()),
        None => {
            let card = card_snapshots::latest_on(tx, &agent.id).await?;
            let requires = card
                .and_then(|c| app::a2a::AgentCard::decode(&c.raw_card_json).ok())
                .is_some_and(|card| super::credentials::required(&card));
            if requires {
                return Err(CommandError::Conflict(app::api::credentials::NEEDS_CREDENTIALS));
            }
            Ok(())
        }
    }
}

/// A command of the organization by id (`404` for anything else, including non-UUIDs).
pub async fn find(db: &Db, access: &Access, id: &str) -> Result<task_command::Model, StoreError> {
    command_store::find(db, access, id).await
}

/// The commands of a conversation that `access` reads, oldest first.
pub async fn of_conversation(
    db: &Db,
    access: &Access,
    conversation_id: &str,
) -> Result<Vec<task_command::Model>, StoreError> {
    command_store::of_conversation(db, access, conversation_id).await
}

/// The view of a command for the screens (and the `command` frames of the live stream).
pub fn view(command: &task_command::Model) -> app::api::tasks::CommandView {
    let body: CommandBody = serde_json::from_value(command.payload_json.clone()).unwrap_or_default();
    let text = body
        .text
        .clone()
        .filter(|t| !t.trim().is_empty())
        .or_else(|| {
            body.parts
                .iter()
                .flatten()
                .find_map(|p| p.get("text").and_then(Value::as_str).map(str::to_owned))
        })
        .unwrap_or_default();
    app::api::tasks::CommandView {
        id: command.id.clone(),
        agent_id: command.agent_id.clone(),
        action: command.action,
        message_id: command.message_id.clone(),
        status: command.status,
        error: command
            .last_error
            .clone()
            .filter(|_| command.status.is_unsuccessful()),
        task_id: command.task_id.clone(),
        conversation_id: command.conversation_id.clone(),
        text,
        created_at: command
            .created_at
            .to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
    }
}

/// The JSON of a command for the HTTP API (`{id, agentId, tenant, action, messageId, status,
/// result, error, createdAt, updatedAt}`, reference §4.5).
pub fn api_json(command: &task_command::Model) -> Value {
    json!({
        "id": command.id,
        "agentId": command.agent_id,
        "tenant": command.tenant,
        "action": command.action,
        "messageId": command.message_id,
        "status": command.status,
        "result": command.result_json,
        "error": command.last_error.clone().filter(|_| command.status.is_unsuccessful()),
        "createdAt": command.created_at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        "updatedAt": command.updated_at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
    })
}
