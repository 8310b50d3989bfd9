//! Tests for `sideband/meta.rs`: the §3.3 metadata path.

use serde_json::{Value, json};

use super::*;
use crate::ext::sideband::{PartKind, SidebandPart, decode};
use crate::ext::uri::{SIDEBAND_URI, TRACE_URI};

fn ctx() -> DecodeContext {
    DecodeContext {
        now: "NOW".into(),
        id_prefix: "ev".into(),
        session_id: Some("s".into()),
        request_id: None,
    }
}

fn one() -> Vec<String> {
    vec![SIDEBAND_URI.to_owned()]
}

fn both() -> Vec<String> {
    vec![SIDEBAND_URI.to_owned(), TRACE_URI.to_owned()]
}

fn in_message(metadata: Value) -> Value {
    json!({"message": {"messageId": "m1", "role": "ROLE_AGENT", "parts": [], "metadata": metadata}})
}

fn ids(events: &[SidebandEvent]) -> Vec<&str> {
    events.iter().map(|e| e.id.as_str()).collect()
}

fn single(item: Value) -> SidebandEvent {
    let got = decode(&in_message(json!({ SIDEBAND_URI: [item] })), &one(), &ctx());
    assert_eq!(got.len(), 1);
    got.into_iter().next().unwrap()
}

// candidates

#[test]
fn candidate_order_uri_key_then_suffixed_keys_then_conventional_keys() {
    let metadata = json!({
        "sideband": {"id": "conv-2"},
        "sidebandEvents": {"id": "conv-1"},
        format!("{SIDEBAND_URI}/events"): {"id": "suffix"},
        SIDEBAND_URI: {"id": "exact"},
    });
    let got = decode(&in_message(metadata), &one(), &ctx());
    assert_eq!(ids(&got), vec!["exact", "suffix", "conv-1", "conv-2"]);
}

#[test]
fn suffixed_keys_match_events_or_sideband_case_insensitively() {
    let metadata = json!({
        format!("{SIDEBAND_URI}/a/EVENTS"): {"id": "upper"},
        format!("{SIDEBAND_URI}/Sideband"): {"id": "mixed"},
        format!("{SIDEBAND_URI}/other"): {"id": "no-suffix"},
        format!("{SIDEBAND_URI}events"): {"id": "no-slash"},
        "urn:elsewhere/events": {"id": "other-prefix"},
    });
    let mut got: Vec<String> = decode(&in_message(metadata), &one(), &ctx())
        .into_iter()
        .map(|e| e.id)
        .collect();
    got.sort();
    assert_eq!(got, vec!["mixed", "upper"]);
    assert!(has_event_suffix("x/EvEnTs") && has_event_suffix("/sideband") && !has_event_suffix("events"));
    assert!(!has_event_suffix("é") && !has_event_suffix(""));
}

#[test]
fn conventional_keys_attributed_to_each_negotiated_uri() {
    let got = decode(
        &in_message(json!({"sidebandEvents": [{"id": "x"}]})),
        &both(),
        &ctx(),
    );
    let uris: Vec<&str> = got.iter().map(|e| e.extension_uri.as_str()).collect();
    assert_eq!(uris, vec![SIDEBAND_URI, TRACE_URI]);
}

#[test]
fn uris_in_negotiated_order_within_a_container() {
    let metadata = json!({ SIDEBAND_URI: {"id": "s"}, TRACE_URI: {"id": "t"} });
    let reversed = vec![TRACE_URI.to_owned(), SIDEBAND_URI.to_owned()];
    assert_eq!(
        ids(&decode(&in_message(metadata), &reversed, &ctx())),
        vec!["t", "s"]
    );
}

#[test]
fn un_negotiated_keys_are_ignored() {
    let metadata = json!({ TRACE_URI: {"id": "t"}, "progress": {"id": "p"}, "events": [{"id": "e"}] });
    assert!(decode(&in_message(metadata), &one(), &ctx()).is_empty());
}

#[test]
fn metadata_found_anywhere_pre_order_but_not_inside_metadata() {
    let event = json!({"task": {"id": "t", "metadata": {SIDEBAND_URI: {"id": "outer"},
            "nested": {"metadata": {SIDEBAND_URI: {"id": "inside-metadata"}}}},
        "status": {"message": {"metadata": {SIDEBAND_URI: {"id": "status"}}}},
        "history": [{"metadata": {SIDEBAND_URI: {"id": "h1"}}}, {"metadata": {SIDEBAND_URI: {"id": "h2"}}}]}});
    let got = decode(&event, &one(), &ctx());
    let mut found = ids(&got);
    assert_eq!(found[0], "outer", "a container comes before its children");
    found.sort();
    assert_eq!(found, vec!["h1", "h2", "outer", "status"]);
    let history = ids(&got)
        .into_iter()
        .filter(|id| id.starts_with('h'))
        .collect::<Vec<_>>();
    assert_eq!(history, vec!["h1", "h2"]);
}

#[test]
fn metadata_walk_depth_is_bounded() {
    let mut deep = json!({"metadata": {SIDEBAND_URI: {"id": "deep"}}});
    for _ in 0..MAX_WALK_DEPTH + 1 {
        deep = json!({"x": deep});
    }
    assert!(decode(&deep, &one(), &ctx()).is_empty());
}

// payload → items

#[test]
fn payload_array_yields_its_elements() {
    let got = decode(
        &in_message(json!({ SIDEBAND_URI: [{"id": "a"}, {"id": "b"}] })),
        &one(),
        &ctx(),
    );
    assert_eq!(ids(&got), vec!["a", "b"]);
}

#[test]
fn payload_object_with_events_array_yields_those() {
    let payload = json!({"events": [{"id": "a"}, {"id": "b"}], "id": "wrapper"});
    assert_eq!(
        ids(&decode(
            &in_message(json!({ SIDEBAND_URI: payload })),
            &one(),
            &ctx()
        )),
        vec!["a", "b"]
    );
}

#[test]
fn any_other_payload_is_one_item() {
    let payload = json!({"events": "not an array", "id": "self"});
    assert_eq!(
        ids(&decode(
            &in_message(json!({ SIDEBAND_URI: payload })),
            &one(),
            &ctx()
        )),
        vec!["self"]
    );
    let null = decode(&in_message(json!({ SIDEBAND_URI: null })), &one(), &ctx());
    assert_eq!(null.len(), 1, "a present key with null is still a candidate");
    assert_eq!(null[0].parts[0].value, Value::Null);
}

// item → event

#[test]
fn type_first_non_blank_of_type_kind_event_name_default_event() {
    assert_eq!(
        single(json!({"type": " ", "kind": "k", "event": "e"})).event_type,
        "k"
    );
    assert_eq!(single(json!({"event": "e", "name": "n"})).event_type, "e");
    assert_eq!(single(json!({"name": "n"})).event_type, "n");
    assert_eq!(single(json!({"type": 5})).event_type, "event");
}

#[test]
fn id_from_id_or_event_id_else_generated() {
    assert_eq!(single(json!({"id": "a", "eventId": "b"})).id, "a");
    assert_eq!(single(json!({"id": "", "eventId": "b"})).id, "b");
    assert_eq!(single(json!({"text": "x"})).id, "ev-0");
}

#[test]
fn generated_ids_count_within_one_call() {
    let payload = json!([{"text": "a"}, {"id": "given"}, "b", 3]);
    let got = decode(&in_message(json!({ SIDEBAND_URI: payload })), &one(), &ctx());
    assert_eq!(ids(&got), vec!["ev-0", "given", "ev-1", "ev-2"]);
    let again = decode(&in_message(json!({ SIDEBAND_URI: payload })), &one(), &ctx());
    assert_eq!(got, again, "same input, same ids");
}

#[test]
fn timestamp_from_timestamp_or_time_else_now() {
    assert_eq!(single(json!({"timestamp": "T1", "time": "T2"})).timestamp, "T1");
    assert_eq!(single(json!({"time": "T2"})).timestamp, "T2");
    assert_eq!(single(json!({"timestamp": 5})).timestamp, "NOW");
}

#[test]
fn title_from_title_label_name_else_type_with_separators_as_spaces() {
    assert_eq!(single(json!({"title": "T", "label": "L"})).title, "T");
    assert_eq!(single(json!({"label": "L", "name": "N"})).title, "L");
    assert_eq!(single(json!({"name": "N"})).title, "N");
    assert_eq!(
        single(json!({"type": "plan.created__now-ok"})).title,
        "plan created now ok"
    );
    assert_eq!(single(json!({})).title, "event");
}

#[test]
fn level_mapping() {
    let level = |item: Value| single(item).level;
    assert_eq!(level(json!({"level": "warn"})), Level::Warning);
    assert_eq!(level(json!({"level": "WARNING"})), Level::Warning);
    assert_eq!(level(json!({"level": "Error"})), Level::Error);
    assert_eq!(level(json!({"level": "debug"})), Level::Debug);
    assert_eq!(level(json!({"level": "trace"})), Level::Debug);
    assert_eq!(level(json!({"level": "fatal"})), Level::Info);
    assert_eq!(level(json!({})), Level::Info);
    assert_eq!(level(json!({"level": 3})), Level::Info);
}

#[test]
fn level_falls_back_to_severity() {
    assert_eq!(single(json!({"severity": "warn"})).level, Level::Warning);
    assert_eq!(
        single(json!({"level": null, "severity": "error"})).level,
        Level::Error
    );
    assert_eq!(
        single(json!({"level": "info", "severity": "error"})).level,
        Level::Info
    );
}

#[test]
fn metadata_only_when_an_object() {
    assert_eq!(
        single(json!({"metadata": {"unit": "ms"}}))
            .metadata
            .map(Value::Object),
        Some(json!({"unit": "ms"}))
    );
    assert_eq!(single(json!({"metadata": [1]})).metadata, None);
}

#[test]
fn item_references_override_envelope_references() {
    let event = json!({"statusUpdate": {"taskId": "t1", "contextId": "c1", "status": {"message": {
        "messageId": "m1", "metadata": {SIDEBAND_URI: [{"eventId": "e", "contextId": "c-own", "spanId": "sp"}]}}}}});
    let refs = decode(&event, &one(), &ctx())[0].references.clone().unwrap();
    assert_eq!(refs.task_id.as_deref(), Some("t1"));
    assert_eq!(refs.context_id.as_deref(), Some("c-own"));
    assert_eq!(refs.span_id.as_deref(), Some("sp"));
    assert_eq!(
        refs.message_id, None,
        "status.message is not an envelope key (§3.1)"
    );
}

#[test]
fn item_id_falls_back_to_task_id_reference() {
    let refs = single(json!({"id": "ev-plan"})).references.unwrap();
    assert_eq!(
        refs.task_id.as_deref(),
        Some("ev-plan"),
        "§3.3 keeps the §3.1 id → taskId fallback"
    );
}

#[test]
fn caller_ids_copied_into_every_event() {
    let event = single(json!({"id": "x"}));
    assert_eq!(
        (event.session_id.as_deref(), event.request_id.as_deref()),
        (Some("s"), None)
    );
    assert_eq!(event.extension_uri, SIDEBAND_URI);
}

#[test]
fn item_parts_follow_the_part_rules() {
    let event = single(json!({"id": "x", "markdown": "**b**"}));
    let expected = SidebandPart {
        id: "x:0".into(),
        kind: PartKind::Text,
        value: json!("**b**"),
        media_type: "text/markdown".into(),
        filename: None,
        metadata: None,
    };
    assert_eq!(event.parts, vec![expected]);
}

#[test]
fn payload_helpers() {
    assert_eq!(payload_items(&json!([1, 2])).len(), 2);
    assert_eq!(payload_items(&json!({"events": []})).len(), 0);
    assert_eq!(payload_items(&json!("s")).len(), 1);
    let container = json!({"sideband": 1, SIDEBAND_URI: 2});
    let got = candidates(container.as_object().unwrap(), SIDEBAND_URI);
    assert_eq!(got, vec![&json!(2), &json!(1)]);
    assert_eq!(CONVENTIONAL_KEYS, ["sidebandEvents", "sideband"]);
}
