//! Tests for the fold (§1.4 "Folding"): envelope cap, rejected counter, surface order and limits.

use serde_json::{Value, json};

use super::super::test_support::{components, create, data, fold};
use super::super::{A2uiVersion, MAX_ENVELOPES, UNSUPPORTED_CATALOG_NOTICE};
use super::*;

#[test]
fn processing_stops_silently_after_2000_envelopes() {
    let mut envelopes = vec![json!("junk"); MAX_ENVELOPES];
    envelopes.push(create("late"));
    let state = fold(envelopes);
    assert_eq!(state.rejected, 2_000);
    assert_eq!(state.envelopes, 2_000);
    assert!(state.surfaces.is_empty(), "the 2,001st envelope is not applied");
}

#[test]
fn envelope_cap_spans_parts() {
    let mut state = A2uiState::default();
    state.apply_part(A2uiVersion::V09, &Value::Array(vec![json!(1); 1_999]));
    state.apply_part(A2uiVersion::V09, &json!([create("a"), create("b"), 7]));
    assert_eq!(state.surfaces.len(), 1);
    assert_eq!(state.rejected, 1_999, "envelopes past the cap are not counted");
}

#[test]
fn invalid_envelope_is_counted_and_the_rest_still_apply() {
    let state = fold(vec![
        json!({}),
        create("a"),
        json!({"version": "v0.9", "wipe": {}}),
        create("b"),
    ]);
    assert_eq!(state.rejected, 2);
    assert_eq!(state.surfaces.len(), 2);
}

#[test]
fn surfaces_keep_insertion_order() {
    let state = fold(vec![create("b"), create("a"), create("c"), create("a")]);
    let ids: Vec<&str> = state.surfaces.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, ["b", "a", "c"]);
}

#[test]
fn new_surface_beyond_eight_is_invalid() {
    let envelopes: Vec<Value> = (0..9).map(|i| create(&format!("s{i}"))).collect();
    let state = fold(envelopes);
    assert_eq!(state.surfaces.len(), 8);
    assert_eq!(state.rejected, 1);
    assert!(state.surface("s8").is_none());
}

#[test]
fn recreating_existing_surface_replaces_it_and_does_not_count_toward_limit() {
    let mut envelopes: Vec<Value> = (0..8).map(|i| create(&format!("s{i}"))).collect();
    envelopes.push(components(
        "s3",
        json!([{"id": "root", "component": "Text", "text": "hi"}]),
    ));
    envelopes.push(data("s3", Some("/a"), Some(json!(1))));
    envelopes.push(create("s3"));
    let state = fold(envelopes);
    assert_eq!(state.rejected, 0);
    assert_eq!(state.surfaces.len(), 8);
    let s3 = state.surface("s3").unwrap();
    assert!(s3.components.is_empty());
    assert_eq!(s3.model, json!({}));
    assert_eq!(state.surfaces[3].id, "s3", "replaced in place");
}

#[test]
fn apply_part_v09_ignores_non_array_data() {
    let mut state = A2uiState::default();
    state.apply_part(A2uiVersion::V09, &create("s"));
    assert_eq!(state, A2uiState::default());
}

#[test]
fn apply_part_v08_accepts_object_and_array() {
    let mut state = A2uiState::default();
    state.apply_part(
        A2uiVersion::V08,
        &json!({"beginRendering": {"surfaceId": "a", "root": "r"}}),
    );
    state.apply_part(
        A2uiVersion::V08,
        &json!([{"beginRendering": {"surfaceId": "b", "root": "r"}}]),
    );
    assert_eq!(state.surfaces.len(), 2);
    assert_eq!(state.envelopes, 2);
}

#[test]
fn unsupported_catalog_has_notice() {
    let state = fold(vec![
        json!({"version": "v0.9", "createSurface": {"surfaceId": "s", "catalogId": "x"}}),
    ]);
    let surface = &state.surfaces[0];
    assert!(!surface.supported);
    assert_eq!(surface.notice(), Some(UNSUPPORTED_CATALOG_NOTICE));
    let supported = fold(vec![create("s")]);
    assert!(supported.surfaces[0].supported);
    assert_eq!(supported.surfaces[0].notice(), None);
}

#[test]
fn state_round_trips_through_serde() {
    let state = fold(vec![
        create("s"),
        components("s", json!([{"id": "root", "component": "Text", "text": "hi"}])),
        data("s", Some("/a"), Some(json!([1, 2]))),
    ]);
    let text = serde_json::to_string(&state).unwrap();
    assert!(text.contains("\"catalogId\""));
    let back: A2uiState = serde_json::from_str(&text).unwrap();
    assert_eq!(back, state);
}
