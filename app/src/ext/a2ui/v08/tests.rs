//! Tests for v0.8 messages (`a2a-and-a2ui.md` §B.3) and the §1.4 limits applied to them.

use serde_json::{Value, json};

use super::super::test_support::{create, fold, fold_v08, xs};
use super::super::{
    A2uiState, A2uiVersion, PlaceholderReason, RenderNode, UNSUPPORTED_CATALOG_NOTICE, V08_STANDARD_CATALOG,
};

fn update(id: &str, components: Value) -> Value {
    json!({"surfaceUpdate": {"surfaceId": id, "components": components}})
}

fn text(id: &str, value: &str) -> Value {
    json!({"id": id, "component": {"Text": {"text": {"literalString": value}}}})
}

fn begin(id: &str, root: &str) -> Value {
    json!({"beginRendering": {"surfaceId": id, "root": root}})
}

fn model(id: &str, path: Option<&str>, contents: Value) -> Value {
    let mut body = json!({"surfaceId": id, "contents": contents});
    if let Some(path) = path {
        body["path"] = json!(path);
    }
    json!({"dataModelUpdate": body})
}

#[test]
fn surface_update_creates_surface_that_waits_for_begin_rendering() {
    let state = fold_v08(vec![update("s", json!([text("t", "hi")]))]);
    assert_eq!(state.rejected, 0);
    let surface = &state.surfaces[0];
    assert_eq!(surface.version, A2uiVersion::V08);
    assert_eq!(surface.catalog_id, V08_STANDARD_CATALOG);
    assert!(matches!(
        surface.render(),
        RenderNode::Placeholder {
            reason: PlaceholderReason::Waiting,
            ..
        }
    ));
}

#[test]
fn begin_rendering_sets_root_and_the_surface_renders() {
    let state = fold_v08(vec![update("s", json!([text("t", "hi")])), begin("s", "t")]);
    let node = state.surfaces[0].render();
    assert!(
        matches!(node, RenderNode::Text { ref text, .. } if text == "hi"),
        "{node:?}"
    );
}

#[test]
fn begin_rendering_before_components_is_fine() {
    let state = fold_v08(vec![begin("s", "t"), update("s", json!([text("t", "hi")]))]);
    assert!(matches!(state.surfaces[0].render(), RenderNode::Text { .. }));
}

#[test]
fn begin_rendering_needs_root_id_of_1_to_128() {
    let bad = [
        json!({"beginRendering": {"surfaceId": "s"}}),
        begin("s", ""),
        begin("s", &xs(129)),
        json!({"beginRendering": {"surfaceId": "s", "root": 1}}),
    ];
    let state = fold_v08(bad.to_vec());
    assert_eq!(state.rejected, 4);
    assert!(state.surfaces.is_empty(), "an invalid message creates no surface");
}

#[test]
fn begin_rendering_other_catalog_is_unsupported() {
    let state = fold_v08(vec![
        json!({"beginRendering": {"surfaceId": "s", "root": "r", "catalogId": "https://x"}}),
    ]);
    let surface = &state.surfaces[0];
    assert!(!surface.supported);
    assert_eq!(surface.notice(), Some(UNSUPPORTED_CATALOG_NOTICE));
}

#[test]
fn begin_rendering_catalog_id_at_most_512() {
    let with =
        |c: Value| json!({"beginRendering": {"surfaceId": "s", "root": "r", "catalogId": c, "styles": {}}});
    assert_eq!(fold_v08(vec![with(json!(xs(512)))]).rejected, 0);
    assert_eq!(fold_v08(vec![with(json!(xs(513)))]).rejected, 1);
    assert_eq!(fold_v08(vec![with(json!(false))]).rejected, 1);
    let standard = fold_v08(vec![with(json!(V08_STANDARD_CATALOG))]);
    assert!(standard.surfaces[0].supported);
}

#[test]
fn message_must_have_exactly_one_key() {
    let state = fold_v08(vec![
        json!({}),
        json!({"deleteSurface": {"surfaceId": "s"}, "beginRendering": {"surfaceId": "s", "root": "r"}}),
    ]);
    assert_eq!(state.rejected, 2);
}

#[test]
fn unknown_message_key_is_invalid() {
    let mut state = A2uiState::default();
    state.apply_part(
        A2uiVersion::V08,
        &json!([{"wipe": {"surfaceId": "s"}}, {"version": "v0.9"}]),
    );
    assert_eq!(state.rejected, 2);
}

#[test]
fn body_and_surface_id_rules_match_v09() {
    let state = fold_v08(vec![
        json!({"deleteSurface": "s"}),
        begin("", "r"),
        begin(&xs(129), "r"),
        json!({"beginRendering": {"root": "r"}}),
    ]);
    assert_eq!(state.rejected, 4);
    assert_eq!(fold_v08(vec![begin(&xs(128), "r")]).rejected, 0);
}

#[test]
fn surface_update_bad_entry_rejects_whole_message() {
    let bad_entries = [
        json!({"id": "a", "component": {"Text": {}, "Row": {}}}),
        json!({"id": "a", "component": {"Text": "x"}}),
        json!({"id": "a", "component": "Text"}),
        json!({"id": "a", "component": {}}),
        json!({"id": "", "component": {"Text": {}}}),
        json!({"id": xs(129), "component": {"Text": {}}}),
        json!({"id": "a", "component": {xs(65): {}}}),
        json!("a"),
    ];
    for entry in bad_entries {
        let state = fold_v08(vec![update("s", json!([text("ok", "x"), entry]))]);
        assert_eq!(state.rejected, 1, "{state:?}");
        assert!(state.surfaces.is_empty());
    }
    assert_eq!(
        fold_v08(vec![update("s", json!([{"id": "a", "component": {xs(64): {}}}]))]).rejected,
        0
    );
}

#[test]
fn surface_update_needs_non_empty_components() {
    let state = fold_v08(vec![
        update("s", json!([])),
        json!({"surfaceUpdate": {"surfaceId": "s"}}),
    ]);
    assert_eq!(state.rejected, 2);
}

#[test]
fn surface_update_over_200_components_is_invalid() {
    let first: Vec<Value> = (0..200).map(|i| text(&format!("c{i}"), "x")).collect();
    let state = fold_v08(vec![
        update("s", Value::Array(first)),
        update("s", json!([text("one-more", "x")])),
    ]);
    assert_eq!(state.rejected, 1);
    assert_eq!(state.surfaces[0].components.len(), 200);
    let too_many: Vec<Value> = (0..201).map(|i| text(&format!("c{i}"), "x")).collect();
    let fresh = fold_v08(vec![update("s", Value::Array(too_many))]);
    assert_eq!(fresh.rejected, 1);
    assert!(fresh.surfaces.is_empty());
}

#[test]
fn ninth_v08_surface_is_invalid() {
    let messages: Vec<Value> = (0..9).map(|i| begin(&format!("s{i}"), "r")).collect();
    let state = fold_v08(messages);
    assert_eq!(state.surfaces.len(), 8);
    assert_eq!(state.rejected, 1);
}

#[test]
fn data_model_update_converts_contents_adjacency_list() {
    let contents = json!([
        {"key": "name", "valueString": "Ada"},
        {"key": "age", "valueNumber": 36},
        {"key": "ok", "valueBoolean": true},
        {"key": "addr", "valueMap": [{"key": "city", "valueString": "London"},
                                      {"key": "geo", "valueMap": [{"key": "lat", "valueNumber": 51.5}]}]}
    ]);
    let state = fold_v08(vec![model("s", None, contents)]);
    assert_eq!(state.rejected, 0);
    let expected =
        json!({"name": "Ada", "age": 36, "ok": true, "addr": {"city": "London", "geo": {"lat": 51.5}}});
    assert_eq!(state.surfaces[0].model, expected);
}

#[test]
fn data_model_update_at_root_replaces_model() {
    let state = fold_v08(vec![
        model("s", None, json!([{"key": "a", "valueNumber": 1}])),
        model("s", Some("/"), json!([{"key": "b", "valueNumber": 2}])),
    ]);
    assert_eq!(state.surfaces[0].model, json!({"b": 2}));
}

#[test]
fn data_model_update_at_path_sets_object() {
    let state = fold_v08(vec![
        model("s", None, json!([{"key": "keep", "valueNumber": 1}])),
        model(
            "s",
            Some("/form/user"),
            json!([{"key": "name", "valueString": "x"}]),
        ),
    ]);
    assert_eq!(
        state.surfaces[0].model,
        json!({"keep": 1, "form": {"user": {"name": "x"}}})
    );
}

#[test]
fn self_key_sets_the_value_itself() {
    let state = fold_v08(vec![model(
        "s",
        Some("/msg"),
        json!([{"key": ".", "valueString": "hi"}]),
    )]);
    assert_eq!(state.surfaces[0].model, json!({"msg": "hi"}));
}

#[test]
fn entry_needs_exactly_one_typed_value() {
    let bad = [
        json!({"key": "a"}),
        json!({"key": "a", "valueString": "x", "valueNumber": 1}),
        json!({"key": "a", "valueString": 1}),
        json!({"key": "a", "valueNumber": "1"}),
        json!({"key": "a", "valueBoolean": "true"}),
        json!({"key": "a", "valueMap": {}}),
        json!({"valueString": "x"}),
        json!({"key": 1, "valueString": "x"}),
        json!("a"),
    ];
    for entry in bad {
        let state = fold_v08(vec![model("s", None, json!([entry.clone()]))]);
        assert_eq!(state.rejected, 1, "{entry}");
    }
}

#[test]
fn contents_must_be_an_array() {
    let state = fold_v08(vec![
        model("s", None, json!({})),
        json!({"dataModelUpdate": {"surfaceId": "s"}}),
    ]);
    assert_eq!(state.rejected, 2);
}

#[test]
fn value_map_nesting_over_20_is_invalid() {
    let nest = |levels: usize| {
        let mut contents = json!([{"key": "leaf", "valueString": "x"}]);
        for _ in 0..levels {
            contents = json!([{"key": "k", "valueMap": contents}]);
        }
        contents
    };
    assert_eq!(fold_v08(vec![model("s", None, nest(19))]).rejected, 0);
    assert_eq!(fold_v08(vec![model("s", None, nest(20))]).rejected, 1);
}

#[test]
fn v08_paths_follow_pointer_rules() {
    let contents = json!([{"key": "a", "valueNumber": 1}]);
    for path in ["relative", "/__proto__", "/a/constructor"] {
        assert_eq!(
            fold_v08(vec![model("s", Some(path), contents.clone())]).rejected,
            1,
            "{path}"
        );
    }
    let long = format!("/{}", xs(512));
    assert_eq!(
        fold_v08(vec![model("s", Some(&long), contents.clone())]).rejected,
        1
    );
}

#[test]
fn v08_model_over_64_kib_resets_and_counts_invalid() {
    let big = json!([{"key": "k", "valueString": xs(65_529)}]);
    let state = fold_v08(vec![
        model("s", None, json!([{"key": "a", "valueNumber": 1}])),
        model("s", None, big),
    ]);
    assert_eq!(state.rejected, 1);
    assert_eq!(state.surfaces[0].model, json!({}));
}

#[test]
fn v08_delete_surface_and_unknown_id() {
    let state = fold_v08(vec![
        begin("s", "r"),
        json!({"deleteSurface": {"surfaceId": "s"}}),
        json!({"deleteSurface": {"surfaceId": "ghost"}}),
    ]);
    assert_eq!(state.rejected, 0);
    assert!(state.surfaces.is_empty());
}

#[test]
fn v08_message_to_v09_surface_is_invalid() {
    let mut state = fold(vec![create("s")]);
    state.apply_part(A2uiVersion::V08, &begin("s", "r"));
    assert_eq!(state.rejected, 1);
    assert_eq!(state.surfaces[0].version, A2uiVersion::V09);
}

#[test]
fn bound_value_with_literal_and_path_initialises_model() {
    let field = json!({"id": "f", "component": {"TextField": {"label": {"literalString": "Name"},
                       "text": {"path": "/name", "literalString": "Ada"}}}});
    let state = fold_v08(vec![update("s", json!([field])), begin("s", "f")]);
    assert_eq!(state.surfaces[0].model, json!({"name": "Ada"}));
    match state.surfaces[0].render() {
        RenderNode::TextField {
            value,
            binding,
            label,
            ..
        } => {
            assert_eq!(
                (value.as_str(), binding.as_deref(), label.as_str()),
                ("Ada", Some("/name"), "Name")
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn initial_value_that_breaks_a_model_rule_is_skipped() {
    let field =
        json!({"id": "f", "component": {"TextField": {"text": {"path": "/a/b", "literalString": "x"}}}});
    let state = fold_v08(vec![
        model("s", None, json!([{"key": "a", "valueNumber": 1}])),
        update("s", json!([field])),
    ]);
    assert_eq!(state.rejected, 0);
    assert_eq!(state.surfaces[0].model, json!({"a": 1}));
    assert_eq!(state.surfaces[0].components.len(), 1);
}
