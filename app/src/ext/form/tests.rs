//! Tests for `form.rs`: every parsing rule, limit and rejection trigger of reference.md §1.1, plus
//! start forms, quick replies, reply parts and the hostile-input properties.

use super::*;
use crate::ext::canonical::tests::{arb_json, hostile_corpus};
use proptest::prelude::*;

fn form_with(properties: Value) -> Value {
    json!({"schema": {"type": "object", "properties": properties}})
}

fn only_field(property: Value) -> Result<FormField, FormRejection> {
    parse_form(&form_with(json!({ "f": property }))).map(|form| form.fields[0].clone())
}

fn many(n: usize) -> Value {
    let props: Map<String, Value> = (0..n)
        .map(|i| (format!("f{i}"), json!({"type": "boolean"})))
        .collect();
    form_with(Value::Object(props))
}

#[test]
fn minimal_form_gets_default_title_and_submit_label() {
    let form = parse_form(&form_with(json!({"name": {"type": "string"}}))).unwrap();
    assert_eq!(form.title, "Agent request");
    assert_eq!(form.submit_label, "Submit");
    assert_eq!(form.description, None);
    assert_eq!(form.fields[0].label, "name");
    assert!(!form.fields[0].required);
}

#[test]
fn whole_form_rejection_triggers() {
    assert_eq!(parse_form(&json!([1])), Err(FormRejection::NotAnObject));
    assert_eq!(parse_form(&json!("form")), Err(FormRejection::NotAnObject));
    assert_eq!(parse_form(&json!({})), Err(FormRejection::MissingSchema));
    assert_eq!(
        parse_form(&json!({"schema": []})),
        Err(FormRejection::MissingSchema)
    );
    let no_type = json!({"schema": {"properties": {"a": {"type": "string"}}}});
    assert_eq!(parse_form(&no_type), Err(FormRejection::SchemaNotObject));
    let array_type = json!({"schema": {"type": "array", "properties": {"a": {"type": "string"}}}});
    assert_eq!(parse_form(&array_type), Err(FormRejection::SchemaNotObject));
    let no_props = json!({"schema": {"type": "object"}});
    assert_eq!(parse_form(&no_props), Err(FormRejection::MissingProperties));
    assert_eq!(
        parse_form(&form_with(json!([{"type": "string"}]))),
        Err(FormRejection::MissingProperties)
    );
    assert_eq!(parse_form(&form_with(json!({}))), Err(FormRejection::NoFields));
}

#[test]
fn properties_limited_to_30_entries() {
    assert_eq!(parse_form(&many(30)).unwrap().fields.len(), 30);
    assert_eq!(parse_form(&many(31)), Err(FormRejection::TooManyFields));
}

#[test]
fn property_keys_must_match_the_key_pattern() {
    for key in ["a", "_", "A_9", "_private", &format!("a{}", "b".repeat(63))] {
        assert!(is_valid_key(key), "{key}");
    }
    for key in [
        "",
        "9a",
        "a-b",
        "a b",
        "é",
        "a.b",
        "$ref",
        &format!("a{}", "b".repeat(64)),
    ] {
        assert!(!is_valid_key(key), "{key}");
        let result = parse_form(&form_with(json!({ key: {"type": "string"} })));
        assert!(matches!(result, Err(FormRejection::InvalidKey(_))), "{key}");
    }
}

#[test]
fn reserved_keys_reject_the_form() {
    for key in RESERVED_KEYS {
        let result = parse_form(&form_with(json!({ key: {"type": "string"} })));
        assert_eq!(result, Err(FormRejection::ReservedKey(key.to_owned())));
    }
}

#[test]
fn non_object_property_rejects_the_form() {
    assert_eq!(
        only_field(json!("string")),
        Err(FormRejection::FieldNotObject("f".into()))
    );
    assert_eq!(
        only_field(json!(null)),
        Err(FormRejection::FieldNotObject("f".into()))
    );
}

#[test]
fn unsupported_types_reject_the_form() {
    for property in [
        json!({"type": "object"}),
        json!({"type": "array"}),
        json!({"type": "null"}),
        json!({"$ref": "#/defs/x"}),
        json!({"oneOf": [{"type": "string"}]}),
        json!({"type": ["string", "null"]}),
    ] {
        assert_eq!(
            only_field(property),
            Err(FormRejection::UnsupportedType("f".into()))
        );
    }
}

#[test]
fn title_truncated_to_120_chars() {
    let mut data = form_with(json!({"a": {"type": "string", "title": "t".repeat(200)}}));
    data["title"] = json!("T".repeat(200));
    let form = parse_form(&data).unwrap();
    assert_eq!(form.title, "T".repeat(120));
    assert_eq!(form.fields[0].label, "t".repeat(120));
    data["title"] = json!(format!("{}😀", "T".repeat(119)));
    assert_eq!(parse_form(&data).unwrap().title, "T".repeat(119));
    data["title"] = json!("");
    assert_eq!(parse_form(&data).unwrap().title, "Agent request");
}

#[test]
fn description_truncated_to_2000_and_empty_means_absent() {
    let mut data = form_with(json!({"a": {"type": "string", "description": "d".repeat(2500)}}));
    data["description"] = json!("D".repeat(2500));
    let form = parse_form(&data).unwrap();
    assert_eq!(form.description, Some("D".repeat(2000)));
    assert_eq!(form.fields[0].description, Some("d".repeat(2000)));
    data["description"] = json!("");
    assert_eq!(parse_form(&data).unwrap().description, None);
}

#[test]
fn submit_label_truncated_to_40_chars() {
    let mut data = form_with(json!({"a": {"type": "string"}}));
    data["submitLabel"] = json!("S".repeat(50));
    assert_eq!(parse_form(&data).unwrap().submit_label, "S".repeat(40));
    data["submitLabel"] = json!(12);
    assert_eq!(parse_form(&data).unwrap().submit_label, "Submit");
}

#[test]
fn required_uses_only_string_entries_naming_properties() {
    let mut data = form_with(json!({"a": {"type": "string"}, "b": {"type": "string"}}));
    data["schema"]["required"] = json!(["b", 1, "zzz", null]);
    let form = parse_form(&data).unwrap();
    let required: Vec<_> = form.fields.iter().map(|f| (f.key.as_str(), f.required)).collect();
    assert_eq!(required, [("a", false), ("b", true)]);
    data["schema"]["required"] = json!("a");
    assert!(parse_form(&data).unwrap().fields.iter().all(|f| !f.required));
}

#[test]
fn order_is_a_sibling_of_schema_with_stable_ordering() {
    let props = json!({"a": {"type": "string"}, "b": {"type": "string"}, "c": {"type": "string"}, "d": {"type": "string"}});
    let mut data = form_with(props);
    data["order"] = json!(["c", 5, "nope", "a"]);
    let keys = |d: &Value| {
        parse_form(d)
            .unwrap()
            .fields
            .into_iter()
            .map(|f| f.key)
            .collect::<Vec<_>>()
    };
    assert_eq!(keys(&data), ["c", "a", "b", "d"]);
    data["order"] = json!("c");
    assert_eq!(keys(&data), ["a", "b", "c", "d"]);
    let mut inner = data.clone();
    inner["order"] = Value::Null;
    inner["schema"]["order"] = json!(["d"]);
    assert_eq!(keys(&inner), ["a", "b", "c", "d"]);
}

#[test]
fn form_media_type_is_compared_lower_cased() {
    assert!(is_form_media_type("application/vnd.agent-taskbay.form+json"));
    assert!(is_form_media_type("Application/VND.Agent-Taskbay.Form+JSON"));
    assert!(!is_form_media_type("application/vnd.a2a-ops.form+json"));
    assert!(!is_form_media_type("application/json"));
}

#[test]
fn start_form_comes_from_the_form_extension_params() {
    let start = form_with(json!({"topic": {"type": "string"}}));
    let card = json!({"capabilities": {"extensions": [
        {"uri": "urn:other", "params": {"startForm": form_with(json!({"other": {"type": "string"}}))}},
        {"uri": FORM_URI, "params": {"startForm": start.clone()}},
    ]}});
    assert_eq!(start_form(&card).unwrap().fields[0].key, "topic");
    // The chat receives the definition as the card states it, and parses it where it shows it.
    assert_eq!(start_form_definition(&card), Some(start));
    let invalid = json!({"capabilities": {"extensions": [{"uri": FORM_URI, "params": {"startForm": {}}}]}});
    assert_eq!(start_form(&invalid), None);
    assert_eq!(
        start_form_definition(&invalid),
        None,
        "an invalid start form is not sent"
    );
    let absent = json!({"capabilities": {"extensions": [{"uri": FORM_URI}]}});
    assert_eq!(start_form(&absent), None);
    assert_eq!(start_form(&json!({"capabilities": {}})), None);
}

#[test]
fn quick_replies_from_options_or_choices_string_arrays() {
    assert_eq!(quick_replies(&json!({"options": ["Yes", "No"]})), ["Yes", "No"]);
    assert_eq!(quick_replies(&json!({"choices": ["A"]})), ["A"]);
    assert_eq!(quick_replies(&json!({"options": null, "choices": ["A"]})), ["A"]);
    assert!(quick_replies(&json!({"options": ["A", 1]})).is_empty());
    assert!(quick_replies(&json!({"options": "A", "choices": ["B"]})).is_empty());
    assert!(quick_replies(&json!(["A"])).is_empty());
    assert!(quick_replies(&json!("A")).is_empty());
}

#[test]
fn reply_parts_are_exactly_one_json_data_part() {
    let submission: Map<String, Value> =
        serde_json::from_value(json!({"environment": "production", "replicas": 3, "dryRun": false})).unwrap();
    let parts = reply_parts(&submission);
    assert_eq!(
        parts,
        json!([{"data": {"environment": "production", "replicas": 3, "dryRun": false}, "mediaType": "application/json"}])
    );
}

#[test]
fn rejection_messages_are_short_plain_text() {
    assert_eq!(
        FormRejection::TooManyFields.to_string(),
        "The form has more than 30 fields."
    );
    let long_key = "k-".repeat(100);
    let Err(FormRejection::InvalidKey(quoted)) = parse_form(&form_with(json!({ long_key: {} }))) else {
        panic!()
    };
    assert_eq!(quoted.len(), 64);
}

#[test]
fn the_start_form_reaches_the_browser_as_stated_and_parses_there_alike() {
    let definition = form_with(json!({"n": {"type": "string", "maxLength": 5}}));
    let card = json!({"capabilities": {"extensions": [
        {"uri": FORM_URI, "params": {"startForm": definition.clone()}},
    ]}});
    let extensions = crate::api::extensions::AgentExtensions::from_card(&card, &[], &[], None);
    let sent = serde_json::to_value(&extensions).unwrap();
    assert_eq!(sent["startForm"], definition);
    assert_eq!(parse_form(&sent["startForm"]).ok(), start_form(&card));
}

proptest! {
    #[test]
    fn parse_form_never_panics(value in arb_json()) {
        let _ = parse_form(&value);
        let _ = quick_replies(&value);
        let _ = start_form(&value);
    }

    #[test]
    fn parsed_forms_respect_every_limit(value in arb_json()) {
        let wrapped = json!({"title": value.clone(), "schema": {"type": "object", "properties": value}});
        if let Ok(form) = parse_form(&wrapped) {
            prop_assert!((1..=MAX_FIELDS).contains(&form.fields.len()));
            for field in &form.fields {
                prop_assert!(is_valid_key(&field.key) && !RESERVED_KEYS.contains(&field.key.as_str()));
            }
        }
    }
}

#[test]
fn hostile_corpus_stays_plain_data() {
    for value in hostile_corpus() {
        let _ = parse_form(&value);
        let _ = parse_form(&json!({"schema": {"type": "object", "properties": value.clone()}}));
        let _ = quick_replies(&value);
    }
    let form = parse_form(&form_with(
        json!({"x": {"type": "string", "title": "<script>alert(1)</script>",
        "enum": ["javascript:alert(1)"]}}),
    ))
    .unwrap();
    assert_eq!(form.fields[0].label, "<script>alert(1)</script>");
    let proto = json!({"schema": {"type": "object", "properties": {"__proto__": {"type": "string"}}}});
    assert_eq!(
        parse_form(&proto),
        Err(FormRejection::ReservedKey("__proto__".into()))
    );
}
