//! A2UI v0.9 envelopes (§1.4 "Envelope validation"): `createSurface`, `updateComponents`,
//! `updateDataModel` and `deleteSurface`, each validated in full before anything changes.
//! Components are stored flat as the wire sends them; nothing is interpreted here.

use serde_json::{Map, Value};

use super::model::{A2uiState, Component, Invalid, Surface, surface_id};
use super::pointer::parse_pointer;
use super::text::{is_id, utf16_len};
use super::{A2uiVersion, MAX_CATALOG_ID_CHARS, MAX_COMPONENT_NAME_CHARS, MAX_ID_CHARS};

/// The wire `version` of a v0.9 envelope.
pub const V09_VERSION: &str = "v0.9";

/// Applies one envelope: an object with `version == "v0.9"` and exactly one other key, whose body
/// is an object with a valid `surfaceId`. Unknown message keys are [`Invalid`].
pub(crate) fn apply(state: &mut A2uiState, envelope: &Value) -> Result<(), Invalid> {
    let object = envelope.as_object().ok_or(Invalid)?;
    if object.get("version").and_then(Value::as_str) != Some(V09_VERSION) || object.len() != 2 {
        return Err(Invalid);
    }
    let (kind, body) = object.iter().find(|(key, _)| *key != "version").ok_or(Invalid)?;
    let body = body.as_object().ok_or(Invalid)?;
    let id = surface_id(body)?;
    match kind.as_str() {
        "createSurface" => create_surface(state, id, body),
        "updateComponents" => update_components(state, id, body),
        "updateDataModel" => update_data_model(state, id, body),
        "deleteSurface" => {
            state.delete_surface(id);
            Ok(())
        }
        _ => Err(Invalid),
    }
}

/// `createSurface`: `catalogId` a string ≤ 512; a ninth new id is [`Invalid`]; an existing id is
/// replaced (empty components and model). `theme` and `sendDataModel` are ignored.
fn create_surface(state: &mut A2uiState, id: &str, body: &Map<String, Value>) -> Result<(), Invalid> {
    let catalog = match body.get("catalogId") {
        Some(Value::String(catalog)) if utf16_len(catalog) <= MAX_CATALOG_ID_CHARS => catalog,
        _ => return Err(Invalid),
    };
    if !state.has_room_for(id) {
        return Err(Invalid);
    }
    state.put_surface(Surface::new(id, A2uiVersion::V09, catalog))
}

/// `updateComponents`: existing surface, non-empty `components`, every entry valid (else nothing
/// merges), at most 200 components after the merge.
fn update_components(state: &mut A2uiState, id: &str, body: &Map<String, Value>) -> Result<(), Invalid> {
    let surface = state.surface_mut(id, A2uiVersion::V09)?;
    let entries = match body.get("components") {
        Some(Value::Array(entries)) if !entries.is_empty() => entries,
        _ => return Err(Invalid),
    };
    let components = entries.iter().map(component).collect::<Result<Vec<_>, _>>()?;
    surface.merge_components(components)
}

/// One `components` entry: an object with `id` (1..128) and `component` (a string ≤ 64).
fn component(entry: &Value) -> Result<Component, Invalid> {
    let object = entry.as_object().ok_or(Invalid)?;
    let id = match object.get("id") {
        Some(Value::String(id)) if is_id(id, MAX_ID_CHARS) => id,
        _ => return Err(Invalid),
    };
    let name = match object.get("component") {
        Some(Value::String(name)) if utf16_len(name) <= MAX_COMPONENT_NAME_CHARS => name,
        _ => return Err(Invalid),
    };
    let props = object
        .iter()
        .filter(|(key, _)| *key != "id" && *key != "component")
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    Ok(Component {
        id: id.clone(),
        component: name.clone(),
        props,
    })
}

/// `updateDataModel`: existing surface; `path` (default `/`) a valid pointer; `value` set, or
/// deleted when absent (see [`Surface::update_model`]).
fn update_data_model(state: &mut A2uiState, id: &str, body: &Map<String, Value>) -> Result<(), Invalid> {
    let surface = state.surface_mut(id, A2uiVersion::V09)?;
    let path = match body.get("path") {
        None => "/",
        Some(Value::String(path)) => path,
        Some(_) => return Err(Invalid),
    };
    let segments = parse_pointer(path).ok_or(Invalid)?;
    surface.update_model(&segments, body.get("value").cloned())
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod data_tests;
