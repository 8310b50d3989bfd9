//! The JSON-RPC and A2A error codes (spec A.9) with their standard names and the 1.0
//! `ErrorInfo.reason` strings used by the HTTP+JSON binding.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// An error code an agent can return. Unknown codes are kept in [`ErrorCode::Other`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    /// -32700: the request was not valid JSON.
    ParseError,
    /// -32600: not a valid JSON-RPC request.
    InvalidRequest,
    /// -32601: unknown method.
    MethodNotFound,
    /// -32602: bad parameters.
    InvalidParams,
    /// -32603: internal error.
    InternalError,
    /// -32001: no such task.
    TaskNotFound,
    /// -32002: the task is terminal and cannot be canceled.
    TaskNotCancelable,
    /// -32003: the agent does not do push notifications.
    PushNotificationNotSupported,
    /// -32004: the operation is not supported (e.g. subscribing to a terminal task).
    UnsupportedOperation,
    /// -32005: a content type is not supported.
    ContentTypeNotSupported,
    /// -32006: the agent produced an invalid response.
    InvalidAgentResponse,
    /// -32007: extended card declared but not configured (0.3:
    /// `AuthenticatedExtendedCardNotConfigured`).
    ExtendedAgentCardNotConfigured,
    /// -32008: a required extension was not requested.
    ExtensionSupportRequired,
    /// -32009: the requested protocol version is not supported.
    VersionNotSupported,
    /// Any other code.
    Other(i64),
}

/// Every named code, in numeric order from -32700; used by tests and the UI legend.
pub const NAMED_ERROR_CODES: [ErrorCode; 14] = [
    ErrorCode::ParseError,
    ErrorCode::InvalidRequest,
    ErrorCode::MethodNotFound,
    ErrorCode::InvalidParams,
    ErrorCode::InternalError,
    ErrorCode::TaskNotFound,
    ErrorCode::TaskNotCancelable,
    ErrorCode::PushNotificationNotSupported,
    ErrorCode::UnsupportedOperation,
    ErrorCode::ContentTypeNotSupported,
    ErrorCode::InvalidAgentResponse,
    ErrorCode::ExtendedAgentCardNotConfigured,
    ErrorCode::ExtensionSupportRequired,
    ErrorCode::VersionNotSupported,
];

impl ErrorCode {
    /// The code for a number.
    pub fn from_code(code: i64) -> Self {
        match code {
            -32700 => ErrorCode::ParseError,
            -32600 => ErrorCode::InvalidRequest,
            -32601 => ErrorCode::MethodNotFound,
            -32602 => ErrorCode::InvalidParams,
            -32603 => ErrorCode::InternalError,
            -32001 => ErrorCode::TaskNotFound,
            -32002 => ErrorCode::TaskNotCancelable,
            -32003 => ErrorCode::PushNotificationNotSupported,
            -32004 => ErrorCode::UnsupportedOperation,
            -32005 => ErrorCode::ContentTypeNotSupported,
            -32006 => ErrorCode::InvalidAgentResponse,
            -32007 => ErrorCode::ExtendedAgentCardNotConfigured,
            -32008 => ErrorCode::ExtensionSupportRequired,
            -32009 => ErrorCode::VersionNotSupported,
            other => ErrorCode::Other(other),
        }
    }

    /// The JSON-RPC number.
    pub fn code(self) -> i64 {
        match self {
            ErrorCode::ParseError => -32700,
            ErrorCode::InvalidRequest => -32600,
            ErrorCode::MethodNotFound => -32601,
            ErrorCode::InvalidParams => -32602,
            ErrorCode::InternalError => -32603,
            ErrorCode::TaskNotFound => -32001,
            ErrorCode::TaskNotCancelable => -32002,
            ErrorCode::PushNotificationNotSupported => -32003,
            ErrorCode::UnsupportedOperation => -32004,
            ErrorCode::ContentTypeNotSupported => -32005,
            ErrorCode::InvalidAgentResponse => -32006,
            ErrorCode::ExtendedAgentCardNotConfigured => -32007,
            ErrorCode::ExtensionSupportRequired => -32008,
            ErrorCode::VersionNotSupported => -32009,
            ErrorCode::Other(code) => code,
        }
    }

    /// The standard name, e.g. `TaskNotFoundError`; `None` for unknown codes.
    pub fn name(self) -> Option<&'static str> {
        Some(match self {
            ErrorCode::ParseError => "JSONParseError",
            ErrorCode::InvalidRequest => "InvalidRequestError",
            ErrorCode::MethodNotFound => "MethodNotFoundError",
            ErrorCode::InvalidParams => "InvalidParamsError",
            ErrorCode::InternalError => "InternalError",
            ErrorCode::TaskNotFound => "TaskNotFoundError",
            ErrorCode::TaskNotCancelable => "TaskNotCancelableError",
            ErrorCode::PushNotificationNotSupported => "PushNotificationNotSupportedError",
            ErrorCode::UnsupportedOperation => "UnsupportedOperationError",
            ErrorCode::ContentTypeNotSupported => "ContentTypeNotSupportedError",
            ErrorCode::InvalidAgentResponse => "InvalidAgentResponseError",
            ErrorCode::ExtendedAgentCardNotConfigured => "ExtendedAgentCardNotConfiguredError",
            ErrorCode::ExtensionSupportRequired => "ExtensionSupportRequiredError",
            ErrorCode::VersionNotSupported => "VersionNotSupportedError",
            ErrorCode::Other(_) => return None,
        })
    }

    /// The 1.0 `ErrorInfo.reason`, e.g. `TASK_NOT_FOUND`; `None` for unknown codes.
    pub fn reason(self) -> Option<&'static str> {
        Some(match self {
            ErrorCode::ParseError => "PARSE_ERROR",
            ErrorCode::InvalidRequest => "INVALID_REQUEST",
            ErrorCode::MethodNotFound => "METHOD_NOT_FOUND",
            ErrorCode::InvalidParams => "INVALID_PARAMS",
            ErrorCode::InternalError => "INTERNAL_ERROR",
            ErrorCode::TaskNotFound => "TASK_NOT_FOUND",
            ErrorCode::TaskNotCancelable => "TASK_NOT_CANCELABLE",
            ErrorCode::PushNotificationNotSupported => "PUSH_NOTIFICATION_NOT_SUPPORTED",
            ErrorCode::UnsupportedOperation => "UNSUPPORTED_OPERATION",
            ErrorCode::ContentTypeNotSupported => "CONTENT_TYPE_NOT_SUPPORTED",
            ErrorCode::InvalidAgentResponse => "INVALID_AGENT_RESPONSE",
            ErrorCode::ExtendedAgentCardNotConfigured => "EXTENDED_AGENT_CARD_NOT_CONFIGURED",
            ErrorCode::ExtensionSupportRequired => "EXTENSION_SUPPORT_REQUIRED",
            ErrorCode::VersionNotSupported => "VERSION_NOT_SUPPORTED",
            ErrorCode::Other(_) => return None,
        })
    }

    /// The code for a 1.0 `ErrorInfo.reason` (HTTP+JSON errors carry no JSON-RPC number).
    pub fn from_reason(reason: &str) -> Option<Self> {
        NAMED_ERROR_CODES.into_iter().find(|c| c.reason() == Some(reason))
    }
}

impl Serialize for ErrorCode {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_i64(self.code())
    }
}

impl<'de> Deserialize<'de> for ErrorCode {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(ErrorCode::from_code(i64::deserialize(deserializer)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_named_code_round_trips() {
        let expected = [
            (-32700, "JSONParseError"),
            (-32600, "InvalidRequestError"),
            (-32601, "MethodNotFoundError"),
            (-32602, "InvalidParamsError"),
            (-32603, "InternalError"),
            (-32001, "TaskNotFoundError"),
            (-32002, "TaskNotCancelableError"),
            (-32003, "PushNotificationNotSupportedError"),
            (-32004, "UnsupportedOperationError"),
            (-32005, "ContentTypeNotSupportedError"),
            (-32006, "InvalidAgentResponseError"),
            (-32007, "ExtendedAgentCardNotConfiguredError"),
            (-32008, "ExtensionSupportRequiredError"),
            (-32009, "VersionNotSupportedError"),
        ];
        for (code, name) in expected {
            let c = ErrorCode::from_code(code);
            assert_eq!(c.code(), code);
            assert_eq!(c.name(), Some(name));
            let reason = c.reason().expect("named codes have reasons");
            assert_eq!(ErrorCode::from_reason(reason), Some(c));
        }
        assert_eq!(ErrorCode::from_code(-32099), ErrorCode::Other(-32099));
        assert_eq!(ErrorCode::Other(7).name(), None);
        assert_eq!(ErrorCode::from_reason("NOPE"), None);
    }
}
