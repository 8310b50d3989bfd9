//! The words' JSON and stored forms are pinned for every set by the server's
//! `stored_words_are_unchanged` (server/src/store.rs), which sees them as sea-orm values too.

use serde_json::json;

use super::CommandStatus;
use crate::ext::approval::RequestStatus;
use crate::projection::TaskKind;

/// A word outside the set is refused, not mapped to some value.
#[test]
fn unknown_words_do_not_deserialise() {
    assert!(serde_json::from_value::<CommandStatus>(json!("sent")).is_err());
    assert!(serde_json::from_value::<CommandStatus>(json!("Pending")).is_err());
    assert!(serde_json::from_value::<RequestStatus>(json!(1)).is_err());
    assert_eq!(CommandStatus::Failed, "failed");
    assert!(CommandStatus::Failed.is_unsuccessful() && CommandStatus::Uncertain.is_settled());
    assert!(!CommandStatus::Dispatching.is_settled());
    assert_eq!(TaskKind::default(), TaskKind::Task);
}
