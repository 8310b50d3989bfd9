//! The sideband decoder and the structured-form rules compiled to wasm and run in Node
//! (`wasm-bindgen-test-runner`, no browser): the code the browser runs gives the answers the
//! server's tests check on the host. Run by `scripts/test`:
//! `cargo test -p app --target wasm32-unknown-unknown --test wasm_ext`.
#![cfg(target_arch = "wasm32")]

use app::ext::form::{initial_values, parse_form, reply_parts, validate_form};
use app::ext::sideband::{DecodeContext, Level, decode};
use app::ext::uri::{SIDEBAND_URI, TRACE_URI};
use serde_json::{Map, Value, json};
use wasm_bindgen_test::wasm_bindgen_test;

fn context() -> DecodeContext {
    DecodeContext {
        now: "2026-11-30T00:00:00.000Z".into(),
        id_prefix: "event-7".into(),
        session_id: None,
        request_id: None,
    }
}

#[wasm_bindgen_test]
fn trace_artifacts_map_by_the_reference_3_4_table() {
    let event = json!({"artifactUpdate": {"taskId": "t1", "artifact": {
        "artifactId": "a1", "name": "trace.lifecycle", "extensions": [TRACE_URI],
        "metadata": {"traceType": "trace.lifecycle", "timestamp": "2026-11-30T01:02:03Z"},
        "parts": [{"data": {"state": "started"}}],
    }}});
    let events = decode(&event, &[TRACE_URI.to_owned()], &context());
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].event_type, "agent.started");
    assert_eq!(events[0].title, "Agent execution started");
    assert_eq!(events[0].level, Level::Info);
    assert_eq!(events[0].timestamp, "2026-11-30T01:02:03Z");
}

#[wasm_bindgen_test]
fn metadata_events_decode_only_under_negotiated_uris_reference_3_3() {
    let event = json!({"statusUpdate": {"taskId": "t1", "status": {"state": "TASK_STATE_WORKING", "message": {
        "messageId": "m1", "role": "ROLE_AGENT", "parts": [{"text": "working"}],
        "metadata": {SIDEBAND_URI: [{"type": "tool.call", "level": "warn", "text": "<script>x</script>"}]},
    }}}});
    assert!(
        decode(&event, &[], &context()).is_empty(),
        "nothing without negotiation"
    );
    let events = decode(&event, &[SIDEBAND_URI.to_owned()], &context());
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].title, "tool call");
    assert_eq!(events[0].level, Level::Warning);
    // Generated ids are stable across decodes of the same stored event.
    assert_eq!(
        events[0].id,
        decode(&event, &[SIDEBAND_URI.to_owned()], &context())[0].id
    );
    assert_eq!(events[0].parts[0].value, json!("<script>x</script>"));
}

fn deploy_form() -> Value {
    json!({
        "title": "Deploy request",
        "schema": {"type": "object", "required": ["environment", "replicas"], "properties": {
            "environment": {"type": "string", "enum": ["staging", "production"]},
            "replicas": {"type": "integer", "minimum": 1, "maximum": 10, "default": 2},
            "dryRun": {"type": "boolean"},
        }},
    })
}

#[wasm_bindgen_test]
fn form_validation_gives_the_exact_messages_reference_1_1() {
    let form = parse_form(&deploy_form()).expect("valid form");
    let mut values = initial_values(&form);
    values.insert("replicas".into(), json!("2.5"));
    let errors = validate_form(&form, &values).expect_err("invalid");
    let messages: Vec<(String, String)> = errors.into_iter().map(|e| (e.key, e.message)).collect();
    assert_eq!(
        messages,
        vec![
            ("environment".to_owned(), "Required".to_owned()),
            ("replicas".to_owned(), "Enter a whole number".to_owned()),
        ]
    );
}

#[wasm_bindgen_test]
fn a_valid_submission_is_coerced_and_sent_as_one_json_part_reference_1_1() {
    let form = parse_form(&deploy_form()).expect("valid form");
    let mut values: Map<String, Value> = initial_values(&form);
    values.insert("environment".into(), json!("production"));
    values.insert("replicas".into(), json!(" 3 "));
    values.insert("extra".into(), json!("dropped"));
    let submission = validate_form(&form, &values).expect("valid");
    assert_eq!(
        reply_parts(&submission),
        json!([{"data": {"environment": "production", "replicas": 3, "dryRun": false}, "mediaType": "application/json"}])
    );
    assert!(
        parse_form(&json!({"schema": {"type": "object", "properties": {"x": {"type": "object"}}}})).is_err()
    );
}
