//! The retries of the HTTP+JSON binding (`docs/reference/a2a-0.3-http-json.md`): `:subscribe` with GET
//! after a 405 to POST, the 0.3 push-config create with the second SDK's body, and an SSE
//! `event: error` read as the agent's error. Nothing here is remembered between calls.

use app::a2a::{ErrorCode, Operation, ProtocolVersion, RestError, Transport};
use serde_json::Value;

use super::endpoint::Endpoint;
use super::error::GatewayError;

/// Which form of a REST request to send.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Attempt {
    /// The request as the route table and the encoders build it.
    First,
    /// `:subscribe` with GET after a 405 to POST.
    Get,
    /// The 0.3 push-config create with the @a2a-js/sdk body.
    AltBody,
}

impl Attempt {
    /// Whether this retry exists for `operation` on `endpoint`.
    pub(crate) fn applies(self, endpoint: &Endpoint, operation: Operation) -> bool {
        let rest = endpoint.transport == Transport::HttpJson;
        match self {
            Attempt::First => true,
            Attempt::Get => rest && operation == Operation::SubscribeToTask,
            Attempt::AltBody => {
                rest && endpoint.version == ProtocolVersion::V0_3
                    && operation == Operation::CreateTaskPushNotificationConfig
            }
        }
    }
}

pub(crate) fn is_invalid_params(error: &GatewayError) -> bool {
    matches!(error, GatewayError::Http { status: 400, .. }) && error.kind() == Some(ErrorCode::InvalidParams)
}

/// An SSE `event: error` of a REST stream (@a2a-js/sdk sends `{"code","message"}` this way once
/// the stream has started) as the HTTP error its code stands for (the SDK's legacy table:
/// -32001 404, -32601 501, -32603 and -32006 500, other A2A codes 400).
pub(crate) fn rest_error_event(data: &str) -> GatewayError {
    let body: Option<Value> = serde_json::from_str(data).ok();
    let code = body.as_ref().and_then(RestError::decode).and_then(|e| e.code);
    let status = match code {
        Some(-32001) => 404,
        Some(-32601) => 501,
        Some(-32603 | -32006) | None => 500,
        Some(_) => 400,
    };
    GatewayError::Http { status, body }
}
