//! [`JsonBody`]: the one JSON body extractor of the HTTP API (`shared/spec/reference.md` §4.1
//! "Body"). In order:
//!
//! - more than 16 MiB, by `Content-Length` or by counting the streamed bytes →
//!   `400 Request body exceeds the 16 MB limit.`;
//! - no body (or only whitespace) → `400 Request body is required.`;
//! - not JSON → `400 Invalid request JSON.`;
//! - JSON of the wrong shape (unknown keys of a strict schema, wrong types) → `400` with
//!   serde's message.
//!
//! The body is read here rather than with axum's `Bytes` so the limit and its message are the
//! original's, not axum's default 2 MB limit.

use axum::body::Body;
use axum::extract::{FromRequest, Request};
use axum::http::header;
use futures::StreamExt;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::error::ApiError;

/// Largest request body (`shared/spec/reference.md` §4.1).
pub const MAX_BODY_BYTES: usize = 16 * 1024 * 1024;

pub const TOO_LARGE: &str = "Request body exceeds the 16 MB limit.";
pub const REQUIRED: &str = "Request body is required.";
pub const INVALID_JSON: &str = "Invalid request JSON.";

/// A JSON request body decoded into `T` (use `JsonBody<Value>` to inspect it first).
#[derive(Debug, Clone)]
pub struct JsonBody<T>(pub T);

impl<T, S> FromRequest<S> for JsonBody<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request(request: Request, _state: &S) -> Result<Self, ApiError> {
        let declared = request
            .headers()
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok());
        if declared.is_some_and(|n| n > MAX_BODY_BYTES as u64) {
            return Err(ApiError::bad_request(TOO_LARGE));
        }
        let bytes = read_limited(request.into_body()).await?;
        decode(&bytes).map(JsonBody)
    }
}

/// Reads the whole body, refusing it as soon as it grows past [`MAX_BODY_BYTES`].
async fn read_limited(body: Body) -> Result<Vec<u8>, ApiError> {
    let mut stream = body.into_data_stream();
    let mut bytes = Vec::new();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|_| ApiError::bad_request(INVALID_JSON))?;
        if bytes.len() + chunk.len() > MAX_BODY_BYTES {
            return Err(ApiError::bad_request(TOO_LARGE));
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(bytes)
}

/// Decodes a complete body with the messages above.
pub fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(ApiError::bad_request(REQUIRED));
    }
    let value: Value = serde_json::from_slice(bytes).map_err(|_| ApiError::bad_request(INVALID_JSON))?;
    from_value(value)
}

/// Decodes parsed JSON into `T`; a shape error answers `400` with serde's message.
pub fn from_value<T: DeserializeOwned>(value: Value) -> Result<T, ApiError> {
    serde_json::from_value(value).map_err(|e| ApiError::bad_request(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::services::commands::CommandBody;

    #[test]
    fn messages_follow_reference_4_1() {
        assert_eq!(decode::<Value>(b"").unwrap_err().message, REQUIRED);
        assert_eq!(decode::<Value>(b" \n").unwrap_err().message, REQUIRED);
        assert_eq!(decode::<Value>(b"{").unwrap_err().message, INVALID_JSON);
        let unknown = decode::<CommandBody>(br#"{"text":"x","surprise":1}"#).unwrap_err();
        assert!(
            unknown.message.starts_with("unknown field `surprise`"),
            "{}",
            unknown.message
        );
        let wrong = decode::<CommandBody>(br#"{"text":5}"#).unwrap_err();
        assert_eq!(wrong.message, "invalid type: integer `5`, expected a string");
    }
}
