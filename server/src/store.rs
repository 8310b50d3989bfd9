//! Repository functions: the only code that builds queries; services and workers call these,
//! never sea-orm entities. Writes go through [`Db::write`](crate::db::Db::write), reads through
//! [`Db::read`](crate::db::Db::read); a function that must join the caller's transaction takes
//! any `ConnectionTrait`. Every function here is covered by the store suite on SQLite and
//! PostgreSQL. The repositories:
//!
//! - [`agents`]: registrations, discovery outcomes, interface pins.
//! - [`approvals`]: approval requests, their revisions, decisions and executions.
//! - [`artifacts`]: which archived objects are still referenced.
//! - [`card_snapshots`]: fetched agent cards.
//! - [`commands`]: sends and cancels, and their fenced status changes.
//! - [`dispatch`]: the dispatch outbox.
//! - [`leases`]: the one lease protocol of outbox rows and subscriptions.
//! - [`organizations`]: the organizations.
//! - [`subscriptions`]: the intent to follow a task live.
//! - [`tasks`]: tasks, conversations and the ledger, read back.
//!
//! Statuses and other closed sets of words stored in string columns are enums declared with
//! `stored_words!`, which keeps the stored strings exactly as they were.

/// Declares a status (or other closed set of words) stored in a string column: a sea-orm
/// `ActiveEnum` whose variants are stored as exactly the given strings, with `as_str`, `parse`,
/// `Display`, `Serialize` (as the string) and comparison with `&str` for code that still holds
/// the stored word.
macro_rules! stored_words {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $( $(#[$variant_meta:meta])* $variant:ident = $word:literal, )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, sea_orm::EnumIter, sea_orm::DeriveActiveEnum)]
        #[sea_orm(rs_type = "String", db_type = "String(sea_orm::sea_query::StringLen::None)")]
        $vis enum $name {
            $( $(#[$variant_meta])* #[sea_orm(string_value = $word)] $variant, )+
        }

        impl $name {
            /// The word stored for this value.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $( $name::$variant => $word, )+
                }
            }

            /// The value stored as `word`, if it is one.
            #[allow(dead_code)]
            pub fn parse(word: &str) -> Option<$name> {
                match word {
                    $( $word => Some($name::$variant), )+
                    _ => None,
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, word: &&str) -> bool {
                self.as_str() == *word
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }
    };
}

pub mod agents;
pub mod approvals;
pub mod artifacts;
pub mod card_snapshots;
pub mod commands;
pub mod dispatch;
pub mod leases;
pub mod ledger;
pub mod organizations;
pub mod projections;
pub mod subscriptions;
pub mod task_rows;
pub mod tasks;

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

    use super::agents::AgentSource;
    use super::approvals::{DecisionOutcome, RequestStatus, RevisionAuthor};
    use super::commands::{CommandAction, CommandStatus};
    use super::dispatch::OutboxStatus;
    use super::subscriptions::SubscriptionStatus;

    /// Every value's stored word, as `as_str`, `parse` and the database see it.
    fn words<
        E: ActiveEnum<Value = String> + Iterable + Copy + std::fmt::Display + PartialEq + std::fmt::Debug,
    >(
        parse: fn(&str) -> Option<E>,
    ) -> Vec<String> {
        E::iter()
            .map(|value| {
                let word = value.to_string();
                assert_eq!(value.to_value(), word);
                assert_eq!(parse(&word), Some(value));
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
            app::api::approvals::STATUSES.map(str::to_owned)
        );
        assert_eq!(
            words(DecisionOutcome::parse),
            app::ext::approval::ALL_OUTCOMES.map(|o| o.as_str().to_owned())
        );
        assert_eq!(words(RevisionAuthor::parse), ["agent", "user"]);
        assert_eq!(words(AgentSource::parse), ["env", "managed"]);
        assert_eq!(CommandStatus::parse("sent"), None);
    }
}
