use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::{CommandAction, CommandStatus};
use crate::api::approvals::RevisionAuthor;
use crate::ext::approval::{ActionKind, Outcome, RequestStatus};
use crate::projection::TaskKind;

/// The JSON of every value in declaration order, checking that each reads back and that
/// `as_str`, `Display` and `parse` agree with it.
fn json_words<E>(all: &[E], parse: fn(&str) -> Option<E>, as_str: fn(E) -> &'static str) -> Vec<Value>
where
    E: Serialize + DeserializeOwned + Copy + PartialEq + std::fmt::Debug + std::fmt::Display,
{
    all.iter()
        .map(|&value| {
            let json = serde_json::to_value(value).expect("serialises");
            assert_eq!(json, json!(as_str(value)));
            assert_eq!(json, json!(value.to_string()));
            assert_eq!(parse(as_str(value)), Some(value));
            assert_eq!(
                serde_json::from_value::<E>(json.clone()).expect("deserialises"),
                value
            );
            json
        })
        .collect()
}

/// The API (`/api/*`, server functions, live events) carries exactly the stored words.
#[test]
fn json_words_are_unchanged() {
    assert_eq!(
        json_words(&CommandStatus::ALL, CommandStatus::parse, CommandStatus::as_str),
        [
            json!("pending"),
            json!("dispatching"),
            json!("succeeded"),
            json!("failed"),
            json!("uncertain")
        ]
    );
    assert_eq!(
        json_words(&CommandAction::ALL, CommandAction::parse, CommandAction::as_str),
        [json!("send"), json!("cancelTask")]
    );
    assert_eq!(
        json_words(&RequestStatus::ALL, RequestStatus::parse, RequestStatus::as_str),
        [
            "pending",
            "approved",
            "rejected",
            "changes_requested",
            "expired",
            "superseded"
        ]
        .map(|w| json!(w))
    );
    assert_eq!(
        json_words(&Outcome::ALL, Outcome::parse, Outcome::as_str),
        ["approve", "reject", "edit", "request_changes", "delegate"].map(|w| json!(w))
    );
    assert_eq!(
        json_words(
            &RevisionAuthor::ALL,
            RevisionAuthor::parse,
            RevisionAuthor::as_str
        ),
        [json!("agent"), json!("user")]
    );
    assert_eq!(
        json_words(&ActionKind::ALL, ActionKind::parse, ActionKind::as_str),
        [json!("send_message"), json!("send_data")]
    );
    assert_eq!(
        json_words(&TaskKind::ALL, TaskKind::parse, TaskKind::as_str),
        [json!("task"), json!("message")]
    );
    assert_eq!(TaskKind::default(), TaskKind::Task);
}

/// A word outside the set is refused, not mapped to some value.
#[test]
fn unknown_words_do_not_deserialise() {
    assert!(serde_json::from_value::<CommandStatus>(json!("sent")).is_err());
    assert!(serde_json::from_value::<CommandStatus>(json!("Pending")).is_err());
    assert!(serde_json::from_value::<RequestStatus>(json!(1)).is_err());
    assert_eq!(CommandStatus::Failed, "failed");
    assert!(CommandStatus::Failed.is_unsuccessful() && CommandStatus::Uncertain.is_settled());
    assert!(!CommandStatus::Dispatching.is_settled());
}
