//! Tests for `sideband/trace.rs`: the §3.4 mapping table row by row and the §3.2 artifact path.

use serde_json::{Value, json};

use super::*;
use crate::ext::sideband::{PartKind, decode};
use crate::ext::uri::SIDEBAND_URI;

fn data(value: Value) -> Map<String, Value> {
    value.as_object().cloned().unwrap_or_default()
}

fn row(trace_type: &str, input: Value) -> (String, String, Level) {
    let m = map_trace_type(trace_type, &data(input));
    (m.event_type, m.title, m.level)
}

fn expect(event_type: &str, title: &str, level: Level) -> (String, String, Level) {
    (event_type.to_owned(), title.to_owned(), level)
}

// §3.4 table, row by row

#[test]
fn lifecycle_started() {
    assert_eq!(
        row("trace.lifecycle", json!({"state": "started"})),
        expect("agent.started", "Agent execution started", Level::Info)
    );
}

#[test]
fn lifecycle_finished() {
    assert_eq!(
        row("trace.lifecycle", json!({"state": "finished"})),
        expect("agent.finished", "Agent execution completed", Level::Info)
    );
}

#[test]
fn lifecycle_error() {
    assert_eq!(
        row("trace.lifecycle", json!({"state": "error"})),
        expect("agent.error", "Agent execution failed", Level::Error)
    );
}

#[test]
fn lifecycle_other_state() {
    assert_eq!(
        row("trace.lifecycle", json!({"state": "paused"})),
        expect("agent.paused", "Agent paused", Level::Info)
    );
}

#[test]
fn lifecycle_state_lower_cased_default_event() {
    assert_eq!(
        row("trace.lifecycle", json!({"state": "STARTED"})).0,
        "agent.started"
    );
    assert_eq!(
        row("trace.lifecycle", json!({})),
        expect("agent.event", "Agent event", Level::Info)
    );
    assert_eq!(row("trace.lifecycle", json!({"state": null})).0, "agent.event");
    assert_eq!(
        row("trace.lifecycle", json!({"state": 7})).0,
        "agent.7",
        "JS String() of a number"
    );
}

#[test]
fn mcp_start() {
    assert_eq!(
        row("trace.mcp.start", json!({})),
        expect("tool.started", "Tool invocation started", Level::Info)
    );
}

#[test]
fn mcp_declined_rejected_blocked() {
    for status in ["declined", "rejected", "blocked", "Blocked"] {
        assert_eq!(
            row("trace.mcp", json!({"status": status})),
            expect("tool.declined", "Tool invocation declined", Level::Warning)
        );
    }
}

#[test]
fn mcp_error_or_failed() {
    for status in ["error", "failed", "FAILED"] {
        assert_eq!(
            row("trace.mcp", json!({"status": status})),
            expect("tool.failed", "Tool invocation failed", Level::Error)
        );
    }
}

#[test]
fn mcp_anything_else_completed() {
    for input in [
        json!({"status": "completed"}),
        json!({}),
        json!({"status": "weird"}),
        json!({"status": 1}),
    ] {
        assert_eq!(
            row("trace.mcp", input),
            expect("tool.completed", "Tool invocation completed", Level::Info)
        );
    }
}

#[test]
fn thinking_and_thought() {
    for trace_type in ["trace.thinking", "trace.thought"] {
        assert_eq!(
            row(trace_type, json!({})),
            expect("agent.thinking", "Agent reasoning summary", Level::Debug)
        );
    }
}

#[test]
fn decision() {
    assert_eq!(
        row("trace.decision", json!({})),
        expect("agent.decision", "Agent decision", Level::Info)
    );
}

#[test]
fn delegation() {
    assert_eq!(
        row("trace.delegation", json!({})),
        expect("agent.delegation", "Sub-agent delegation", Level::Info)
    );
}

#[test]
fn anything_else_passes_through_with_generic_title() {
    assert_eq!(
        row("trace.usage", json!({})),
        expect("trace.usage", "trace usage", Level::Info)
    );
    assert_eq!(
        row("Trace.MCP", json!({})).0,
        "Trace.MCP",
        "trace types are case-sensitive"
    );
}

#[test]
fn generic_title_replaces_runs_of_dot_underscore_dash_with_one_space() {
    assert_eq!(generic_title("a.b_c-d"), "a b c d");
    assert_eq!(generic_title("a._-.b"), "a b");
    assert_eq!(generic_title(".x."), " x ");
    assert_eq!(generic_title("plain"), "plain");
    assert_eq!(generic_title(""), "");
}

// §3.2 artifact path

fn ctx() -> DecodeContext {
    DecodeContext {
        now: "NOW".into(),
        id_prefix: "p".into(),
        session_id: None,
        request_id: None,
    }
}

fn negotiated() -> Vec<String> {
    vec![TRACE_URI.to_owned(), SIDEBAND_URI.to_owned()]
}

fn trace_artifact(id: &str, trace_type: &str, data: Value) -> Value {
    json!({"artifactId": id, "name": "named", "extensions": [TRACE_URI],
           "metadata": {"traceType": trace_type, "timestamp": "T1"},
           "parts": [{"data": data, "mediaType": "application/json"}]})
}

#[test]
fn trace_artifact_becomes_a_mapped_event() {
    let event = json!({"artifactUpdate": {"taskId": "t1", "contextId": "c1",
        "artifact": trace_artifact("a1", "trace.mcp", json!({"status": "failed", "trace_id": "tr"}))}});
    let got = decode(&event, &negotiated(), &ctx());
    assert_eq!(got.len(), 1);
    let e = &got[0];
    assert_eq!(
        (e.id.as_str(), e.event_type.as_str(), e.level),
        ("a1", "tool.failed", Level::Error)
    );
    assert_eq!(e.title, "Tool invocation failed");
    assert_eq!(e.timestamp, "T1");
    assert_eq!(e.extension_uri, TRACE_URI);
    assert_eq!(
        Value::Object(e.metadata.clone().unwrap()),
        json!({"traceType": "trace.mcp", "timestamp": "T1", "adapter": "a2a-wrapper"})
    );
    let refs = e.references.clone().unwrap();
    assert_eq!(refs.task_id.as_deref(), Some("t1"));
    assert_eq!(refs.context_id.as_deref(), Some("c1"));
    assert_eq!(refs.artifact_id.as_deref(), Some("a1"));
    assert_eq!(refs.trace_id.as_deref(), Some("tr"));
    assert_eq!(e.parts[0].kind, PartKind::Data);
    assert_eq!(e.parts[0].id, "a1:0");
}

#[test]
fn one_event_per_matching_uri_in_artifact_list_order() {
    let mut artifact = trace_artifact("a1", "trace.decision", json!({}));
    artifact["extensions"] = json!([SIDEBAND_URI, "urn:not:negotiated", 5, TRACE_URI]);
    let got = decode(
        &json!({"artifactUpdate": {"artifact": artifact}}),
        &negotiated(),
        &ctx(),
    );
    let uris: Vec<&str> = got.iter().map(|e| e.extension_uri.as_str()).collect();
    assert_eq!(uris, vec![SIDEBAND_URI, TRACE_URI]);
    assert_eq!(
        got[0].event_type, "trace.decision",
        "generic mapping for other URIs"
    );
    assert_eq!(got[0].title, "trace decision");
    assert_eq!(
        got[0].metadata.as_ref().unwrap()["adapter"],
        json!("generic-extension-artifact")
    );
    assert_eq!(got[1].event_type, "agent.decision");
}

#[test]
fn artifacts_not_naming_a_negotiated_uri_are_ignored() {
    let mut artifact = trace_artifact("a1", "trace.decision", json!({}));
    artifact["extensions"] = json!(["urn:other"]);
    assert!(
        decode(
            &json!({"artifactUpdate": {"artifact": artifact.clone()}}),
            &negotiated(),
            &ctx()
        )
        .is_empty()
    );
    artifact.as_object_mut().unwrap().remove("extensions");
    assert!(
        decode(
            &json!({"artifactUpdate": {"artifact": artifact}}),
            &negotiated(),
            &ctx()
        )
        .is_empty()
    );
}

#[test]
fn trace_type_from_metadata_else_name_else_default() {
    let mut artifact = trace_artifact("a1", "ignored", json!({}));
    artifact["metadata"] = json!({});
    let by_name = decode(&json!({"artifact": artifact.clone()}), &negotiated(), &ctx());
    assert_eq!(by_name[0].event_type, "named");
    artifact.as_object_mut().unwrap().remove("name");
    let by_default = decode(&json!({"artifact": artifact}), &negotiated(), &ctx());
    assert_eq!(by_default[0].event_type, "extension.artifact");
    assert_eq!(by_default[0].title, "extension artifact");
    assert_eq!(
        by_default[0].metadata.as_ref().unwrap()["traceType"],
        json!("extension.artifact")
    );
}

#[test]
fn artifact_timestamp_falls_back_to_now() {
    let mut artifact = trace_artifact("a1", "trace.decision", json!({}));
    artifact["metadata"]["timestamp"] = json!(12);
    assert_eq!(
        decode(&json!({"artifact": artifact}), &negotiated(), &ctx())[0].timestamp,
        "NOW"
    );
}

#[test]
fn first_data_object_drives_mapping_and_trace_id() {
    let artifact = json!({"artifactId": "a1", "extensions": [TRACE_URI], "metadata": {"traceType": "trace.lifecycle"},
        "parts": [{"text": "hi"}, {"data": [1]}, {"data": {"state": "error", "traceId": "camel"}},
                  {"data": {"state": "finished"}}]});
    let got = decode(&json!({"artifact": artifact}), &negotiated(), &ctx());
    assert_eq!(got[0].event_type, "agent.error");
    assert_eq!(
        got[0].references.as_ref().unwrap().trace_id.as_deref(),
        Some("camel")
    );
    assert_eq!(got[0].parts.len(), 4);
}

#[test]
fn trace_id_inherited_when_data_has_none() {
    let event = json!({"statusUpdate": {"traceId": "outer"},
        "artifactUpdate": {"artifact": trace_artifact("a1", "trace.decision", json!({}))}});
    let got = decode(&event, &negotiated(), &ctx());
    assert_eq!(
        got[0].references.as_ref().unwrap().trace_id.as_deref(),
        Some("outer")
    );
}

#[test]
fn artifact_refs_override_envelope_refs() {
    let event = json!({"task": {"id": "task-1", "contextId": "ctx-1",
        "artifacts": [{"artifactId": "a1", "contextId": "ctx-own", "extensions": [TRACE_URI], "parts": []}]}});
    let got = decode(&event, &negotiated(), &ctx());
    let refs = got[0].references.clone().unwrap();
    assert_eq!(
        refs.task_id.as_deref(),
        Some("task-1"),
        "task id from the task's id"
    );
    assert_eq!(refs.context_id.as_deref(), Some("ctx-own"));
}

#[test]
fn artifact_insides_are_not_walked() {
    let inner = json!({"artifactId": "inner", "extensions": [TRACE_URI], "parts": []});
    let outer = json!({"artifactId": "outer", "extensions": [TRACE_URI], "parts": [], "nested": inner});
    let got = decode(&json!({"result": outer}), &negotiated(), &ctx());
    let ids: Vec<&str> = got.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(ids, vec!["outer"]);
}

#[test]
fn artifacts_found_anywhere_in_the_envelope() {
    let event = json!({"task": {"id": "t", "artifacts": [
        {"artifactId": "x1", "extensions": [TRACE_URI], "parts": []},
        {"artifactId": "x2", "extensions": [TRACE_URI], "parts": "not an array"},
        {"artifactId": 3, "extensions": [TRACE_URI], "parts": []},
        {"artifactId": "x4", "extensions": [TRACE_URI], "parts": []}
    ]}});
    let ids: Vec<String> = decode(&event, &negotiated(), &ctx())
        .into_iter()
        .map(|e| e.id)
        .collect();
    assert_eq!(ids, vec!["x1", "x4"]);
}

#[test]
fn artifact_walk_depth_is_bounded() {
    let mut deep = json!({"artifactId": "deep", "extensions": [TRACE_URI], "parts": []});
    for _ in 0..MAX_WALK_DEPTH + 1 {
        deep = json!([deep]);
    }
    assert!(decode(&deep, &negotiated(), &ctx()).is_empty());
    let mut shallow = json!({"artifactId": "ok", "extensions": [TRACE_URI], "parts": []});
    for _ in 0..MAX_WALK_DEPTH {
        shallow = json!([shallow]);
    }
    assert_eq!(decode(&shallow, &negotiated(), &ctx()).len(), 1);
}

#[test]
fn adapter_names() {
    assert_eq!(TRACE_ADAPTER, "a2a-wrapper");
    assert_eq!(GENERIC_ADAPTER, "generic-extension-artifact");
}
