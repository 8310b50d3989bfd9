//! Error bodies of the HTTP+JSON binding: 1.0 `google.rpc.Status`
//! (`{"error":{"code","status","message","details":[ErrorInfo…]}}`) and the problem+json
//! bodies of 0.3 drafts (`{"type","title","status","detail"}`), spec A.9.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::error_code::ErrorCode;
use super::jsonrpc::error_info_reason;
use super::lenient::{as_u64, opt_str};

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
            });
        }
        None
    }

    /// The A2A error this body names, from its `ErrorInfo.reason`.
    pub fn kind(&self) -> Option<ErrorCode> {
        ErrorCode::from_reason(self.reason.as_deref()?)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

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
    }
}
