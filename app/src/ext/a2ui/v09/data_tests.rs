//! Tests for v0.9 `updateDataModel` (§1.4): pointers, root reset, non-root writes and the 64 KiB limit.

use serde_json::{Value, json};

use super::super::test_support::{create, data, fold, xs};
use super::super::{A2UI_BASIC_CATALOG, A2uiState};

/// Folds `create("s")` followed by `rest`.
fn with_surface(rest: Vec<Value>) -> A2uiState {
    let mut envelopes = vec![create("s")];
    envelopes.extend(rest);
    fold(envelopes)
}

#[test]
fn create_surface_theme_and_send_data_model_are_ignored() {
    let body =
        json!({"surfaceId": "s", "catalogId": A2UI_BASIC_CATALOG, "theme": {"x": 1}, "sendDataModel": true});
    let state = fold(vec![json!({"version": "v0.9", "createSurface": body})]);
    assert_eq!(state.rejected, 0);
    assert_eq!(state.surfaces[0].model, json!({}));
}

#[test]
fn update_data_model_requires_existing_surface() {
    assert_eq!(fold(vec![data("nope", None, Some(json!({})))]).rejected, 1);
}

#[test]
fn path_defaults_to_root() {
    let state = with_surface(vec![data("s", None, Some(json!({"a": 1})))]);
    assert_eq!(state.surfaces[0].model, json!({"a": 1}));
}

#[test]
fn path_must_be_a_string() {
    let envelope = json!({"version": "v0.9", "updateDataModel": {"surfaceId": "s", "path": 1, "value": {}}});
    assert_eq!(with_surface(vec![envelope]).rejected, 1);
}

#[test]
fn empty_and_slash_paths_mean_root() {
    let state = with_surface(vec![
        data("s", Some(""), Some(json!({"a": 1}))),
        data("s", Some("/"), Some(json!({"b": 2}))),
    ]);
    assert_eq!(state.rejected, 0);
    assert_eq!(state.surfaces[0].model, json!({"b": 2}));
}

#[test]
fn pointer_over_512_chars_is_invalid() {
    let ok = format!("/{}", xs(511));
    let long = format!("/{}", xs(512));
    let state = with_surface(vec![
        data("s", Some(&ok), Some(json!(1))),
        data("s", Some(&long), Some(json!(1))),
    ]);
    assert_eq!(state.rejected, 1);
    assert_eq!(state.surfaces[0].model.as_object().unwrap().len(), 1);
}

#[test]
fn relative_pointer_is_invalid() {
    assert_eq!(
        with_surface(vec![data("s", Some("a/b"), Some(json!(1)))]).rejected,
        1
    );
}

#[test]
fn pointer_unescapes_tilde_one_and_tilde_zero() {
    let state = with_surface(vec![
        data("s", Some("/a~1b"), Some(json!(1))),
        data("s", Some("/m~0n~01"), Some(json!(2))),
    ]);
    assert_eq!(state.surfaces[0].model, json!({"a/b": 1, "m~n~1": 2}));
}

#[test]
fn proto_constructor_prototype_segments_are_invalid() {
    for path in ["/__proto__", "/a/constructor", "/prototype/x", "/a/__proto__/b"] {
        let state = with_surface(vec![data("s", Some(path), Some(json!(1)))]);
        assert_eq!(state.rejected, 1, "{path}");
        assert_eq!(state.surfaces[0].model, json!({}));
    }
}

#[test]
fn root_value_must_be_object_or_absent() {
    let state = with_surface(vec![
        data("s", None, Some(json!({"a": 1}))),
        data("s", None, Some(json!([1]))),
    ]);
    assert_eq!(state.rejected, 1);
    assert_eq!(
        state.surfaces[0].model,
        json!({"a": 1}),
        "a non-object root changes nothing"
    );
    let null = with_surface(vec![data("s", None, Some(json!(null)))]);
    assert_eq!(null.rejected, 1);
}

#[test]
fn absent_root_value_resets_model() {
    let state = with_surface(vec![
        data("s", None, Some(json!({"a": 1}))),
        data("s", Some("/"), None),
    ]);
    assert_eq!(state.rejected, 0);
    assert_eq!(state.surfaces[0].model, json!({}));
}

/// An object whose compact JSON is exactly `n` chars: `{"k":"xxx…"}` is 8 + len.
fn object_of_len(n: usize) -> Value {
    json!({"k": xs(n - 8)})
}

#[test]
fn root_model_of_exactly_64_kib_is_accepted() {
    let state = with_surface(vec![data("s", None, Some(object_of_len(65_536)))]);
    assert_eq!(state.rejected, 0);
    assert_eq!(
        serde_json::to_string(&state.surfaces[0].model).unwrap().len(),
        65_536
    );
}

#[test]
fn root_model_over_64_kib_resets_model_and_counts_invalid() {
    let state = with_surface(vec![
        data("s", None, Some(json!({"a": 1}))),
        data("s", None, Some(object_of_len(65_537))),
    ]);
    assert_eq!(state.rejected, 1);
    assert_eq!(state.surfaces[0].model, json!({}), "reset, not kept");
}

#[test]
fn model_size_counts_utf16_units() {
    // "é" is 2 UTF-8 bytes but 1 UTF-16 unit: 65,528 of them make exactly 65,536 units.
    let state = with_surface(vec![data("s", None, Some(json!({"k": "é".repeat(65_528)})))]);
    assert_eq!(state.rejected, 0);
    let over = with_surface(vec![data("s", None, Some(json!({"k": "😀".repeat(32_765)})))]);
    assert_eq!(over.rejected, 1, "each emoji is 2 units: 8 + 65,530 > 65,536");
}

#[test]
fn non_root_set_creates_intermediate_objects() {
    let state = with_surface(vec![data("s", Some("/a/b/c"), Some(json!("x")))]);
    assert_eq!(state.surfaces[0].model, json!({"a": {"b": {"c": "x"}}}));
}

#[test]
fn non_root_absent_value_deletes() {
    let state = with_surface(vec![
        data("s", None, Some(json!({"a": {"b": 1, "c": 2}}))),
        data("s", Some("/a/b"), None),
    ]);
    assert_eq!(state.rejected, 0);
    assert_eq!(state.surfaces[0].model, json!({"a": {"c": 2}}));
}

#[test]
fn intermediate_non_container_is_invalid() {
    let state = with_surface(vec![
        data("s", None, Some(json!({"a": 5}))),
        data("s", Some("/a/b"), Some(json!(1))),
    ]);
    assert_eq!(state.rejected, 1);
    assert_eq!(state.surfaces[0].model, json!({"a": 5}));
}

#[test]
fn non_numeric_index_into_array_is_invalid() {
    let state = with_surface(vec![
        data("s", None, Some(json!({"a": [1, 2]}))),
        data("s", Some("/a/x"), Some(json!(1))),
    ]);
    assert_eq!(state.rejected, 1);
    assert_eq!(state.surfaces[0].model, json!({"a": [1, 2]}));
}

#[test]
fn numeric_index_sets_array_element() {
    let state = with_surface(vec![
        data("s", None, Some(json!({"a": [1, 2]}))),
        data("s", Some("/a/1"), Some(json!("two"))),
        data("s", Some("/a/2/x"), Some(json!(3))),
    ]);
    assert_eq!(state.rejected, 0);
    assert_eq!(state.surfaces[0].model, json!({"a": [1, "two", {"x": 3}]}));
}

#[test]
fn non_root_result_over_64_kib_is_invalid_and_changes_nothing() {
    let state = with_surface(vec![
        data("s", None, Some(json!({"a": 1}))),
        data("s", Some("/big"), Some(json!(xs(65_536)))),
    ]);
    assert_eq!(state.rejected, 1);
    assert_eq!(state.surfaces[0].model, json!({"a": 1}));
}
