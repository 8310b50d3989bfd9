//! Test helpers for the A2UI module: envelope builders and one-call folds. Test-only; compiled
//! under `cfg(test)` and never part of the app.

use serde_json::{Value, json};

use super::{A2UI_BASIC_CATALOG, A2uiState, A2uiVersion, Surface};

/// A `createSurface` envelope for the basic catalog.
pub(crate) fn create(id: &str) -> Value {
    json!({"version": "v0.9", "createSurface": {"surfaceId": id, "catalogId": A2UI_BASIC_CATALOG}})
}

/// An `updateComponents` envelope.
pub(crate) fn components(id: &str, components: Value) -> Value {
    json!({"version": "v0.9", "updateComponents": {"surfaceId": id, "components": components}})
}

/// An `updateDataModel` envelope with optional `path` and `value`.
pub(crate) fn data(id: &str, path: Option<&str>, value: Option<Value>) -> Value {
    let mut body = json!({"surfaceId": id});
    if let Some(path) = path {
        body["path"] = json!(path);
    }
    if let Some(value) = value {
        body["value"] = value;
    }
    json!({"version": "v0.9", "updateDataModel": body})
}

/// Folds `envelopes` as one v0.9 part.
pub(crate) fn fold(envelopes: Vec<Value>) -> A2uiState {
    let mut state = A2uiState::default();
    state.apply_part(A2uiVersion::V09, &Value::Array(envelopes));
    state
}

/// Folds v0.8 `messages`, one part each.
pub(crate) fn fold_v08(messages: Vec<Value>) -> A2uiState {
    let mut state = A2uiState::default();
    for message in messages {
        state.apply_part(A2uiVersion::V08, &message);
    }
    state
}

/// Surface `s` with `components` and the root model `model`.
pub(crate) fn surface(components_json: Value, model: Value) -> Surface {
    let state = fold(vec![
        create("s"),
        components("s", components_json),
        data("s", None, Some(model)),
    ]);
    assert_eq!(state.rejected, 0, "fixture envelopes must be valid");
    state.surfaces[0].clone()
}

/// A string of `n` ASCII `x`.
pub(crate) fn xs(n: usize) -> String {
    "x".repeat(n)
}
