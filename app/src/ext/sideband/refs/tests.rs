//! Tests for `sideband/refs.rs`: §3.1 envelope references and the JS string helpers.

use serde_json::json;

use super::*;

fn refs(value: Value) -> SidebandReferences {
    envelope_references(&value)
}

#[test]
fn top_level_contributes_all_six_references() {
    let got = refs(
        json!({"contextId": "c", "taskId": "t", "messageId": "m", "artifactId": "a",
                          "traceId": "tr", "spanId": "sp"}),
    );
    let expected = SidebandReferences {
        context_id: Some("c".into()),
        task_id: Some("t".into()),
        message_id: Some("m".into()),
        artifact_id: Some("a".into()),
        trace_id: Some("tr".into()),
        span_id: Some("sp".into()),
    };
    assert_eq!(got, expected);
}

#[test]
fn task_id_falls_back_to_the_levels_id() {
    assert_eq!(refs(json!({"task": {"id": "t1"}})).task_id.as_deref(), Some("t1"));
    assert_eq!(
        refs(json!({"task": {"id": "t1", "taskId": "t2"}}))
            .task_id
            .as_deref(),
        Some("t2")
    );
    assert_eq!(
        refs(json!({"task": {"id": "t1", "taskId": " "}}))
            .task_id
            .as_deref(),
        Some("t1")
    );
}

#[test]
fn deeper_levels_override() {
    let got = refs(json!({"contextId": "top", "statusUpdate": {"contextId": "deep", "taskId": "t"}}));
    assert_eq!(got.context_id.as_deref(), Some("deep"));
    assert_eq!(got.task_id.as_deref(), Some("t"));
}

#[test]
fn descends_the_named_keys_recursively() {
    let got = refs(
        json!({"artifactUpdate": {"taskId": "t", "artifact": {"artifactId": "a"}},
                          "message": {"messageId": "m", "message": {"spanId": "s"}}}),
    );
    assert_eq!(got.task_id.as_deref(), Some("t"));
    assert_eq!(got.artifact_id.as_deref(), Some("a"));
    assert_eq!(got.message_id.as_deref(), Some("m"));
    assert_eq!(got.span_id.as_deref(), Some("s"));
}

#[test]
fn older_update_keys_are_walked() {
    assert_eq!(
        refs(json!({"taskStatusUpdate": {"taskId": "t"}}))
            .task_id
            .as_deref(),
        Some("t")
    );
    assert_eq!(
        refs(json!({"taskArtifactUpdate": {"artifact": {"artifactId": "a"}}}))
            .artifact_id
            .as_deref(),
        Some("a")
    );
}

#[test]
fn other_keys_are_not_walked() {
    assert!(refs(json!({"result": {"taskId": "t"}, "status": {"messageId": "m"}})).is_empty());
}

#[test]
fn kind_tagged_0_3_objects_contribute_at_top_level() {
    let got = refs(
        json!({"kind": "status-update", "taskId": "t", "contextId": "c", "status": {"state": "working"}}),
    );
    assert_eq!(
        (got.task_id.as_deref(), got.context_id.as_deref()),
        (Some("t"), Some("c"))
    );
    assert_eq!(
        refs(json!({"kind": "task", "id": "t9"})).task_id.as_deref(),
        Some("t9")
    );
}

#[test]
fn blank_and_non_string_values_do_not_count_untrimmed_string_kept() {
    let got =
        refs(json!({"contextId": "keep", "task": {"contextId": "  ", "taskId": 5, "messageId": " m "}}));
    assert_eq!(got.context_id.as_deref(), Some("keep"));
    assert_eq!(got.task_id, None);
    assert_eq!(got.message_id.as_deref(), Some(" m "));
    assert_eq!(
        refs(json!({"taskId": "\u{feff}"})).task_id,
        None,
        "JS trim strips U+FEFF"
    );
}

#[test]
fn non_objects_have_no_references() {
    assert!(refs(json!([{"taskId": "t"}])).is_empty());
    assert!(refs(json!("t")).is_empty());
}

#[test]
fn envelope_depth_is_bounded() {
    let mut value = json!({"taskId": "deepest"});
    for _ in 0..MAX_WALK_DEPTH + 1 {
        value = json!({"message": value});
    }
    assert_eq!(refs(value).task_id, None);
}

#[test]
fn merged_with_prefers_the_other_side_where_present() {
    let base = SidebandReferences {
        task_id: Some("t".into()),
        context_id: Some("c".into()),
        ..Default::default()
    };
    let over = SidebandReferences {
        context_id: Some("c2".into()),
        ..Default::default()
    };
    let got = base.merged_with(&over);
    assert_eq!(
        (got.task_id.as_deref(), got.context_id.as_deref()),
        (Some("t"), Some("c2"))
    );
    assert_eq!(SidebandReferences::default().non_empty(), None);
}

#[test]
fn references_serialise_camel_case_without_absent_fields() {
    let got = refs(json!({"taskId": "t", "spanId": "s"}));
    assert_eq!(
        serde_json::to_value(got).unwrap(),
        json!({"taskId": "t", "spanId": "s"})
    );
}

#[test]
fn js_string_matches_javascript() {
    assert_eq!(js_string(&json!("s")), "s");
    assert_eq!(js_string(&json!(1)), "1");
    assert_eq!(js_string(&json!(1.0)), "1");
    assert_eq!(js_string(&json!(1.5)), "1.5");
    assert_eq!(js_string(&json!(true)), "true");
    assert_eq!(js_string(&json!(null)), "null");
    assert_eq!(js_string(&json!({"a": 1})), "[object Object]");
    assert_eq!(js_string(&json!([1, null, [2, "x"]])), "1,,2,x");
}

#[test]
fn helpers_pick_first_usable_value() {
    let record = json!({"a": " ", "b": 3, "c": "ok", "d": null, "e": 0});
    let record = record.as_object().unwrap();
    assert_eq!(first_non_blank(record, &["a", "b", "c"]), Some("ok"));
    assert_eq!(first_present(record, &["x", "d", "e"]), Some(&json!(0)));
    assert_eq!(ENVELOPE_KEYS.len(), 7);
}
