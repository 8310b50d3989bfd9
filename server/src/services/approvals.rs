//! Approval requests (`shared/spec/reference.md` §1.2, §4.8; `shared/spec/security-and-durability.md`
//! §4.1): opened from an agent's prompt inside the ingestion transaction, decided by people, and
//! carried to the agent exactly once: the decision, its execution row and the command that
//! sends the approved message commit in one transaction, and a request can be approved once.
//!
//! Everything about the content (parsing, validation, digest, the message sent) is
//! `app::ext::approval`; this module sequences, and `crate::store::approvals` stores.

mod decide;
mod detect;
mod open;
mod people;
mod sweep;
mod views;

use sea_orm::DbErr;

pub use decide::decide;
pub use detect::{detect, reads_prompt};
pub use open::{OpenRequest, open};
pub use people::{
    ASSIGNED_ELSEWHERE, Caller, DELEGATE_CANNOT_OPERATE, DELEGATE_ONLY_WITH_DELEGATE, DELEGATE_REQUIRED,
    DELEGATE_SELF, REQUESTER_CANNOT_DECIDE, reviewers,
};
pub use sweep::{Swept, sweep};
pub use views::{detail, list, pending_count};

use super::commands::CommandError;
use crate::store::StoreError;

pub const NOT_FOUND: &str = "Decision request not found.";
pub const STALE: &str = "A newer revision exists; review it before deciding.";
pub const UNKNOWN_STATUS: &str = "Unknown status.";
pub const UNKNOWN_OUTCOME: &str = "outcome must be approve, reject, edit, request_changes or delegate.";
pub const EDIT_ONLY_WITH_EDIT: &str = "edit is only allowed with the edit outcome.";
pub const EDIT_REQUIRED: &str = "The edit outcome needs the edited action.";

/// `409 This request is <reason> and can no longer authorize an action.` (reference §4.8).
pub fn closed_message(status: &str) -> String {
    let reason = status.replace('_', " ");
    format!("This request is {reason} and can no longer authorize an action.")
}

/// Why a decision was not recorded.
#[derive(Debug, thiserror::Error)]
pub enum ApprovalError {
    #[error("{NOT_FOUND}")]
    NotFound,
    /// Bad input (`400`).
    #[error("{0}")]
    Invalid(String),
    /// Well-formed but not acceptable (`422`).
    #[error("{0}")]
    Unprocessable(String),
    /// Stale revision, closed request, reused key (`409`).
    #[error("{0}")]
    Conflict(String),
    /// The caller may not decide this request (`403`): assigned elsewhere, their own request,
    /// or a `read` grant only.
    #[error("{0}")]
    Forbidden(String),
    #[error(transparent)]
    Command(#[from] CommandError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<DbErr> for ApprovalError {
    fn from(e: DbErr) -> Self {
        ApprovalError::Store(StoreError::Db(e))
    }
}
