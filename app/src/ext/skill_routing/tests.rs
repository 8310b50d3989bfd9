//! Tests for `skill_routing.rs` (`reference.md` §1.3, §4.4).

use proptest::prelude::*;
use serde_json::{Map, Value, json};

use super::*;

fn card(advertise: bool) -> Value {
    let extensions = if advertise {
        json!([{"uri": SKILL_ROUTING_URI}])
    } else {
        json!([])
    };
    json!({
        "capabilities": {"extensions": extensions},
        "skills": [
            {"id": "research", "name": "Research", "description": "Finds papers", "tags": ["papers", 3],
             "examples": ["find x"]},
            {"id": "plain"},
            {"id": "research", "name": "Duplicate"},
            {"name": "no id"},
            {"id": ""},
            {"id": 7},
            "not an object"
        ]
    })
}

#[test]
fn opt_in_needs_the_uri_and_a_listed_skill() {
    assert!(card_supports_skill(&card(true), "research"));
    assert!(
        !card_supports_skill(&card(false), "research"),
        "URI not advertised"
    );
    assert!(!card_supports_skill(&card(true), "missing"), "skill not listed");
}

#[test]
fn skill_match_is_exact() {
    assert!(!card_supports_skill(&card(true), "Research"));
    assert!(!card_supports_skill(&card(true), "research "));
    assert!(!card_supports_skill(&card(true), "7"));
}

#[test]
fn opt_in_false_for_cards_without_skills() {
    let card = json!({"capabilities": {"extensions": [{"uri": SKILL_ROUTING_URI}]}});
    assert!(!card_supports_skill(&card, "research"));
    assert!(!card_supports_skill(&json!(null), "research"));
}

#[test]
fn skill_id_is_1_to_255_chars() {
    assert_eq!(SKILL_ID_MIN, 1);
    assert_eq!(SKILL_ID_MAX, 255);
    assert_eq!(validate_skill_id(""), Err(SkillError::InvalidSkillId));
    assert_eq!(validate_skill_id("a"), Ok(()));
    assert_eq!(validate_skill_id(&"a".repeat(255)), Ok(()));
    assert_eq!(
        validate_skill_id(&"a".repeat(256)),
        Err(SkillError::InvalidSkillId)
    );
}

#[test]
fn skill_id_length_counts_utf16_code_units() {
    assert_eq!(validate_skill_id(&"😀".repeat(127)), Ok(()), "254 units");
    assert_eq!(
        validate_skill_id(&"😀".repeat(128)),
        Err(SkillError::InvalidSkillId),
        "256 units"
    );
    assert_eq!(validate_skill_id(&"é".repeat(255)), Ok(()));
}

#[test]
fn blank_skill_id_passes_validation_but_matches_nothing() {
    assert_eq!(validate_skill_id(" "), Ok(()));
    assert!(!card_supports_skill(&card(true), " "));
}

#[test]
fn error_strings_are_exact() {
    assert_eq!(
        SkillError::SkillChanged.to_string(),
        "Task skill cannot be changed."
    );
    assert_eq!(SkillError::ContextMismatch.to_string(), "Task context mismatch.");
    assert_eq!(
        SkillError::NewContextRequired.to_string(),
        "A skill-scoped send must start a new context."
    );
    assert_eq!(
        SkillError::Unsupported.to_string(),
        "This agent does not support bounded skill routing."
    );
    assert_eq!(
        SkillError::InvalidSkillId.to_string(),
        "skillId must be 1 to 255 characters."
    );
}

#[test]
fn refusals_are_403_validation_is_400() {
    for error in [
        SkillError::SkillChanged,
        SkillError::ContextMismatch,
        SkillError::NewContextRequired,
        SkillError::Unsupported,
    ] {
        assert_eq!(error.status(), 403);
    }
    assert_eq!(SkillError::InvalidSkillId.status(), 400);
}

#[test]
fn caller_routing_key_is_deleted_and_nothing_else() {
    let mut metadata: Map<String, Value> = serde_json::from_value(json!({
        SKILL_ROUTING_URI: {"skillId": "forged"},
        "other": 1,
        format!("{SKILL_ROUTING_URI}/x"): 2
    }))
    .unwrap();
    strip_caller_routing(&mut metadata);
    assert_eq!(
        Value::Object(metadata),
        json!({"other": 1, format!("{SKILL_ROUTING_URI}/x"): 2})
    );
}

#[test]
fn routing_metadata_is_the_request_level_entry() {
    let (key, value) = routing_metadata("research");
    assert_eq!(
        key,
        "https://extensions.allsrc.dev/agent-taskbay/skill-routing/v1"
    );
    assert_eq!(value, json!({"skillId": "research"}));
}

#[test]
fn routing_metadata_merges_over_the_callers() {
    let mut request: Map<String, Value> =
        serde_json::from_value(json!({SKILL_ROUTING_URI: {"skillId": "forged"}, "keep": true})).unwrap();
    let (key, value) = routing_metadata("research");
    request.insert(key, value);
    assert_eq!(
        Value::Object(request),
        json!({SKILL_ROUTING_URI: {"skillId": "research"}, "keep": true})
    );
}

#[test]
fn skill_picker_lists_valid_skills_once_in_card_order() {
    let got = skills(&card(true));
    assert_eq!(
        got,
        vec![
            SkillSummary {
                id: "research".into(),
                name: "Research".into(),
                description: "Finds papers".into(),
                tags: vec!["papers".into()],
                examples: vec!["find x".into()],
            },
            SkillSummary {
                id: "plain".into(),
                name: "plain".into(),
                description: String::new(),
                tags: vec![],
                examples: vec![],
            },
        ]
    );
}

#[test]
fn skill_picker_empty_for_cards_without_skills() {
    assert!(skills(&json!({})).is_empty());
    assert!(skills(&json!({"skills": {"id": "x"}})).is_empty());
}

#[test]
fn skill_summary_serialises_camel_case() {
    let summary = &skills(&card(true))[1];
    assert_eq!(
        serde_json::to_value(summary).unwrap(),
        json!({"id": "plain", "name": "plain", "description": "", "tags": [], "examples": []})
    );
}

proptest! {
    #[test]
    fn validation_agrees_with_utf16_length(id in ".{0,300}") {
        let units = id.encode_utf16().count();
        prop_assert_eq!(validate_skill_id(&id).is_ok(), (1..=255).contains(&units));
    }

    #[test]
    fn routing_metadata_round_trips_any_id(id in ".{1,40}") {
        let (_, value) = routing_metadata(&id);
        prop_assert_eq!(value.get("skillId").and_then(Value::as_str), Some(id.as_str()));
    }
}
