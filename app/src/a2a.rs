//! The A2A wire model, 1.0 and 0.3: lenient decoders that normalise both versions into one
//! internal model (with the raw JSON kept beside it), encoders for what the console sends,
//! the method/route table, interface choice and the card compliance report.
//!
//! No I/O: this module compiles to wasm and runs in the browser too. Decoders never panic on
//! any input; a missing required field is a [`DecodeError`].

mod artifact;
mod card;
mod compliance;
mod encode;
mod error;
mod error_code;
mod event;
mod interface;
mod jsonrpc;
mod lenient;
mod message;
mod method;
mod part;
mod push;
mod rest03;
mod rest_error;
mod security;
mod skill;
mod task;
#[cfg(test)]
mod test_json;
mod version;

pub use artifact::Artifact;
pub use card::{
    AgentCapabilities, AgentCard, AgentExtension, AgentProvider, CardSignature, CardVersion, DecodedCard,
    decode_card, decode_card_bytes,
};
pub use compliance::{
    ComplianceIssue, ComplianceReport, ERROR_PENALTY, INTERFACE_REFUSED, MAX_SCORE, Severity,
    WARNING_PENALTY, check_card,
};
pub use encode::{
    SendConfiguration, SendParams, encode_get_task, encode_list_tasks, encode_message, encode_part,
    encode_push_config_list, encode_push_config_ref, encode_send_params, encode_task_id,
};
pub use error::DecodeError;
pub use error_code::{ErrorCode, NAMED_ERROR_CODES};
pub use event::{
    DecodedEvent, EventError, StreamEvent, TaskArtifactUpdate, TaskStatusUpdate, decode_stream_event,
    decode_stream_event_bytes,
};
pub use interface::{
    AgentInterface, Binding, ChosenInterface, GRPC_REFUSED, InterfaceError, InterfacePin, MAX_INTERFACES,
    Transport, choose_interface, dedupe_interfaces,
};
pub use jsonrpc::{
    JSONRPC_VERSION, JsonRpcError, JsonRpcRequest, JsonRpcResponse, RequestId, is_jsonrpc_envelope,
};
pub use lenient::{as_bool, as_i64, as_u64};
pub use message::{Message, Role};
pub use method::{HttpMethod, Operation, RestRoute, RouteParamNames, RouteParams};
pub use part::{Part, PartContent};
pub use push::{PushAuth, PushConfig, decode_push_config_list, push_envelope};
pub use rest_error::RestError;
/// The A2A 0.3 HTTP+JSON wire (ProtoJSON of the 0.3 proto) and its conversions.
pub mod rest03_wire {
    pub use super::rest03::{
        answer_in, message_out, part_out, push_create_bodies, send_request_body, stream_response_in,
    };
}
pub use security::{
    OAuthFlow, OAuthFlows, SecurityRequirement, SecurityScheme, decode_security_requirement,
    decode_security_requirements,
};
pub use skill::AgentSkill;
pub use task::{Task, TaskPage, TaskState, TaskStatus};
pub use version::{ProtocolVersion, VERSION_HEADER, major_minor};
