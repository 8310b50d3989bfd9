//! Assembling what a command sends: the user message, the send parameters, and whether the
//! send stream is kept. Pure: no I/O.

use app::a2a::{AgentCard, Message, Part, Role, SendConfiguration, SendParams, encode_send_params};
use app::ext::{negotiation, skill_routing};
use serde_json::Value;

use super::DEFAULT_OUTPUT_MODES;
use crate::db::entity::task_command;
use crate::gateway::Endpoint;
use crate::services::commands::CommandBody;

/// Whether a send goes out as `SendStreamingMessage` and its stream is kept: the agent streams,
/// and the caller did not ask for a blocking answer (`returnImmediately: false` wants the
/// command's result to be the task as it paused or finished, which only `SendMessage` gives;
/// nothing is left to follow after such an answer).
pub(super) fn keeps_send_stream(live_card: &Value, body: &CommandBody) -> bool {
    let blocking = body
        .config
        .as_ref()
        .and_then(|c| c.return_immediately)
        .is_some_and(|immediately| !immediately);
    !blocking && AgentCard::decode(live_card).is_ok_and(|card| card.capabilities.streaming)
}

/// The message sent: the caller's parts, and the extension list and metadata of reference §2.2
/// (caller URIs, the skill-routing URI when the command is bound to a skill, the negotiated
/// sideband URIs; no caller-supplied routing metadata).
pub(super) fn user_message(
    command: &task_command::Model,
    body: &CommandBody,
    context_id: Option<String>,
    negotiated: &[String],
) -> Message {
    let mut parts = Vec::new();
    if let Some(text) = body.text.as_deref().filter(|t| !t.trim().is_empty()) {
        parts.push(Part {
            media_type: Some("text/plain".into()),
            ..Part::text(text)
        });
    }
    parts.extend(body.parts.iter().flatten().filter_map(|p| Part::decode(p).ok()));
    let config = body.config.clone().unwrap_or_default();
    let mut metadata = config.metadata;
    if let Some(metadata) = metadata.as_mut() {
        skill_routing::strip_caller_routing(metadata);
    }
    Message {
        message_id: command.message_id.clone(),
        role: Role::User,
        parts,
        context_id,
        task_id: body.task_id.clone(),
        metadata,
        extensions: negotiation::message_extensions(
            &config.extensions.unwrap_or_default(),
            command.skill_id.is_some(),
            None,
            negotiated,
        ),
        reference_task_ids: config.reference_task_ids.unwrap_or_default(),
    }
}

pub(super) fn send_params(
    message: &Message,
    body: &CommandBody,
    endpoint: &Endpoint,
    skill: Option<&str>,
) -> Value {
    let config = body.config.clone().unwrap_or_default();
    // Request-level routing is written by the server only (reference §1.3 rules 6, 8, 9).
    let mut request_metadata = config.request_metadata.unwrap_or_default();
    skill_routing::strip_caller_routing(&mut request_metadata);
    if let Some(skill) = skill {
        let (key, value) = skill_routing::routing_metadata(skill);
        request_metadata.insert(key, value);
    }
    let params = SendParams {
        // The request's tenant when the caller named one (the interface's tenant is added by the
        // gateway otherwise).
        tenant: body.tenant.clone().filter(|t| !t.is_empty()),
        message: message.clone(),
        configuration: Some(SendConfiguration {
            accepted_output_modes: config
                .accepted_output_modes
                .filter(|modes| !modes.is_empty())
                .unwrap_or_else(|| DEFAULT_OUTPUT_MODES.iter().map(|m| (*m).to_owned()).collect()),
            history_length: config.history_length,
            // The console asks for an immediate answer and follows progress separately.
            return_immediately: config.return_immediately.unwrap_or(true),
            push: None,
        }),
        metadata: Some(request_metadata).filter(|m| !m.is_empty()),
    };
    encode_send_params(&params, endpoint.version)
}

pub(super) fn context_of(event: &app::a2a::StreamEvent) -> Option<String> {
    match event {
        app::a2a::StreamEvent::Task(t) => t.context_id.clone(),
        app::a2a::StreamEvent::Message(m) => m.context_id.clone(),
        app::a2a::StreamEvent::StatusUpdate(u) => u.context_id.clone(),
        app::a2a::StreamEvent::ArtifactUpdate(u) => u.context_id.clone(),
    }
}
