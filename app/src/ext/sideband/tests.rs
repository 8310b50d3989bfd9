//! Tests for `sideband.rs`: §3 end to end (negotiation gate, output order, dedupe, event shape,
//! grouping) plus the no-panic and hostile-corpus properties.

use proptest::prelude::*;
use serde_json::{Value, json};

use super::*;
use crate::ext::uri::{SIDEBAND_URI, TRACE_URI};

fn ctx() -> DecodeContext {
    DecodeContext {
        now: "2026-01-01T00:00:00.000Z".into(),
        id_prefix: "evt-7".into(),
        session_id: Some("sess".into()),
        request_id: Some("req".into()),
    }
}

fn both() -> Vec<String> {
    vec![SIDEBAND_URI.to_owned(), TRACE_URI.to_owned()]
}

fn mixed_event() -> Value {
    json!({"task": {"id": "t1", "contextId": "c1",
        "status": {"state": "TASK_STATE_WORKING", "message": {"messageId": "m1", "role": "ROLE_AGENT", "parts": [],
            "metadata": {SIDEBAND_URI: {"events": [{"id": "ev-plan", "type": "plan.created", "text": "Plan"}]}}}},
        "artifacts": [{"artifactId": "trace-1", "name": "trace.lifecycle", "extensions": [TRACE_URI],
            "metadata": {"traceType": "trace.lifecycle", "timestamp": "T"},
            "parts": [{"data": {"state": "started", "trace_id": "tr-1"}}]}]}})
}

#[test]
fn empty_negotiated_list_yields_nothing() {
    assert!(decode(&mixed_event(), &[], &ctx()).is_empty());
}

#[test]
fn output_order_is_artifact_path_then_metadata_path() {
    let got = decode(&mixed_event(), &both(), &ctx());
    let ids: Vec<&str> = got.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(ids, vec!["trace-1", "ev-plan"]);
    assert_eq!(got[0].event_type, "agent.started");
    assert_eq!(got[1].title, "plan.created".replace('.', " "));
}

#[test]
fn only_negotiated_uris_are_decoded() {
    let got = decode(&mixed_event(), &[SIDEBAND_URI.to_owned()], &ctx());
    let ids: Vec<&str> = got.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(ids, vec!["ev-plan"]);
}

#[test]
fn duplicates_same_uri_id_and_parts_dropped_first_kept() {
    let item = json!({"id": "same", "text": "x"});
    let event = json!({"message": {"metadata": {SIDEBAND_URI: [item, item, {"id": "same", "text": "y"}]}}});
    let got = decode(&event, &[SIDEBAND_URI.to_owned()], &ctx());
    let values: Vec<&Value> = got.iter().map(|e| &e.parts[0].value).collect();
    assert_eq!(values, vec![&json!("x"), &json!("y")]);
}

#[test]
fn same_id_under_different_uris_is_kept() {
    let event = json!({"message": {"metadata": {"sideband": {"id": "one"}}}});
    assert_eq!(decode(&event, &both(), &ctx()).len(), 2);
}

#[test]
fn events_without_ids_never_dedupe() {
    let event = json!({"message": {"metadata": {SIDEBAND_URI: ["same", "same"]}}});
    let got = decode(&event, &[SIDEBAND_URI.to_owned()], &ctx());
    let ids: Vec<&str> = got.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(ids, vec!["evt-7-0", "evt-7-1"]);
}

#[test]
fn duplicate_negotiated_uris_count_once() {
    let event = json!({"message": {"metadata": {SIDEBAND_URI: ["a"]}}});
    let twice = vec![SIDEBAND_URI.to_owned(), SIDEBAND_URI.to_owned()];
    assert_eq!(decode(&event, &twice, &ctx()).len(), 1);
}

#[test]
fn dedupe_key_is_uri_id_and_parts_json() {
    let got = decode(&mixed_event(), &both(), &ctx());
    let key = dedupe_key(&got[1]);
    assert!(key.starts_with(&format!("{SIDEBAND_URI}:ev-plan:[")), "{key}");
    assert!(key.ends_with(']'));
}

#[test]
fn ids_are_deterministic_across_decodes() {
    let event = json!({"statusUpdate": {"status": {"message": {"metadata": {"sidebandEvents": ["a", {"text": "b"}]}}}}});
    let first = decode(&event, &both(), &ctx());
    assert_eq!(first, decode(&event, &both(), &ctx()));
    let ids: Vec<&str> = first.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(ids, vec!["evt-7-0", "evt-7-1", "evt-7-2", "evt-7-3"]);
}

#[test]
fn older_keys_and_0_3_kind_tagged_objects_are_decoded() {
    let older = json!({"taskArtifactUpdate": {"taskId": "t", "artifact":
        {"artifactId": "a", "extensions": [TRACE_URI], "metadata": {"traceType": "trace.mcp.start"}, "parts": []}}});
    let got = decode(&older, &both(), &ctx());
    assert_eq!(
        (
            got[0].event_type.as_str(),
            got[0].references.as_ref().unwrap().task_id.as_deref()
        ),
        ("tool.started", Some("t"))
    );
    let v03 = json!({"kind": "status-update", "taskId": "t3", "contextId": "c3", "final": false,
        "status": {"state": "working", "message": {"kind": "message", "messageId": "m", "role": "agent",
            "parts": [{"kind": "text", "text": "hi"}], "metadata": {SIDEBAND_URI: {"eventId": "x", "severity": "warn"}}}}});
    let got = decode(&v03, &both(), &ctx());
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].level, Level::Warning);
    assert_eq!(got[0].references.as_ref().unwrap().task_id.as_deref(), Some("t3"));
}

#[test]
fn event_serialises_to_the_3_5_shape() {
    // The item's `id` also becomes `references.taskId` (§3.3: §3.1 rules incl. the id fallback).
    let got = decode(&mixed_event(), &both(), &ctx());
    let value = serde_json::to_value(&got[1]).unwrap();
    assert_eq!(
        value,
        json!({"id": "ev-plan", "sessionId": "sess", "requestId": "req", "timestamp": "2026-01-01T00:00:00.000Z",
               "extensionUri": SIDEBAND_URI, "type": "plan.created", "title": "plan created", "level": "info",
               "parts": [{"id": "ev-plan:0", "kind": "text", "value": "Plan", "mediaType": "text/plain"}],
               "references": {"taskId": "ev-plan", "contextId": "c1"}})
    );
    assert_eq!(
        got[0].references.as_ref().and_then(|r| r.task_id.as_deref()),
        Some("t1")
    );
    let back: SidebandEvent = serde_json::from_value(value).unwrap();
    assert_eq!(back, got[1]);
}

#[test]
fn levels_are_ordered_and_spelled() {
    assert!(Level::Debug < Level::Info && Level::Info < Level::Warning && Level::Warning < Level::Error);
    let spelled: Vec<&str> = [Level::Debug, Level::Info, Level::Warning, Level::Error]
        .map(Level::as_str)
        .to_vec();
    assert_eq!(spelled, vec!["debug", "info", "warning", "error"]);
    assert_eq!(serde_json::to_value(Level::Warning).unwrap(), json!("warning"));
    assert_eq!(Level::default(), Level::Info);
    assert_eq!(Level::from_label("warn"), Level::Warning);
}

#[test]
fn group_by_task_in_first_seen_order() {
    let event = json!({"message": {"metadata": {SIDEBAND_URI: [
        {"eventId": "1", "taskId": "b"}, {"eventId": "2", "taskId": "a"}, {"eventId": "3"}, {"eventId": "4", "taskId": "b"}
    ]}}});
    let groups = group_by_task(decode(&event, &[SIDEBAND_URI.to_owned()], &ctx()));
    let shape: Vec<(Option<&str>, Vec<&str>)> = groups
        .iter()
        .map(|(k, v)| (k.as_deref(), v.iter().map(|e| e.id.as_str()).collect()))
        .collect();
    assert_eq!(
        shape,
        vec![
            (Some("b"), vec!["1", "4"]),
            (Some("a"), vec!["2"]),
            (None, vec!["3"])
        ]
    );
}

#[test]
fn demo_trace_agent_shapes_decode() {
    let event = json!({"statusUpdate": {"taskId": "t", "contextId": "c", "status": {"state": "TASK_STATE_WORKING",
        "message": {"messageId": "m", "role": "ROLE_AGENT", "parts": [{"text": "Writing"}], "metadata": {
            "sidebandEvents": [
                {"id": "ev-progress", "type": "progress", "level": "debug", "message": "Almost done", "metadata": {"percent": 90}},
                {"id": "ev-restarts", "event": "warning.issued", "severity": "warn", "markdown": "**2** restarts"}],
            TRACE_URI: {"id": "ev-trace-meta", "type": "trace.note", "description": "Trace events also ride in metadata"}}}}}});
    let got = decode(&event, &both(), &ctx());
    let summary: Vec<(&str, &str, Level)> = got
        .iter()
        .map(|e| (e.extension_uri.as_str(), e.id.as_str(), e.level))
        .collect();
    assert_eq!(
        summary,
        vec![
            (SIDEBAND_URI, "ev-progress", Level::Debug),
            (SIDEBAND_URI, "ev-restarts", Level::Warning),
            (TRACE_URI, "ev-trace-meta", Level::Info),
            (TRACE_URI, "ev-progress", Level::Debug),
            (TRACE_URI, "ev-restarts", Level::Warning),
        ]
    );
    assert_eq!(
        got[2].event_type, "trace.note",
        "metadata path never applies the §3.4 table"
    );
}

// properties

fn arb_json() -> impl Strategy<Value = Value> {
    let key = prop_oneof![
        Just("metadata".to_owned()),
        Just("sidebandEvents".to_owned()),
        Just("sideband".to_owned()),
        Just("events".to_owned()),
        Just("artifactId".to_owned()),
        Just("parts".to_owned()),
        Just("extensions".to_owned()),
        Just("id".to_owned()),
        Just("data".to_owned()),
        Just(SIDEBAND_URI.to_owned()),
        Just(TRACE_URI.to_owned()),
        Just(format!("{SIDEBAND_URI}/EVENTS")),
        "[a-zA-Z_]{0,8}",
    ];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        ".{0,12}".prop_map(Value::String),
        Just(json!(TRACE_URI)),
        Just(json!("trace.lifecycle")),
    ];
    leaf.prop_recursive(6, 64, 6, move |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            proptest::collection::vec((key.clone(), inner), 0..6)
                .prop_map(|pairs| Value::Object(pairs.into_iter().collect())),
        ]
    })
}

fn hostile_corpus() -> Vec<Value> {
    let mut deep = json!({"metadata": {SIDEBAND_URI: "bottom"}});
    for depth in 0..400 {
        deep = if depth % 2 == 0 {
            json!({"message": deep})
        } else {
            json!([deep])
        };
    }
    let huge = "A".repeat(1 << 20);
    vec![
        json!({"message": {"metadata": {SIDEBAND_URI: {"id": "<script>alert(1)</script>", "title": "<img src=x onerror=alert(1)>",
            "text": "javascript:alert(1)", "__proto__": {"polluted": true}, "constructor": {"prototype": {}}}}}}),
        json!({"artifact": {"artifactId": "__proto__", "extensions": [TRACE_URI],
            "metadata": {"traceType": "trace.lifecycle", "__proto__": 1},
            "parts": [{"url": "javascript:alert(1)"}, {"data": {"state": "<script>", "trace_id": "</script>"}}]}}),
        json!({"message": {"metadata": {"sideband": {"events": [huge.clone(), {"markdown": huge}]}}}}),
        deep,
        json!({"message": {"metadata": {SIDEBAND_URI: [null, [], {}, 1e308, -0.0, "\u{0}\u{feff}\u{202e}"]}}}),
    ]
}

#[test]
fn hostile_corpus_stays_plain_data() {
    for value in hostile_corpus() {
        let got = decode(&value, &both(), &ctx());
        for event in &got {
            let json = serde_json::to_value(event).unwrap();
            assert!(json.is_object());
        }
    }
    let got = decode(&hostile_corpus()[0], &both(), &ctx());
    assert_eq!(got[0].id, "<script>alert(1)</script>");
    assert_eq!(got[0].parts[0].value, json!("javascript:alert(1)"));
    assert_eq!(got[0].parts[0].kind, PartKind::Text);
    let artifact = decode(&hostile_corpus()[1], &both(), &ctx());
    assert_eq!(artifact[0].event_type, "agent.<script>");
    assert_eq!(
        artifact[0].parts[0].kind,
        PartKind::Url,
        "a URL part is data; nothing is fetched"
    );
}

proptest! {
    #[test]
    fn decode_never_panics_on_arbitrary_json(value in arb_json()) {
        let got = decode(&value, &both(), &ctx());
        prop_assert_eq!(&got, &decode(&value, &both(), &ctx()));
        let keys: std::collections::HashSet<String> = got.iter().map(dedupe_key).collect();
        prop_assert_eq!(keys.len(), got.len());
        for event in &got {
            prop_assert!(both().contains(&event.extension_uri));
            prop_assert!(serde_json::to_string(event).is_ok());
        }
        prop_assert!(decode(&value, &[], &ctx()).is_empty());
        let _ = group_by_task(got);
    }

    #[test]
    fn unrelated_uris_decode_nothing_but_conventional_keys(value in arb_json()) {
        let other = vec!["urn:unrelated".to_owned()];
        for event in decode(&value, &other, &ctx()) {
            prop_assert_eq!(event.extension_uri, "urn:unrelated");
        }
    }
}
