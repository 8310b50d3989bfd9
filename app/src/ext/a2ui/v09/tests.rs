//! Tests for v0.9 envelope validation (§1.4), one per rule and limit.

use serde_json::{Value, json};

use super::super::test_support::{components, create, fold, xs};
use super::super::{A2UI_BASIC_CATALOG, A2uiState};

fn text(id: &str) -> Value {
    json!({"id": id, "component": "Text", "text": id})
}

/// Folds `create("s")` followed by `rest`.
fn with_surface(rest: Vec<Value>) -> A2uiState {
    let mut envelopes = vec![create("s")];
    envelopes.extend(rest);
    fold(envelopes)
}

#[test]
fn envelope_must_be_an_object() {
    assert_eq!(
        fold(vec![json!([]), json!("x"), json!(null), json!(3)]).rejected,
        4
    );
}

#[test]
fn version_must_be_v0_9() {
    let body = json!({"surfaceId": "s", "catalogId": A2UI_BASIC_CATALOG});
    let state = fold(vec![
        json!({"version": "v0.8", "createSurface": body}),
        json!({"version": 0.9, "createSurface": body}),
        json!({"createSurface": body}),
    ]);
    assert_eq!(state.rejected, 3);
    assert!(state.surfaces.is_empty());
}

#[test]
fn empty_object_is_invalid() {
    assert_eq!(fold(vec![json!({})]).rejected, 1);
}

#[test]
fn version_alone_is_invalid() {
    assert_eq!(fold(vec![json!({"version": "v0.9"})]).rejected, 1);
}

#[test]
fn two_message_keys_are_invalid() {
    let body = json!({"surfaceId": "s", "catalogId": A2UI_BASIC_CATALOG});
    let state = fold(vec![
        json!({"version": "v0.9", "createSurface": body, "deleteSurface": {"surfaceId": "s"}}),
    ]);
    assert_eq!(state.rejected, 1);
    assert!(state.surfaces.is_empty());
}

#[test]
fn unknown_message_key_is_invalid() {
    assert_eq!(
        fold(vec![json!({"version": "v0.9", "wipe": {"surfaceId": "s"}})]).rejected,
        1
    );
}

#[test]
fn body_must_be_an_object() {
    assert_eq!(
        fold(vec![json!({"version": "v0.9", "deleteSurface": "s"})]).rejected,
        1
    );
}

#[test]
fn surface_id_must_be_1_to_128_chars() {
    assert_eq!(fold(vec![create("")]).rejected, 1);
    assert_eq!(fold(vec![create(&xs(129))]).rejected, 1);
    assert_eq!(fold(vec![create(&xs(128))]).rejected, 0);
    let numeric =
        json!({"version": "v0.9", "createSurface": {"surfaceId": 1, "catalogId": A2UI_BASIC_CATALOG}});
    assert_eq!(fold(vec![numeric]).rejected, 1);
}

#[test]
fn surface_id_length_counts_utf16_units() {
    assert_eq!(fold(vec![create(&"😀".repeat(64))]).rejected, 0);
    assert_eq!(fold(vec![create(&"😀".repeat(65))]).rejected, 1);
}

#[test]
fn create_surface_catalog_id_is_a_string_of_at_most_512() {
    let create_with = |catalog: Value| json!({"version": "v0.9", "createSurface": {"surfaceId": "s", "catalogId": catalog}});
    assert_eq!(fold(vec![create_with(json!(xs(512)))]).rejected, 0);
    assert_eq!(fold(vec![create_with(json!(xs(513)))]).rejected, 1);
    assert_eq!(fold(vec![create_with(json!(7))]).rejected, 1);
    assert_eq!(
        fold(vec![
            json!({"version": "v0.9", "createSurface": {"surfaceId": "s"}})
        ])
        .rejected,
        1
    );
}

#[test]
fn create_surface_basic_catalog_is_supported_other_is_not() {
    assert!(fold(vec![create("s")]).surfaces[0].supported);
    let other = json!({"version": "v0.9", "createSurface": {"surfaceId": "s", "catalogId": "https://x/catalog.json"}});
    assert!(!fold(vec![other]).surfaces[0].supported);
}

#[test]
fn update_components_requires_existing_surface() {
    assert_eq!(fold(vec![components("nope", json!([text("root")]))]).rejected, 1);
}

#[test]
fn update_components_requires_non_empty_array() {
    let state = with_surface(vec![
        components("s", json!([])),
        components("s", json!({"id": "root"})),
        json!({"version": "v0.9", "updateComponents": {"surfaceId": "s"}}),
    ]);
    assert_eq!(state.rejected, 3);
}

#[test]
fn component_entry_needs_id_of_1_to_128_chars() {
    let bad = [
        json!({"component": "Text"}),
        json!({"id": "", "component": "Text"}),
        json!({"id": 3, "component": "Text"}),
    ];
    for entry in bad {
        assert_eq!(with_surface(vec![components("s", json!([entry]))]).rejected, 1);
    }
    let long = json!({"id": xs(129), "component": "Text"});
    assert_eq!(with_surface(vec![components("s", json!([long]))]).rejected, 1);
    let max = json!({"id": xs(128), "component": "Text"});
    assert_eq!(with_surface(vec![components("s", json!([max]))]).rejected, 0);
}

#[test]
fn component_name_is_a_string_of_at_most_64() {
    let named = |name: Value| components("s", json!([{"id": "root", "component": name}]));
    assert_eq!(with_surface(vec![named(json!(xs(64)))]).rejected, 0);
    assert_eq!(with_surface(vec![named(json!(xs(65)))]).rejected, 1);
    assert_eq!(with_surface(vec![named(json!({"Text": {}}))]).rejected, 1);
    assert_eq!(
        with_surface(vec![components("s", json!([{"id": "root"}]))]).rejected,
        1
    );
}

#[test]
fn non_object_component_entry_is_invalid() {
    assert_eq!(with_surface(vec![components("s", json!(["root"]))]).rejected, 1);
}

#[test]
fn bad_entry_rejects_whole_envelope_without_partial_merge() {
    let state = with_surface(vec![components(
        "s",
        json!([text("a"), {"id": "", "component": "Text"}]),
    )]);
    assert_eq!(state.rejected, 1);
    assert!(state.surfaces[0].components.is_empty());
}

#[test]
fn components_merge_by_id() {
    let state = with_surface(vec![
        components("s", json!([text("a"), text("b")])),
        components("s", json!([{"id": "a", "component": "Divider"}])),
    ]);
    let surface = &state.surfaces[0];
    assert_eq!(surface.components.len(), 2);
    assert_eq!(surface.components["a"].component, "Divider");
    assert_eq!(surface.components["b"].props["text"], json!("b"));
}

#[test]
fn merged_map_over_200_components_is_invalid_and_nothing_changes() {
    let first: Vec<Value> = (0..200).map(|i| text(&format!("c{i}"))).collect();
    let state = with_surface(vec![
        components("s", Value::Array(first)),
        components("s", json!([text("c0"), {"id": "c1", "component": "Divider"}])),
        components("s", json!([{"id": "c2", "component": "Divider"}, text("extra")])),
    ]);
    assert_eq!(state.rejected, 1);
    let surface = &state.surfaces[0];
    assert_eq!(surface.components.len(), 200);
    assert_eq!(
        surface.components["c1"].component, "Divider",
        "re-sending existing ids is fine at 200"
    );
    assert_eq!(
        surface.components["c2"].component, "Text",
        "the rejected envelope changed nothing"
    );
}

#[test]
fn delete_surface_removes_it() {
    let state = with_surface(vec![
        json!({"version": "v0.9", "deleteSurface": {"surfaceId": "s"}}),
    ]);
    assert_eq!(state.rejected, 0);
    assert!(state.surfaces.is_empty());
}

#[test]
fn deleting_unknown_surface_is_not_invalid() {
    let state = fold(vec![
        json!({"version": "v0.9", "deleteSurface": {"surfaceId": "ghost"}}),
    ]);
    assert_eq!(state.rejected, 0);
}

#[test]
fn update_to_deleted_surface_is_invalid() {
    let state = with_surface(vec![
        json!({"version": "v0.9", "deleteSurface": {"surfaceId": "s"}}),
        components("s", json!([text("root")])),
    ]);
    assert_eq!(state.rejected, 1);
}

#[test]
fn v09_update_to_v08_surface_is_invalid() {
    let mut state = A2uiState::default();
    state.apply_part(
        super::super::A2uiVersion::V08,
        &json!({"beginRendering": {"surfaceId": "s", "root": "r"}}),
    );
    state.apply_part(
        super::super::A2uiVersion::V09,
        &json!([components("s", json!([text("root")]))]),
    );
    assert_eq!(state.rejected, 1);
}
