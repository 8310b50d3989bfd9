//! A2A errors as both bindings report them (`shared/spec/a2a-and-a2ui.md` §A.9): JSON-RPC codes,
//! HTTP statuses and `google.rpc.ErrorInfo` reasons.

use app::a2a::ErrorCode;
use axum::http::StatusCode;
use serde_json::{Value, json};

/// An A2A operation that failed; each variant is one row of the spec's error table.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(crate) enum A2aError {
    #[error("Invalid JSON payload")]
    Parse,
    #[error("{0}")]
    InvalidRequest(String),
    #[error("Method not found: {0}")]
    MethodNotFound(String),
    #[error("{0}")]
    InvalidParams(String),
    #[error("Task not found: {0}")]
    TaskNotFound(String),
    #[error("Task cannot be canceled: {0} is already in a terminal state")]
    TaskNotCancelable(String),
    #[error("{0}")]
    UnsupportedOperation(String),
    #[error("A2A version '{0}' is not supported")]
    VersionNotSupported(String),
}

impl A2aError {
    /// The spec's error code for this variant; numbers and reasons come from `app::a2a`.
    fn error_code(&self) -> ErrorCode {
        match self {
            A2aError::Parse => ErrorCode::ParseError,
            A2aError::InvalidRequest(_) => ErrorCode::InvalidRequest,
            A2aError::MethodNotFound(_) => ErrorCode::MethodNotFound,
            A2aError::InvalidParams(_) => ErrorCode::InvalidParams,
            A2aError::TaskNotFound(_) => ErrorCode::TaskNotFound,
            A2aError::TaskNotCancelable(_) => ErrorCode::TaskNotCancelable,
            A2aError::UnsupportedOperation(_) => ErrorCode::UnsupportedOperation,
            A2aError::VersionNotSupported(_) => ErrorCode::VersionNotSupported,
        }
    }

    /// The JSON-RPC error code.
    pub(crate) fn code(&self) -> i64 {
        self.error_code().code()
    }

    /// The `ErrorInfo.reason` of 1.0 error details.
    fn reason(&self) -> &'static str {
        // Every variant maps to a named code, and named codes all have a reason.
        self.error_code().reason().unwrap_or_default()
    }

    /// The HTTP status of the HTTP+JSON binding.
    pub(crate) fn http_status(&self) -> StatusCode {
        match self {
            A2aError::TaskNotFound(_) | A2aError::MethodNotFound(_) => StatusCode::NOT_FOUND,
            _ => StatusCode::BAD_REQUEST,
        }
    }

    /// The `google.rpc.Code` name matching [`Self::http_status`].
    fn rpc_status(&self) -> &'static str {
        match self {
            A2aError::TaskNotFound(_) | A2aError::MethodNotFound(_) => "NOT_FOUND",
            A2aError::Parse | A2aError::InvalidRequest(_) | A2aError::InvalidParams(_) => "INVALID_ARGUMENT",
            _ => "FAILED_PRECONDITION",
        }
    }

    fn details(&self) -> Value {
        json!([{
            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
            "reason": self.reason(),
            "domain": "a2a-protocol.org",
            "metadata": {},
        }])
    }

    /// The JSON-RPC `error` object; 0.3 used a free `data` object instead of the details array.
    pub(crate) fn to_jsonrpc(&self, legacy: bool) -> Value {
        let data = if legacy {
            json!({"reason": self.reason()})
        } else {
            self.details()
        };
        json!({"code": self.code(), "message": self.to_string(), "data": data})
    }

    /// The HTTP+JSON error body (`google.rpc.Status`).
    pub(crate) fn to_rest(&self) -> Value {
        json!({"error": {
            "code": self.http_status().as_u16(),
            "status": self.rpc_status(),
            "message": self.to_string(),
            "details": self.details(),
        }})
    }
}
