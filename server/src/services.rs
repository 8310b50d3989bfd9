//! The application layer: what the HTTP API and the server functions call. Each function
//! takes the parts of [`AppState`](crate::AppState) it needs, validates, and combines the store
//! and the gateway. No HTTP here (that is `gateway`); queries live in `store`, except the
//! command acceptance transaction, which `commands` owns whole.

pub mod agents;
pub mod approvals;
pub mod approvals_hook;
pub mod commands;
pub mod credentials;
pub mod sign_in;
pub mod tasks;
