//! Tests for `approval/decision.rs`: outcomes, statuses, rationale and edit rules, and the exact
//! approved message (reference.md §1.2, §4.8).

use super::*;

fn obj(v: Value) -> Map<String, Value> {
    serde_json::from_value(v).unwrap()
}

fn form() -> Map<String, Value> {
    obj(json!({"schema": {"type": "object", "properties": {
        "replicas": {"type": "integer", "minimum": 1}, "dryRun": {"type": "boolean"}}}}))
}

fn data_action(values: Value) -> ApprovalAction {
    validate_action(&ApprovalAction::SendData {
        form: form(),
        values: obj(values),
    })
    .unwrap()
}

fn text_action(text: &str) -> ApprovalAction {
    ApprovalAction::SendMessage {
        text: text.to_owned(),
        data: None,
    }
}

#[test]
fn outcomes_parse_and_print_their_wire_names() {
    let names = ["approve", "reject", "edit", "request_changes", "delegate"];
    for (outcome, name) in Outcome::ALL.into_iter().zip(names) {
        assert_eq!(outcome.as_str(), name);
        assert_eq!(Outcome::parse(name), Some(outcome));
        assert_eq!(serde_json::to_value(outcome).unwrap(), json!(name));
    }
    assert_eq!(Outcome::parse("Approve"), None);
}

#[test]
fn outcomes_map_to_statuses_and_only_approve_and_edit_send() {
    assert_eq!(Outcome::Approve.resulting_status(), Some(RequestStatus::Approved));
    assert_eq!(Outcome::Edit.resulting_status(), Some(RequestStatus::Approved));
    assert_eq!(Outcome::Reject.resulting_status(), Some(RequestStatus::Rejected));
    assert_eq!(
        Outcome::RequestChanges.resulting_status(),
        Some(RequestStatus::ChangesRequested)
    );
    assert_eq!(Outcome::Delegate.resulting_status(), None);
    let sending: Vec<_> = Outcome::ALL.into_iter().filter(|o| o.sends_to_agent()).collect();
    assert_eq!(sending, [Outcome::Approve, Outcome::Edit]);
}

#[test]
fn request_statuses_parse_and_print_their_wire_names() {
    let names = [
        "pending",
        "approved",
        "rejected",
        "changes_requested",
        "expired",
        "superseded",
    ];
    for (status, name) in RequestStatus::ALL.into_iter().zip(names) {
        assert_eq!(status.as_str(), name);
        assert_eq!(RequestStatus::parse(name), Some(status));
    }
    assert_eq!(RequestStatus::parse("open"), None);
    let open: Vec<_> = RequestStatus::ALL.into_iter().filter(|s| s.is_open()).collect();
    assert_eq!(open, [RequestStatus::Pending, RequestStatus::ChangesRequested]);
}

#[test]
fn rationale_required_except_for_approve() {
    assert_eq!(check_rationale(Outcome::Approve, None), Ok(()));
    assert_eq!(check_rationale(Outcome::Approve, Some("")), Ok(()));
    for outcome in [
        Outcome::Reject,
        Outcome::Edit,
        Outcome::RequestChanges,
        Outcome::Delegate,
    ] {
        assert_eq!(
            check_rationale(outcome, None),
            Err(DecisionError::RationaleRequired)
        );
        assert_eq!(
            check_rationale(outcome, Some(" \n ")),
            Err(DecisionError::RationaleRequired)
        );
        assert_eq!(check_rationale(outcome, Some("Too risky")), Ok(()));
    }
    assert_eq!(
        DecisionError::RationaleRequired.to_string(),
        "A rationale is required for this decision."
    );
    assert_eq!(DecisionError::RationaleRequired.status(), 400);
}

#[test]
fn rationale_at_most_4000_chars() {
    assert_eq!(check_rationale(Outcome::Reject, Some(&"r".repeat(4000))), Ok(()));
    assert_eq!(
        check_rationale(Outcome::Reject, Some(&"r".repeat(4001))),
        Err(DecisionError::RationaleRequired)
    );
    assert_eq!(
        check_rationale(Outcome::Approve, Some(&"r".repeat(4001))),
        Err(DecisionError::RationaleRequired)
    );
}

#[test]
fn edit_must_keep_the_action_kind() {
    let err = check_edit(&text_action("a"), &data_action(json!({"replicas": 2}))).unwrap_err();
    assert_eq!(err, DecisionError::KindChanged);
    assert_eq!(err.status(), 422);
}

#[test]
fn edit_can_change_values_but_not_the_form() {
    let current = data_action(json!({"replicas": 2}));
    let edited = check_edit(
        &current,
        &ApprovalAction::SendData {
            form: form(),
            values: obj(json!({"replicas": "3"})),
        },
    );
    assert_eq!(edited, Ok(data_action(json!({"replicas": 3}))));
    let mut other_form = form();
    other_form.insert("title".into(), json!("Changed"));
    let changed = ApprovalAction::SendData {
        form: other_form,
        values: obj(json!({"replicas": 3})),
    };
    let err = check_edit(&current, &changed).unwrap_err();
    assert_eq!(
        err.to_string(),
        "An edit can change the values but not the form they answer."
    );
    assert_eq!(err.status(), 422);
}

#[test]
fn edit_must_change_the_proposal() {
    let err = check_edit(&text_action("same"), &text_action("same")).unwrap_err();
    assert_eq!(err.to_string(), "The edit does not change the proposal.");
    // Coercion happens first: "2" is the same proposal as 2.
    let current = data_action(json!({"replicas": 2}));
    let same = ApprovalAction::SendData {
        form: form(),
        values: obj(json!({"replicas": "2", "dryRun": false})),
    };
    assert_eq!(check_edit(&current, &same), Err(DecisionError::Unchanged));
    assert_eq!(
        check_edit(&text_action("a"), &text_action("b")),
        Ok(text_action("b"))
    );
}

#[test]
fn edited_action_is_validated() {
    let err = check_edit(&text_action("a"), &text_action("  ")).unwrap_err();
    assert_eq!(err, DecisionError::InvalidEdit(ActionError::InvalidText));
    let current = data_action(json!({"replicas": 2}));
    let bad = ApprovalAction::SendData {
        form: form(),
        values: obj(json!({"replicas": 0})),
    };
    assert_eq!(
        check_edit(&current, &bad).unwrap_err().to_string(),
        "Invalid value for \"replicas\": At least 1."
    );
}

#[test]
fn approved_send_message_is_one_text_part_with_data_in_metadata_decision() {
    let action = ApprovalAction::SendMessage {
        text: "Go".into(),
        data: Some(obj(json!({"ticket": 42}))),
    };
    let message = approved_message(&action, "req-1", "dec-1", 2, "abc123");
    assert_eq!(message.message_id, "decision-dec-1");
    assert_eq!(message.parts, json!([{"text": "Go", "mediaType": "text/plain"}]));
    let expected = json!({
        "approval": {"requestId": "req-1", "decisionId": "dec-1", "revision": 2, "revisionDigest": "abc123"},
        "decision": {"ticket": 42}
    });
    assert_eq!(Value::Object(message.metadata), expected);
}

#[test]
fn approved_send_message_without_data_has_no_decision_metadata() {
    let message = approved_message(&text_action("Go"), "r", "d", 1, "x");
    assert!(!message.metadata.contains_key("decision"));
    assert_eq!(message.metadata["approval"]["revision"], json!(1));
}

#[test]
fn approved_send_data_is_exactly_one_json_data_part() {
    let action = data_action(json!({"replicas": 3}));
    let message = approved_message(&action, "r", "d", 1, "x");
    assert_eq!(
        message.parts,
        json!([{"data": {"replicas": 3, "dryRun": false}, "mediaType": "application/json"}])
    );
    assert!(!message.metadata.contains_key("decision"));
    let wire = serde_json::to_value(&message).unwrap();
    assert_eq!(wire["messageId"], "decision-d");
}

#[test]
fn decision_command_key_is_decision_colon_id() {
    assert_eq!(decision_command_key("abc"), "decision:abc");
}
