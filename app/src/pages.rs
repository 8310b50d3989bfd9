//! One module per screen of the console.

pub mod access;
pub mod agent_detail;
pub mod agents;
pub mod approvals;
pub mod chat;
pub mod flows;
pub mod inbox;
pub mod not_found;
pub mod notifications;
pub mod route;
pub mod settings;
pub mod task_detail;
pub mod tasks;
