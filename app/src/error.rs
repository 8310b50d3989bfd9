//! [`AppError`]: the one error type server functions return. The browser decodes it and acts on
//! the variant; server errors never carry internal detail (it is logged on the server).

use leptos::server_fn::codec::JsonEncoding;
use leptos::server_fn::error::{FromServerFnError, ServerFnErrorErr};
use serde::{Deserialize, Serialize};

/// What went wrong, in terms the UI can act on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
pub enum AppError {
    #[error("Not found.")]
    NotFound,
    /// Input that fails validation; `field` names the form field.
    #[error("{message}")]
    Invalid { field: String, message: String },
    /// The operation conflicts with the current state (the message says how).
    #[error("{0}")]
    Conflict(String),
    /// A rule refuses the operation (skill routing, approval policy); the message says which.
    #[error("{0}")]
    Forbidden(String),
    /// The database or another dependency is unavailable; retrying later may work.
    #[error("The service is unavailable; try again shortly.")]
    Unavailable,
    /// An unexpected server fault; details are in the server log.
    #[error("Something went wrong on the server.")]
    Internal,
    /// The request did not reach the server function or its answer did not decode.
    #[error("{0}")]
    Transport(String),
}

impl AppError {
    /// The HTTP status this error sets during SSR and on server-function responses.
    pub fn status_code(&self) -> u16 {
        match self {
            AppError::NotFound => 404,
            AppError::Invalid { .. } => 400,
            AppError::Conflict(_) => 409,
            AppError::Forbidden(_) => 403,
            AppError::Unavailable => 503,
            AppError::Internal => 500,
            AppError::Transport(_) => 502,
        }
    }
}

impl FromServerFnError for AppError {
    type Encoder = JsonEncoding;

    fn from_server_fn_error(value: ServerFnErrorErr) -> Self {
        AppError::Transport(value.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_round_trip_through_the_server_fn_encoding() {
        for error in [
            AppError::NotFound,
            AppError::Invalid {
                field: "cardUrl".into(),
                message: "Required.".into(),
            },
            AppError::Unavailable,
        ] {
            assert_eq!(AppError::de(error.ser()), error);
        }
        assert_eq!(
            AppError::Internal.to_string(),
            "Something went wrong on the server."
        );
        assert_eq!(AppError::NotFound.status_code(), 404);
    }
}
