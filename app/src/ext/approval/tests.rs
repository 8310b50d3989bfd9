//! Tests for `approval.rs`: the approval request payload rules of reference.md §1.2.

use super::*;
use crate::ext::canonical::tests::{arb_json, hostile_corpus};
use proptest::prelude::*;
use serde_json::json;

fn request(overrides: Value) -> Value {
    let mut base = json!({
        "title": "Delete the staging cluster",
        "action": {"kind": "send_message", "text": "Approved. Delete the staging cluster."}
    });
    for (key, value) in overrides.as_object().unwrap() {
        base[key] = value.clone();
    }
    base
}

fn parsed(overrides: Value) -> Result<ApprovalRequest, ApprovalRejection> {
    parse_approval(&request(overrides))
}

#[test]
fn minimal_request_gets_defaults() {
    let r = parsed(json!({})).unwrap();
    assert_eq!(r.title, "Delete the staging cluster");
    assert_eq!(r.summary, "");
    assert_eq!(r.risk, Risk::Medium);
    assert_eq!(r.lifetime_ms, 86_400_000);
    let text = "Approved. Delete the staging cluster.".to_owned();
    assert_eq!(r.action, ApprovalAction::SendMessage { text, data: None });
}

#[test]
fn data_must_be_an_object() {
    assert_eq!(parse_approval(&json!([])), Err(ApprovalRejection::NotAnObject));
    assert_eq!(parse_approval(&json!("x")), Err(ApprovalRejection::NotAnObject));
}

#[test]
fn title_trimmed_and_at_most_300_untrimmed_chars() {
    assert_eq!(parsed(json!({"title": "  Ship it \n"})).unwrap().title, "Ship it");
    assert_eq!(
        parsed(json!({"title": "t".repeat(300)})).unwrap().title.len(),
        300
    );
    for bad in [
        json!("t".repeat(301)),
        json!(format!(" {} ", "t".repeat(299))),
        json!("   "),
        json!(""),
        json!(1),
    ] {
        assert_eq!(
            parsed(json!({ "title": bad })),
            Err(ApprovalRejection::InvalidTitle)
        );
    }
    let mut missing = request(json!({}));
    missing.as_object_mut().unwrap().remove("title");
    assert_eq!(parse_approval(&missing), Err(ApprovalRejection::InvalidTitle));
}

#[test]
fn title_length_counts_utf16_units() {
    assert!(parsed(json!({"title": "😀".repeat(150)})).is_ok());
    assert_eq!(
        parsed(json!({"title": "😀".repeat(151)})),
        Err(ApprovalRejection::InvalidTitle)
    );
}

#[test]
fn summary_at_most_4000_and_must_be_a_string() {
    assert_eq!(
        parsed(json!({"summary": "s".repeat(4000)}))
            .unwrap()
            .summary
            .len(),
        4000
    );
    for bad in [json!("s".repeat(4001)), json!(null), json!(5), json!(["s"])] {
        assert_eq!(
            parsed(json!({ "summary": bad })),
            Err(ApprovalRejection::InvalidSummary)
        );
    }
}

#[test]
fn risk_low_medium_high_default_medium() {
    assert_eq!(parsed(json!({"risk": "low"})).unwrap().risk, Risk::Low);
    assert_eq!(parsed(json!({"risk": "high"})).unwrap().risk, Risk::High);
    for bad in [json!("HIGH"), json!("critical"), json!(null), json!(2)] {
        assert_eq!(
            parsed(json!({ "risk": bad })),
            Err(ApprovalRejection::InvalidRisk)
        );
    }
    assert_eq!(Risk::parse("medium").map(Risk::as_str), Some("medium"));
}

#[test]
fn expires_in_seconds_clamped_to_5_minutes_through_7_days() {
    let lifetime = |s: Value| parsed(json!({ "expiresInSeconds": s })).unwrap().lifetime_ms;
    assert_eq!(lifetime(json!(3600)), 3_600_000);
    assert_eq!(lifetime(json!(299)), 300_000);
    assert_eq!(lifetime(json!(0)), 300_000);
    assert_eq!(lifetime(json!(-5)), 300_000);
    assert_eq!(lifetime(json!(604_801)), 604_800_000);
    assert_eq!(lifetime(json!(1e300)), 604_800_000);
    assert_eq!(lifetime(json!(300.0009)), 300_000);
    assert_eq!(lifetime(json!(1000.0004)), 1_000_000);
}

#[test]
fn expires_in_seconds_must_be_a_finite_number() {
    for bad in [json!("3600"), json!("Infinity"), json!(null), json!(true)] {
        assert_eq!(
            parsed(json!({ "expiresInSeconds": bad })),
            Err(ApprovalRejection::InvalidExpiry)
        );
    }
}

#[test]
fn send_message_action_shape() {
    let with_data =
        parsed(json!({"action": {"kind": "send_message", "text": "", "data": {"a": 1}}})).unwrap();
    let data = json!({"a": 1}).as_object().cloned();
    assert_eq!(
        with_data.action,
        ApprovalAction::SendMessage {
            text: String::new(),
            data
        }
    );
    for bad in [
        json!({"kind": "send_message"}),
        json!({"kind": "send_message", "text": 5}),
        json!({"kind": "send_message", "text": "x", "data": null}),
        json!({"kind": "send_message", "text": "x", "data": [1]}),
        json!({"kind": "send_message", "text": "x", "data": "d"}),
    ] {
        assert_eq!(
            parsed(json!({ "action": bad })),
            Err(ApprovalRejection::InvalidAction)
        );
    }
}

#[test]
fn send_data_action_shape() {
    let action = json!({"kind": "send_data", "form": {"x": 1}, "values": {"a": "b"}});
    assert!(matches!(
        parsed(json!({ "action": action })).unwrap().action,
        ApprovalAction::SendData { .. }
    ));
    for bad in [
        json!({"kind": "send_data", "form": {}}),
        json!({"kind": "send_data", "form": [], "values": {}}),
        json!({"kind": "send_data", "form": {}, "values": null}),
    ] {
        assert_eq!(
            parsed(json!({ "action": bad })),
            Err(ApprovalRejection::InvalidAction)
        );
    }
}

#[test]
fn other_action_kinds_reject() {
    for bad in [
        json!({"kind": "run_tool", "text": "x"}),
        json!({"text": "x"}),
        json!("send_message"),
        json!(null),
    ] {
        assert_eq!(
            parsed(json!({ "action": bad })),
            Err(ApprovalRejection::InvalidAction)
        );
    }
    let mut missing = request(json!({}));
    missing.as_object_mut().unwrap().remove("action");
    assert_eq!(parse_approval(&missing), Err(ApprovalRejection::InvalidAction));
}

#[test]
fn whole_part_over_131072_chars_rejects() {
    // `{"title":"…","action":{…}}` with the summary sized so the JSON is exactly at the limit.
    let base = crate::ext::canonical::json_utf16_len(&request(json!({"summary": ""})));
    let fits = MAX_PART_CHARS - base;
    let big_text = |n: usize| json!({"kind": "send_message", "text": "x".repeat(n)});
    let at_limit = request(json!({"summary": "", "action": big_text(fits + 37)}));
    assert_eq!(crate::ext::canonical::json_utf16_len(&at_limit), MAX_PART_CHARS);
    assert!(parse_approval(&at_limit).is_ok());
    let over = request(json!({"summary": "", "action": big_text(fits + 38)}));
    assert_eq!(parse_approval(&over), Err(ApprovalRejection::TooLarge));
}

#[test]
fn fields_the_part_cannot_set_are_ignored() {
    let r = parsed(
        json!({"taskId": "other", "agentId": "x", "assignedMembershipId": "m", "requesterUserId": "u",
        "reviewer": "r", "policy": {"allowedOutcomes": []}, "status": "approved", "tenant": "t", "skill": "s"}),
    );
    assert_eq!(r.unwrap(), parsed(json!({})).unwrap());
}

#[test]
fn action_serialises_to_its_wire_shape() {
    let action = ApprovalAction::SendMessage {
        text: "hi".into(),
        data: None,
    };
    assert_eq!(
        serde_json::to_value(&action).unwrap(),
        json!({"kind": "send_message", "text": "hi"})
    );
    let wire = json!({"kind": "send_data", "form": {"a": 1}, "values": {"b": 2}});
    let parsed: ApprovalAction = serde_json::from_value(wire.clone()).unwrap();
    assert_eq!(parsed.kind(), "send_data");
    assert_eq!(serde_json::to_value(&parsed).unwrap(), wire);
}

proptest! {
    #[test]
    fn parse_approval_never_panics(value in arb_json(), action in arb_json()) {
        let _ = parse_approval(&value);
        if let Ok(r) = parse_approval(&json!({"title": "t", "action": action})) {
            prop_assert!((MIN_LIFETIME_MS..=MAX_LIFETIME_MS).contains(&r.lifetime_ms));
            let _ = validate_action(&r.action);
            let _ = action_digest(&r.action);
        }
    }
}

#[test]
fn hostile_corpus_stays_plain_data() {
    for value in hostile_corpus() {
        let _ = parse_approval(&value);
        let r = parse_approval(
            &json!({"title": "<script>x</script>", "action": {"kind": "send_message",
            "text": "javascript:alert(1)", "data": {"__proto__": value}}}),
        );
        if let Ok(r) = r {
            assert_eq!(r.title, "<script>x</script>");
            let _ = action_digest(&r.action);
        }
    }
}
