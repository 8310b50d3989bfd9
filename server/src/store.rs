//! Repository functions: the only code that builds queries; services and workers call these,
//! never sea-orm entities. Writes go through [`Db::write`](crate::db::Db::write), reads through
//! [`Db::read`](crate::db::Db::read); a function that must join the caller's transaction takes
//! any `ConnectionTrait`. Every function here is covered by the store suite on SQLite and
//! PostgreSQL. The repositories:
//!
//! - [`access`]: what a member may read and operate: the SQL filter every read applies.
//! - [`agents`]: registrations, discovery outcomes, interface pins.
//! - [`access_admin`]: teams, grants and members, as admins change them (each change audited).
//! - [`approvals`]: approval requests, their revisions, decisions and executions.
//! - [`artifacts`]: which archived objects are still referenced.
//! - [`audit`]: the security audit facts.
//! - [`budgets`]: request budgets in fixed windows.
//! - [`card_snapshots`]: fetched agent cards.
//! - [`commands`]: sends and cancels, and their fenced status changes.
//! - [`credentials`]: agents' encrypted credential bindings (the vault keeps the keys).
//! - [`dispatch`]: the dispatch outbox.
//! - [`identity`]: users, their `(issuer, subject)` identities and memberships.
//! - [`leases`]: the one lease protocol of outbox rows and subscriptions.
//! - [`organizations`]: the organizations.
//! - [`sessions`]: signed-in sessions and sign-in attempts.
//! - [`statistics`]: PostgreSQL's statistics of the ledger tables, refreshed as they grow.
//! - [`subscriptions`]: the intent to follow a task live.
//! - [`tasks`]: tasks, conversations and the ledger, read back.
//!
//! Statuses and other closed sets of words stored in string columns are enums declared with
//! `app::stored_words!`, which keeps the stored strings exactly as they were: the sets the
//! browser reads too are declared in `app` and re-exported by their repository here.

pub mod access;
pub mod access_admin;
pub mod agents;
pub mod approvals;
pub mod artifacts;
pub mod audit;
pub mod backup;
pub mod budgets;
pub mod card_snapshots;
pub mod commands;
pub mod credentials;
pub mod deferred;
pub mod dispatch;
pub mod identity;
pub mod leases;
pub mod ledger;
pub mod opening;
pub mod organizations;
pub mod probe;
pub mod projections;
pub mod push_registrations;
pub mod sequences;
pub mod sessions;
pub mod statistics;
pub mod subscriptions;
pub mod sync_cursors;
pub mod task_rows;
pub mod tasks;
pub mod wire_exchanges;

/// Errors callers act on; anything else is a database fault.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("not found")]
    NotFound,
    /// The row exists but the operation is not allowed on it (the message says why).
    #[error("{0}")]
    Conflict(&'static str),
    #[error(transparent)]
    Db(#[from] sea_orm::DbErr),
}

/// A new row id: UUIDv7, so ids sort by creation time.
pub fn new_id() -> String {
    uuid::Uuid::now_v7().to_string()
}

#[cfg(test)]
mod tests {
    use sea_orm::{ActiveEnum, Iterable};

    use app::ext::approval::ActionKind;
    use app::projection::TaskKind;

    use super::agents::AgentSource;
    use super::approvals::{DecisionOutcome, RequestStatus, RevisionAuthor};
    use super::commands::{CommandAction, CommandStatus};
    use super::dispatch::OutboxStatus;
    use super::identity::Role;
    use super::subscriptions::SubscriptionStatus;

    /// Every value's stored word, as `as_str`, `parse`, the database and JSON see it.
    fn words<E>(parse: fn(&str) -> Option<E>) -> Vec<String>
    where
        E: ActiveEnum<Value = String> + Iterable + Copy + std::fmt::Display + PartialEq + std::fmt::Debug,
        E: serde::Serialize + serde::de::DeserializeOwned,
    {
        E::iter()
            .map(|value| {
                let word = value.to_string();
                assert_eq!(value.to_value(), word);
                assert_eq!(parse(&word), Some(value));
                let json = serde_json::to_value(value).expect("serialises");
                assert_eq!(json, serde_json::Value::String(word.clone()));
                assert_eq!(serde_json::from_value::<E>(json).expect("deserialises"), value);
                word
            })
            .collect()
    }

    /// The stored words are those of the existing rows: changing one needs a migration.
    #[test]
    fn stored_words_are_unchanged() {
        assert_eq!(
            words(CommandStatus::parse),
            ["pending", "dispatching", "succeeded", "failed", "uncertain"]
        );
        assert_eq!(words(CommandAction::parse), ["send", "cancelTask"]);
        assert_eq!(
            words(OutboxStatus::parse),
            ["pending", "processing", "processed", "failed"]
        );
        assert_eq!(
            words(SubscriptionStatus::parse),
            ["pending", "streaming", "stopped"]
        );
        assert_eq!(
            words(RequestStatus::parse),
            [
                "pending",
                "approved",
                "rejected",
                "changes_requested",
                "expired",
                "superseded"
            ]
        );
        assert_eq!(
            words(DecisionOutcome::parse),
            ["approve", "reject", "edit", "request_changes", "delegate"]
        );
        assert_eq!(words(RevisionAuthor::parse), ["agent", "user"]);
        assert_eq!(words(AgentSource::parse), ["env", "managed"]);
        assert_eq!(words(TaskKind::parse), ["task", "message"]);
        assert_eq!(words(ActionKind::parse), ["send_message", "send_data"]);
        assert_eq!(words(Role::parse), ["admin", "operator", "viewer"]);
        assert_eq!(CommandStatus::parse("sent"), None);
    }

    /// Task states are stored as their 1.0 names, states the console does not know (and the
    /// `MESSAGE` of direct replies) verbatim, and read back as the same value.
    #[test]
    fn task_states_are_stored_as_their_1_0_names() {
        use app::a2a::TaskState;
        use sea_orm::sea_query::{Value, ValueType};

        let cases = [
            (TaskState::Submitted, "TASK_STATE_SUBMITTED"),
            (TaskState::Working, "TASK_STATE_WORKING"),
            (TaskState::InputRequired, "TASK_STATE_INPUT_REQUIRED"),
            (TaskState::AuthRequired, "TASK_STATE_AUTH_REQUIRED"),
            (TaskState::Completed, "TASK_STATE_COMPLETED"),
            (TaskState::Canceled, "TASK_STATE_CANCELED"),
            (TaskState::Failed, "TASK_STATE_FAILED"),
            (TaskState::Rejected, "TASK_STATE_REJECTED"),
            (TaskState::Unspecified, "TASK_STATE_UNSPECIFIED"),
            (TaskState::Other("MESSAGE".into()), "MESSAGE"),
            (TaskState::Other("paused-by-ops".into()), "paused-by-ops"),
        ];
        for (state, word) in cases {
            assert_eq!(Value::from(state.clone()), Value::from(word));
            assert_eq!(
                <TaskState as ValueType>::try_from(Value::from(word)).expect("reads"),
                state
            );
            assert_eq!(
                serde_json::to_value(&state).expect("serialises"),
                serde_json::Value::String(word.into())
            );
        }
    }
}
