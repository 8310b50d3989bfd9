//! Error bodies of the HTTP+JSON binding: 1.0 `google.rpc.Status`
//! (`{"error":{"code","status","message","details":[ErrorInfo…]}}`), the problem+json
//! bodies of 0.3 drafts (`{"type","title","status","detail"}`), spec A.9, and the two 0.3 SDK
//! bodies (`docs/reference/a2a-0.3-http-json.md`): @a2a-js/sdk's `{"code":<JSON-RPC code>,"message"}`
//! and a2a-sdk (Python) 0.3's bare `{"message"}`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::error_code::ErrorCode;
use super::jsonrpc::error_info_reason;
use super::lenient::{as_i64, as_u64, opt_str};

/// A normalised HTTP+JSON error body.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RestError {
    /// The HTTP status echoed in the body, when present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http_code: Option<u64>,
    /// The gRPC-style status name, e.g. `NOT_FOUND`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// The agent's message (may be empty).
    pub message: String,
    /// `ErrorInfo.reason`, e.g. `TASK_NOT_FOUND`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The JSON-RPC/A2A code of a 0.3 `{"code","message"}` body (@a2a-js/sdk), e.g. -32001.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<i64>,
}

impl RestError {
    /// Reads an error body; `None` when it has neither shape.
    pub fn decode(body: &Value) -> Option<Self> {
        let obj = body.as_object()?;
        if let Some(inner) = obj.get("error").and_then(Value::as_object) {
            return Some(RestError {
                http_code: inner.get("code").and_then(as_u64),
                status: opt_str(inner, "status"),
                message: opt_str(inner, "message").unwrap_or_default(),
                reason: inner.get("details").and_then(error_info_reason),
                code: None,
            });
        }
        if obj.contains_key("title") || obj.contains_key("detail") {
            let message = opt_str(obj, "detail")
                .or_else(|| opt_str(obj, "title"))
                .unwrap_or_default();
            return Some(RestError {
                http_code: obj.get("status").and_then(as_u64),
                status: None,
                message,
                reason: None,
                code: None,
            });
        }
        // 0.3 SDK bodies: JS `{"code": -32001, "message": …}`, Python `{"message": …}`.
        let code = obj.get("code").and_then(as_i64);
        let message = obj.get("message").and_then(Value::as_str);
        if message.is_some() && (code.is_some() || !obj.contains_key("code")) {
            return Some(RestError {
                http_code: None,
                status: None,
                message: message.unwrap_or_default().to_owned(),
                reason: None,
                code,
            });
        }
        None
    }

    /// The A2A error this body names, from its `ErrorInfo.reason` or its JSON-RPC `code`.
    pub fn kind(&self) -> Option<ErrorCode> {
        if let Some(kind) = self.reason.as_deref().and_then(ErrorCode::from_reason) {
            return Some(kind);
        }
        self.code.filter(|c| *c < 0).map(ErrorCode::from_code)
    }

    /// The A2A error of this body answered with HTTP `status`: [`RestError::kind`], or, for a
    /// body that names none, the error the status stands for when the status says the agent
    /// refused the request (4xx, or 501 which a2a-sdk 0.3 uses for unsupported operations):
    /// 400 InvalidRequest, 409 TaskNotCancelable, 415 ContentTypeNotSupported, 422
    /// InvalidParams (a2a-sdk 0.3 `A2AErrorToHttpStatus`), 501 UnsupportedOperation, any other
    /// such status [`ErrorCode::Other`]. A 5xx without a code, or whose code is only an internal
    /// error or an invalid agent response, says nothing about the outcome.
    pub fn kind_for_status(&self, status: u16) -> Option<ErrorCode> {
        if let Some(kind) = self.kind() {
            // A server error that only says it failed inside may have acted first.
            let internal = matches!(kind, ErrorCode::InternalError | ErrorCode::InvalidAgentResponse);
            return (!(internal && status >= 500)).then_some(kind);
        }
        Some(match status {
            400 => ErrorCode::InvalidRequest,
            409 => ErrorCode::TaskNotCancelable,
            415 => ErrorCode::ContentTypeNotSupported,
            422 => ErrorCode::InvalidParams,
            501 => ErrorCode::UnsupportedOperation,
            401..=499 => ErrorCode::Other(i64::from(status)),
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_server_error_that_only_says_internal_says_nothing_about_the_outcome() {
        let internal = RestError::decode(&json!({"code": -32603, "message": "boom"})).unwrap();
        assert_eq!(internal.kind_for_status(500), None);
        assert_eq!(internal.kind_for_status(400), Some(ErrorCode::InternalError));
        let missing = RestError::decode(&json!({"code": -32001, "message": "no task"})).unwrap();
        assert_eq!(missing.kind_for_status(404), Some(ErrorCode::TaskNotFound));
    }

    #[test]
    fn google_rpc_status() {
        let e = RestError::decode(
            &json!({"error": {"code": 404, "status": "NOT_FOUND", "message": "Task not found",
            "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "TASK_NOT_FOUND"}]}}),
        )
        .expect("decodes");
        assert_eq!(e.http_code, Some(404));
        assert_eq!(e.status.as_deref(), Some("NOT_FOUND"));
        assert_eq!(e.message, "Task not found");
        assert_eq!(e.kind(), Some(ErrorCode::TaskNotFound));
    }

    #[test]
    fn problem_json_and_garbage() {
        let e = RestError::decode(
            &json!({"type": "about:blank", "title": "Bad", "status": 400.0, "detail": "no"}),
        )
        .expect("decodes");
        assert_eq!(e.http_code, Some(400));
        assert_eq!(e.message, "no");
        assert_eq!(e.kind(), None);
        assert_eq!(RestError::decode(&json!({"task": {}})), None);
        assert_eq!(RestError::decode(&json!([1])), None);
        assert_eq!(RestError::decode(&json!({"code": "x", "message": "m"})), None);
    }

    #[test]
    fn sdk_0_3_bodies() {
        // @a2a-js/sdk 1.3.0 `toCompatErrorBody` (legacy REST router), with HTTP 400.
        let js = RestError::decode(&json!({"code": -32602, "message": "message.messageId is required"}))
            .expect("decodes");
        assert_eq!(js.kind(), Some(ErrorCode::InvalidParams));
        assert_eq!(js.kind_for_status(400), Some(ErrorCode::InvalidParams));
        assert_eq!(js.message, "message.messageId is required");
        // a2a-sdk 0.3.26 `rest_error_handler`: `{"message"}` with the status of its table.
        let py = RestError::decode(&json!({"message": "Task not found"})).expect("decodes");
        assert_eq!(py.kind(), None);
        assert_eq!(py.kind_for_status(409), Some(ErrorCode::TaskNotCancelable));
        assert_eq!(py.kind_for_status(404), Some(ErrorCode::Other(404)));
        assert_eq!(py.kind_for_status(501), Some(ErrorCode::UnsupportedOperation));
        // Python's answer to a body it cannot parse: no outcome can be read from a 500.
        let unknown = RestError::decode(&json!({"message": "unknown exception"})).expect("decodes");
        assert_eq!(unknown.kind_for_status(500), None);
        // A google.rpc.Status without ErrorInfo still refuses when the status is 4xx.
        let bare = RestError::decode(&json!({"error": {"code": 400, "message": "bad"}})).expect("decodes");
        assert_eq!(bare.kind(), None);
        assert_eq!(bare.kind_for_status(400), Some(ErrorCode::InvalidRequest));
    }
}
