//! sea-orm entities, one file per table. They never leave the server: the browser gets
//! purpose-named types from `app`.

pub mod access_grant;
pub mod agent;
pub mod agent_card_snapshot;
pub mod agent_credential;
pub mod artifact_access;
pub mod decision;
pub mod decision_execution;
pub mod decision_request;
pub mod decision_revision;
pub mod external_identity;
pub mod ledger_counter;
pub mod login_attempt;
pub mod membership;
pub mod organization;
pub mod outbox_message;
pub mod security_audit_event;
pub mod sync_cursor;
pub mod task;
pub mod task_artifact;
pub mod task_artifact_chunk;
pub mod task_command;
pub mod task_event;
pub mod task_message;
pub mod task_push_registration;
pub mod task_subscription;
pub mod task_transition;
pub mod team;
pub mod team_membership;
pub mod user;
pub mod user_session;
pub mod wire_exchange;
