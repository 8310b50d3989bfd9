//! Tasks and conversations: what the Chat and Tasks screens and `/api/tasks` read, and the sends,
//! cancels and follows made on them. The server functions (`backend::tasks`) and the JSON API
//! (`http::api::tasks`, `http::api::stream`) both call these, so what the console adds to its own
//! sends is decided in one place ([`send`]). Queries live in `store`; nothing here speaks HTTP.

mod query;
mod send;

pub use query::{
    RECENT_CONVERSATIONS, conversation, conversation_events, conversation_exchanges, conversations, find,
    list, view,
};
pub use send::{cancel, follow, resubscribe, send};

use crate::services::commands::CommandError;
use crate::store::StoreError;

/// Why a task request was refused or failed.
#[derive(Debug, thiserror::Error)]
pub enum TaskError {
    /// Bad input: `field` names it for the form that sent it.
    #[error("{message}")]
    Invalid { field: &'static str, message: String },
    /// No such task or conversation in the organization.
    #[error("Not found.")]
    NotFound,
    /// The request does not fit the task's state.
    #[error("{0}")]
    Conflict(String),
    /// The command layer refused or failed the send.
    #[error(transparent)]
    Command(#[from] CommandError),
    #[error(transparent)]
    Store(#[from] StoreError),
}
