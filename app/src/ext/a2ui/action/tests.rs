//! Tests for value resolution, the edit overlay and actions (§1.4 "Values" and "Action").

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::super::test_support::{surface, xs};
use super::super::{A2uiVersion, MAX_ACTION_CONTEXT_CHARS};
use super::*;

fn no_edits() -> BTreeMap<String, Value> {
    BTreeMap::new()
}

fn button(action: Value) -> Value {
    json!([{"id": "root", "component": "Button", "child": "l", "action": action},
           {"id": "l", "component": "Text", "text": "Go"}])
}

fn state_of(action: Value, model: Value, edits: &BTreeMap<String, Value>, finished: bool) -> ActionState {
    let surface = surface(button(action), model);
    action_state(&surface.components["root"], &surface, edits, finished)
}

fn disabled(reason: &str) -> ActionState {
    ActionState::Disabled {
        reason: reason.to_string(),
    }
}

#[test]
fn literals_resolve_to_themselves() {
    let model = json!({});
    for value in [json!("s"), json!(1.5), json!(true)] {
        assert_eq!(resolve(&value, &model, &no_edits()), Some(value));
    }
}

#[test]
fn null_arrays_objects_and_function_calls_resolve_to_nothing() {
    let model = json!({"a": 1});
    for value in [
        json!(null),
        json!([1]),
        json!({}),
        json!({"call": "formatDate", "args": {}}),
        json!({"x": 1}),
    ] {
        assert_eq!(resolve(&value, &model, &no_edits()), None, "{value}");
    }
}

#[test]
fn path_binding_resolves_from_model() {
    let model = json!({"user": {"name": "Ada", "tags": ["a"]}});
    assert_eq!(
        resolve(&json!({"path": "/user/name"}), &model, &no_edits()),
        Some(json!("Ada"))
    );
    assert_eq!(
        resolve(&json!({"path": "/user/tags"}), &model, &no_edits()),
        Some(json!(["a"]))
    );
    assert_eq!(resolve(&json!({"path": "/missing"}), &model, &no_edits()), None);
}

#[test]
fn path_binding_needs_exactly_one_key() {
    let model = json!({"a": 1});
    assert_eq!(
        resolve(&json!({"path": "/a", "literalString": "x"}), &model, &no_edits()),
        None
    );
}

#[test]
fn relative_and_invalid_paths_resolve_to_nothing() {
    let model = json!({"a": 1, "__proto__": 2});
    for path in ["a", "./a", "/__proto__", "/a~2"] {
        assert_eq!(
            resolve(&json!({"path": path}), &model, &no_edits()),
            None,
            "{path}"
        );
    }
    assert_eq!(resolve(&json!({"path": 1}), &model, &no_edits()), None);
}

#[test]
fn edits_override_the_model_at_their_pointer() {
    let model = json!({"form": {"name": "agent", "age": 3}});
    let mut edits = no_edits();
    assert!(set_edit(&mut edits, "/form/name", json!("viewer")));
    assert_eq!(
        resolve(&json!({"path": "/form/name"}), &model, &edits),
        Some(json!("viewer"))
    );
    assert_eq!(
        resolve(&json!({"path": "/form"}), &model, &edits),
        Some(json!({"name": "viewer", "age": 3}))
    );
}

#[test]
fn edit_above_a_pointer_is_seen_below_it() {
    let mut edits = no_edits();
    set_edit(&mut edits, "/form", json!({"name": "x"}));
    assert_eq!(
        resolve(&json!({"path": "/form/name"}), &json!({}), &edits),
        Some(json!("x"))
    );
}

#[test]
fn edit_below_a_missing_value_creates_it() {
    let mut edits = no_edits();
    set_edit(&mut edits, "/new/field", json!(1));
    assert_eq!(
        resolve(&json!({"path": "/new"}), &json!({}), &edits),
        Some(json!({"field": 1}))
    );
}

#[test]
fn newer_edit_above_replaces_older_edits_below() {
    let mut edits = no_edits();
    set_edit(&mut edits, "/form/name", json!("old"));
    set_edit(&mut edits, "/form", json!({"name": "new"}));
    assert_eq!(edits.len(), 1);
    assert_eq!(
        resolve(&json!({"path": "/form/name"}), &json!({}), &edits),
        Some(json!("new"))
    );
}

#[test]
fn set_edit_refuses_invalid_pointers() {
    let mut edits = no_edits();
    assert!(!set_edit(&mut edits, "relative", json!(1)));
    assert!(!set_edit(&mut edits, "/__proto__", json!(1)));
    assert!(edits.is_empty());
}

#[test]
fn action_enabled_with_resolved_context() {
    let action =
        json!({"event": {"name": "submit", "context": {"who": {"path": "/name"}, "n": 2, "lit": "x"}}});
    let state = state_of(action, json!({"name": "Ada"}), &no_edits(), false);
    let context = json!({"who": "Ada", "n": 2, "lit": "x"})
        .as_object()
        .unwrap()
        .clone();
    assert_eq!(
        state,
        ActionState::Enabled {
            name: "submit".to_string(),
            context
        }
    );
}

#[test]
fn unresolvable_context_values_are_omitted() {
    let action = json!({"event": {"name": "go", "context": {"gone": {"path": "/missing"}, "fn": {"call": "now"},
                                                            "rel": {"path": "x"}, "arr": [1], "null": null}}});
    let state = state_of(action, json!({}), &no_edits(), false);
    assert_eq!(
        state,
        ActionState::Enabled {
            name: "go".to_string(),
            context: Map::new()
        }
    );
}

#[test]
fn context_uses_the_viewer_edits() {
    let mut edits = no_edits();
    set_edit(&mut edits, "/name", json!("typed"));
    let action = json!({"event": {"name": "go", "context": {"who": {"path": "/name"}}}});
    let ActionState::Enabled { context, .. } = state_of(action, json!({"name": "agent"}), &edits, false)
    else {
        panic!("enabled expected");
    };
    assert_eq!(context["who"], json!("typed"));
}

#[test]
fn absent_context_is_empty() {
    let state = state_of(json!({"event": {"name": "go"}}), json!({}), &no_edits(), false);
    assert_eq!(
        state,
        ActionState::Enabled {
            name: "go".to_string(),
            context: Map::new()
        }
    );
}

#[test]
fn function_call_action_is_not_supported() {
    let reason = disabled("This action is not supported");
    assert_eq!(
        state_of(
            json!({"functionCall": {"call": "openUrl"}}),
            json!({}),
            &no_edits(),
            false
        ),
        reason
    );
    let both = json!({"event": {"name": "go"}, "functionCall": {"call": "openUrl"}});
    assert_eq!(state_of(both, json!({}), &no_edits(), false), reason);
}

#[test]
fn action_needs_an_event_object() {
    let reason = disabled(ACTION_NOT_SUPPORTED_REASON);
    for action in [json!("go"), json!({}), json!({"event": "go"}), json!(null)] {
        assert_eq!(state_of(action, json!({}), &no_edits(), false), reason);
    }
}

#[test]
fn event_name_is_1_to_128_chars() {
    let reason = disabled(ACTION_INVALID_REASON);
    for name in [json!(""), json!(xs(129)), json!(3), json!(null)] {
        assert_eq!(
            state_of(json!({"event": {"name": name}}), json!({}), &no_edits(), false),
            reason
        );
    }
    assert!(matches!(
        state_of(json!({"event": {"name": xs(128)}}), json!({}), &no_edits(), false),
        ActionState::Enabled { .. }
    ));
}

#[test]
fn context_must_be_an_object() {
    let action = json!({"event": {"name": "go", "context": [["k", 1]]}});
    assert_eq!(
        state_of(action, json!({}), &no_edits(), false),
        disabled(ACTION_INVALID_REASON)
    );
}

#[test]
fn proto_context_key_disables() {
    let action = json!({"event": {"name": "go", "context": {"__proto__": 1}}});
    assert_eq!(
        state_of(action, json!({}), &no_edits(), false),
        disabled(ACTION_INVALID_REASON)
    );
}

#[test]
fn context_key_over_128_chars_disables() {
    let long = json!({"event": {"name": "go", "context": { xs(129): 1 }}});
    assert_eq!(
        state_of(long, json!({}), &no_edits(), false),
        disabled(ACTION_INVALID_REASON)
    );
    let max = json!({"event": {"name": "go", "context": { xs(128): 1 }}});
    assert!(matches!(
        state_of(max, json!({}), &no_edits(), false),
        ActionState::Enabled { .. }
    ));
}

#[test]
fn finished_task_disables_actions() {
    let state = state_of(json!({"event": {"name": "go"}}), json!({}), &no_edits(), true);
    assert_eq!(state, disabled(TASK_FINISHED_REASON));
}

#[test]
fn resolved_context_over_16_kib_disables() {
    // {"k":"xxx"} is 8 + n chars.
    let at_limit = json!({"event": {"name": "go", "context": {"k": {"path": "/v"}}}});
    let ok = state_of(
        at_limit.clone(),
        json!({"v": xs(MAX_ACTION_CONTEXT_CHARS - 8)}),
        &no_edits(),
        false,
    );
    assert!(matches!(ok, ActionState::Enabled { .. }));
    let over = state_of(
        at_limit,
        json!({"v": xs(MAX_ACTION_CONTEXT_CHARS - 7)}),
        &no_edits(),
        false,
    );
    assert_eq!(over, disabled(ACTION_CONTEXT_TOO_LARGE_REASON));
}

#[test]
fn oversized_unresolvable_context_values_do_not_count() {
    let action = json!({"event": {"name": "go", "context": {"k": {"call": xs(20_000)}}}});
    assert!(matches!(
        state_of(action, json!({}), &no_edits(), false),
        ActionState::Enabled { .. }
    ));
}

#[test]
fn v08_action_follows_the_same_rules() {
    let mut state = super::super::A2uiState::default();
    let button = json!({"id": "b", "component": {"Button": {"child": "b", "action": {"name": "book",
        "context": [{"key": "when", "value": {"path": "/when"}}, {"key": "__proto__", "value": {"literalString": "x"}}]}}}});
    state.apply_part(
        A2uiVersion::V08,
        &json!({"surfaceUpdate": {"surfaceId": "s", "components": [button]}}),
    );
    let surface = &state.surfaces[0];
    assert_eq!(
        action_state(&surface.components["b"], surface, &no_edits(), false),
        disabled(ACTION_INVALID_REASON)
    );
}

#[test]
fn v09_action_message_uses_the_object_form_of_section_1_4() {
    let context = json!({"who": "Ada"}).as_object().unwrap().clone();
    let parts = action_message_parts(
        A2uiVersion::V09,
        "s1",
        "btn",
        "submit",
        &context,
        "2026-01-02T03:04:05.000Z",
    );
    let expected = json!([{
        "data": {"version": "v0.9", "action": {"name": "submit", "surfaceId": "s1", "sourceComponentId": "btn",
                 "timestamp": "2026-01-02T03:04:05.000Z", "context": {"who": "Ada"}}},
        "mediaType": "application/a2ui+json"
    }]);
    assert_eq!(parts, expected);
}

#[test]
fn v08_action_message_is_user_action() {
    let parts = action_message_parts(
        A2uiVersion::V08,
        "s1",
        "btn",
        "book",
        &Map::new(),
        "2026-01-02T03:04:05Z",
    );
    let expected = json!([{
        "data": {"userAction": {"name": "book", "surfaceId": "s1", "sourceComponentId": "btn",
                 "timestamp": "2026-01-02T03:04:05Z", "context": {}}},
        "mediaType": "application/json+a2ui"
    }]);
    assert_eq!(parts, expected);
}

#[test]
fn client_capabilities_per_version() {
    assert_eq!(A2UI_CLIENT_CAPABILITIES_KEY, "a2uiClientCapabilities");
    assert_eq!(
        client_capabilities_metadata(A2uiVersion::V09),
        json!({"v0.9": {"supportedCatalogIds": ["https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json"]}})
    );
    assert_eq!(
        client_capabilities_metadata(A2uiVersion::V08),
        json!({"supportedCatalogIds": ["https://a2ui.org/specification/v0_8/standard_catalog_definition.json"]})
    );
}

#[test]
fn action_state_serialises_with_a_tag() {
    let value = serde_json::to_value(disabled("r")).unwrap();
    assert_eq!(value, json!({"state": "disabled", "reason": "r"}));
}
