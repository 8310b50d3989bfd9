//! [`ApiError`]: the JSON HTTP API's error, answered as `{"error":{"message":…}}` with
//! `Cache-Control: no-store` (`shared/spec/reference.md` §4.1).

use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;

use crate::services::commands::CommandError;
use crate::store::StoreError;

/// An error answer of the HTTP API.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    pub status: StatusCode,
    pub message: String,
}

impl ApiError {
    pub fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            message: message.into(),
        }
    }

    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, message)
    }

    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, message)
    }

    pub fn forbidden(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::FORBIDDEN, message)
    }

    pub fn unprocessable(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, message)
    }

    pub fn conflict(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::CONFLICT, message)
    }

    pub fn unavailable() -> ApiError {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "The service is unavailable; try again shortly.",
        )
    }

    /// `503` with a specific message (e.g. `Identity service unavailable.`).
    pub fn unavailable_with(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::SERVICE_UNAVAILABLE, message)
    }

    /// `502`: the agent could not be reached or answered badly; the message says why.
    pub fn bad_gateway(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_GATEWAY, message)
    }

    /// Maps a store error, answering `NotFound` with `message` instead of the generic one.
    pub fn from_store(error: StoreError, not_found: &str) -> ApiError {
        match error {
            StoreError::NotFound => ApiError::not_found(not_found),
            other => other.into(),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response =
            (self.status, Json(json!({ "error": { "message": self.message } }))).into_response();
        response
            .headers_mut()
            .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
        response
    }
}

impl From<StoreError> for ApiError {
    fn from(error: StoreError) -> ApiError {
        match error {
            StoreError::NotFound => ApiError::not_found("Not found."),
            StoreError::Conflict(message) => ApiError::conflict(message),
            StoreError::Db(error) => {
                tracing::warn!(%error, "database error in the HTTP API");
                ApiError::unavailable()
            }
        }
    }
}

impl From<CommandError> for ApiError {
    fn from(error: CommandError) -> ApiError {
        match error {
            CommandError::Invalid(message) => ApiError::bad_request(message),
            CommandError::Conflict(message) => ApiError::conflict(message),
            CommandError::UnknownAgent => ApiError::not_found("Unknown agent."),
            CommandError::TaskNotFound => ApiError::not_found("Task not found."),
            CommandError::ConversationNotFound => ApiError::not_found("Conversation not found."),
            CommandError::Forbidden(message) => ApiError::forbidden(message),
            CommandError::Store(error) => error.into(),
        }
    }
}
