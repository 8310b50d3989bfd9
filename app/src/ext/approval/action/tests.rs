//! Tests for `approval/action.rs`: `validateAction` limits and messages, digest vectors computed
//! independently (literal canonical strings, checked against Node.js), and request keys.

use super::*;
use serde_json::json;

fn obj(v: Value) -> Map<String, Value> {
    serde_json::from_value(v).unwrap()
}

fn deploy_form() -> Map<String, Value> {
    obj(json!({
        "title": "Deploy",
        "schema": {"type": "object", "required": ["environment"], "properties": {
            "replicas": {"type": "integer", "minimum": 1, "maximum": 10},
            "environment": {"enum": ["staging", "production"]},
            "dryRun": {"type": "boolean"}}},
        "order": ["environment", "replicas", "dryRun"]
    }))
}

fn send_data(values: Value) -> ApprovalAction {
    ApprovalAction::SendData {
        form: deploy_form(),
        values: obj(values),
    }
}

fn message(text: &str, data: Option<Value>) -> ApprovalAction {
    ApprovalAction::SendMessage {
        text: text.to_owned(),
        data: data.map(obj),
    }
}

fn hex(s: &str) -> String {
    Sha256::digest(s.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[test]
fn send_message_text_must_be_non_blank_and_at_most_20000() {
    assert_eq!(validate_action(&message("ok", None)), Ok(message("ok", None)));
    assert!(validate_action(&message(&"x".repeat(20_000), None)).is_ok());
    for bad in ["", " \n\t\u{feff}", &"x".repeat(20_001)] {
        assert_eq!(
            validate_action(&message(bad, None)),
            Err(ActionError::InvalidText)
        );
    }
    assert_eq!(
        ActionError::InvalidText.to_string(),
        "A proposed action needs a send_message kind and 1–20000 characters of text."
    );
}

#[test]
fn send_message_data_json_at_most_64_kib() {
    // {"d":"…"} is 8 characters plus the string.
    let fits = message("ok", Some(json!({"d": "x".repeat(65_536 - 8)})));
    assert!(validate_action(&fits).is_ok());
    let over = message("ok", Some(json!({"d": "x".repeat(65_536 - 7)})));
    assert_eq!(validate_action(&over), Err(ActionError::DataTooLarge));
}

#[test]
fn send_data_values_are_coerced_and_booleans_filled() {
    let validated =
        validate_action(&send_data(json!({"environment": "production", "replicas": "3"}))).unwrap();
    assert_eq!(
        validated,
        send_data(json!({"environment": "production", "replicas": 3, "dryRun": false}))
    );
}

#[test]
fn send_data_form_at_most_64_kib() {
    let mut form = deploy_form();
    let size = crate::ext::canonical::json_utf16_len(&Value::Object(form.clone()));
    // `,"pad":"…"` adds 9 characters plus the string.
    form.insert("pad".into(), json!("p".repeat(MAX_FORM_CHARS - size - 9)));
    let action = ApprovalAction::SendData {
        form: form.clone(),
        values: obj(json!({"environment": "staging"})),
    };
    assert!(validate_action(&action).is_ok());
    form.insert("pad".into(), json!("p".repeat(MAX_FORM_CHARS - size - 8)));
    let action = ApprovalAction::SendData {
        form,
        values: obj(json!({"environment": "staging"})),
    };
    assert_eq!(validate_action(&action), Err(ActionError::FormTooLarge));
}

#[test]
fn send_data_form_must_parse() {
    let action = ApprovalAction::SendData {
        form: obj(json!({"schema": {}})),
        values: Map::new(),
    };
    assert!(matches!(
        validate_action(&action),
        Err(ActionError::InvalidForm(_))
    ));
}

#[test]
fn unknown_value_key_message() {
    let err = validate_action(&send_data(json!({"environment": "staging", "__proto__": 1}))).unwrap_err();
    assert_eq!(
        err.to_string(),
        "The value \"__proto__\" is not a field of the form."
    );
    let err = validate_action(&send_data(json!({"environment": "staging", "toString": "x"}))).unwrap_err();
    assert_eq!(err, ActionError::UnknownValue("toString".into()));
}

#[test]
fn invalid_value_message() {
    let err = validate_action(&send_data(json!({"environment": "staging", "replicas": 0}))).unwrap_err();
    assert_eq!(err.to_string(), "Invalid value for \"replicas\": At least 1.");
    let err = validate_action(&send_data(json!({"replicas": 2}))).unwrap_err();
    assert_eq!(err.to_string(), "Invalid value for \"environment\": Required.");
    let err = validate_action(&send_data(json!({"environment": "prod"}))).unwrap_err();
    assert_eq!(
        err.to_string(),
        "Invalid value for \"environment\": Choose one of the options."
    );
}

#[test]
fn digest_of_send_message_without_data_uses_null() {
    let canonical = r#"{"data":null,"kind":"send_message","text":"Approved. Delete the staging cluster."}"#;
    let action = message("Approved. Delete the staging cluster.", None);
    assert_eq!(canonical_json(&digest_input(&action)), canonical);
    assert_eq!(action_digest(&action), hex(canonical));
    // Computed with Node.js `createHash("sha256").update(canonicalJson(…))`.
    assert_eq!(
        action_digest(&action),
        "7e67b177c860df8854e5762f802a140d59a6e4c807c1ce5f25e580bed32cef02"
    );
}

#[test]
fn digest_sorts_keys_by_utf16_and_formats_numbers_as_javascript() {
    let data: Value = serde_json::from_str(
        r#"{"b":[1,2.5,1e21,0.0000001,123456789012345678901],"a":{"z":true,"Y":null},"é":"x\u0001","\ue000":1,"😀":2}"#,
    )
    .unwrap();
    let action = message("Go ahead 😀", Some(data));
    let canonical = "{\"data\":{\"a\":{\"Y\":null,\"z\":true},\"b\":[1,2.5,1e+21,1e-7,123456789012345680000],\
        \"é\":\"x\\u0001\",\"😀\":2,\"\u{e000}\":1},\"kind\":\"send_message\",\"text\":\"Go ahead 😀\"}";
    assert_eq!(canonical_json(&digest_input(&action)), canonical);
    assert_eq!(action_digest(&action), hex(canonical));
    assert_eq!(
        action_digest(&action),
        "de421626ed5d7193bbc142aaeb9c89b4a47f735050031c2238b4b7eb29b7e9d3"
    );
}

#[test]
fn digest_of_send_data_covers_form_and_values() {
    let action = validate_action(&send_data(json!({"environment": "production", "replicas": "3"}))).unwrap();
    let canonical = concat!(
        r#"{"form":{"order":["environment","replicas","dryRun"],"schema":{"properties":{"dryRun":{"type":"boolean"},"#,
        r#""environment":{"enum":["staging","production"]},"replicas":{"maximum":10,"minimum":1,"type":"integer"}},"#,
        r#""required":["environment"],"type":"object"},"title":"Deploy"},"kind":"send_data","#,
        r#""values":{"dryRun":false,"environment":"production","replicas":3}}"#
    );
    assert_eq!(canonical_json(&digest_input(&action)), canonical);
    assert_eq!(
        action_digest(&action),
        "4bf2383afdc6b2bdf2ac657a07daa1afe5dd231f0806cc335e661e6dab6be17b"
    );
}

#[test]
fn digest_is_lower_case_hex_sha256() {
    let digest = action_digest(&message("x", None));
    assert_eq!(digest.len(), 64);
    assert!(
        digest
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    );
    assert_eq!(
        sha256_hex(b""),
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
}

#[test]
fn request_key_uses_first_16_hex_chars_of_the_digest() {
    let digest = "7e67b177c860df8854e5762f802a140d59a6e4c807c1ce5f25e580bed32cef02";
    assert_eq!(
        request_key("task-uuid", "msg-1", digest),
        "agent:task-uuid:msg-1:7e67b177c860df88"
    );
}
