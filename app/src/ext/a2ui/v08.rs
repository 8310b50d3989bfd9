//! A2UI v0.8 messages (`a2a-and-a2ui.md` §B.3, beyond the original): `surfaceUpdate`,
//! `dataModelUpdate` (adjacency-list contents), `beginRendering` and `deleteSurface`, folded into
//! the same surfaces as v0.9 with the same limits. Components are normalised in
//! `a2ui/v08_components.rs`. Paths must be absolute pointers (dot paths are not converted).

use serde_json::{Map, Value};

use super::model::{A2uiState, Invalid, Surface, surface_id};
use super::pointer::parse_pointer;
use super::text::utf16_len;
use super::v08_components::{InitOp, component};
use super::{A2uiVersion, MAX_CATALOG_ID_CHARS, MAX_DEPTH, MAX_SURFACES, V08_STANDARD_CATALOG};

/// The `contents` key that means "the value itself" at a non-root path (v0.8 renderers' convention:
/// `path:"/a/b", contents:[{key:".", valueString:"hi"}]` sets `/a/b` to `"hi"`).
pub const SELF_KEY: &str = ".";

/// Applies one message: an object with exactly one key, whose body is an object with a valid
/// `surfaceId`. A message addressing a v0.9 surface is [`Invalid`].
pub(crate) fn apply(state: &mut A2uiState, message: &Value) -> Result<(), Invalid> {
    let object = message.as_object().ok_or(Invalid)?;
    if object.len() != 1 {
        return Err(Invalid);
    }
    let (kind, body) = object.iter().next().ok_or(Invalid)?;
    let body = body.as_object().ok_or(Invalid)?;
    let id = surface_id(body)?;
    match kind.as_str() {
        "surfaceUpdate" => surface_update(state, id, body),
        "dataModelUpdate" => data_model_update(state, id, body),
        "beginRendering" => begin_rendering(state, id, body),
        "deleteSurface" => {
            state.delete_surface(id);
            Ok(())
        }
        _ => Err(Invalid),
    }
}

/// Runs `change` on v0.8 surface `id`, creating it (standard catalog, not yet rendering) when
/// missing and fewer than 8 surfaces exist. A failed change leaves no new surface behind.
fn with_surface(
    state: &mut A2uiState,
    id: &str,
    change: impl FnOnce(&mut Surface) -> Result<(), Invalid>,
) -> Result<(), Invalid> {
    if let Some(surface) = state.surfaces.iter_mut().find(|s| s.id == id) {
        return match surface.version {
            A2uiVersion::V08 => change(surface),
            A2uiVersion::V09 => Err(Invalid),
        };
    }
    if state.surfaces.len() >= MAX_SURFACES {
        return Err(Invalid);
    }
    let mut surface = Surface::new(id, A2uiVersion::V08, V08_STANDARD_CATALOG);
    change(&mut surface)?;
    state.put_surface(surface)
}

/// `surfaceUpdate`: non-empty `components`, every entry valid (else nothing merges), ≤ 200 after
/// the merge. BoundValues with both a literal and an absolute path then initialise the model at
/// that path (best effort: a write that breaks a model rule is skipped).
fn surface_update(state: &mut A2uiState, id: &str, body: &Map<String, Value>) -> Result<(), Invalid> {
    let entries = match body.get("components") {
        Some(Value::Array(entries)) if !entries.is_empty() => entries,
        _ => return Err(Invalid),
    };
    let mut inits: Vec<InitOp> = Vec::new();
    let components = entries
        .iter()
        .map(|e| component(e, &mut inits))
        .collect::<Result<Vec<_>, _>>()?;
    with_surface(state, id, |surface| {
        surface.merge_components(components)?;
        for (segments, value) in inits {
            // Best effort by design: an initial value never invalidates the components.
            let _ = surface.update_model(&segments, Some(value));
        }
        Ok(())
    })
}

/// `dataModelUpdate`: `path` (default root) a valid pointer; `contents` an array of entries
/// converted to an object. Root: the object replaces the model. Elsewhere the object is set at
/// the path, or the value of a lone [`SELF_KEY`] entry is.
fn data_model_update(state: &mut A2uiState, id: &str, body: &Map<String, Value>) -> Result<(), Invalid> {
    let path = match body.get("path") {
        None => "/",
        Some(Value::String(path)) => path,
        Some(_) => return Err(Invalid),
    };
    let segments = parse_pointer(path).ok_or(Invalid)?;
    let entries = body.get("contents").and_then(Value::as_array).ok_or(Invalid)?;
    let value = match entries.as_slice() {
        [only] if !segments.is_empty() && only.get("key").and_then(Value::as_str) == Some(SELF_KEY) => {
            entry_value(only, 1)?
        }
        _ => Value::Object(contents(entries, 1)?),
    };
    with_surface(state, id, |surface| surface.update_model(&segments, Some(value)))
}

/// An adjacency list as an object; `depth` counts `valueMap` nesting (at most [`MAX_DEPTH`]).
fn contents(entries: &[Value], depth: usize) -> Result<Map<String, Value>, Invalid> {
    if depth > MAX_DEPTH {
        return Err(Invalid);
    }
    let mut object = Map::new();
    for entry in entries {
        let key = entry.get("key").and_then(Value::as_str).ok_or(Invalid)?;
        object.insert(key.to_string(), entry_value(entry, depth)?);
    }
    Ok(object)
}

/// The value of one entry: exactly one of `valueString` (string), `valueNumber` (number),
/// `valueBoolean` (boolean) or `valueMap` (a nested adjacency list → object).
fn entry_value(entry: &Value, depth: usize) -> Result<Value, Invalid> {
    let object = entry.as_object().ok_or(Invalid)?;
    let mut found = ["valueString", "valueNumber", "valueBoolean", "valueMap"]
        .into_iter()
        .filter_map(|key| object.get(key).map(|value| (key, value)));
    let (Some((key, value)), None) = (found.next(), found.next()) else {
        return Err(Invalid);
    };
    match (key, value) {
        ("valueString", Value::String(_)) | ("valueNumber", Value::Number(_)) => Ok(value.clone()),
        ("valueBoolean", Value::Bool(_)) => Ok(value.clone()),
        ("valueMap", Value::Array(entries)) => contents(entries, depth + 1).map(Value::Object),
        _ => Err(Invalid),
    }
}

/// `beginRendering`: `root` a component id (1..128), `catalogId` (default: the standard catalog) a
/// string ≤ 512; `styles` ignored. Sets the root and the catalog; the surface then renders.
fn begin_rendering(state: &mut A2uiState, id: &str, body: &Map<String, Value>) -> Result<(), Invalid> {
    let root = match body.get("root") {
        Some(Value::String(root)) if super::text::is_id(root, super::MAX_ID_CHARS) => root.clone(),
        _ => return Err(Invalid),
    };
    let catalog = match body.get("catalogId") {
        None => V08_STANDARD_CATALOG.to_string(),
        Some(Value::String(catalog)) if utf16_len(catalog) <= MAX_CATALOG_ID_CHARS => catalog.clone(),
        Some(_) => return Err(Invalid),
    };
    with_surface(state, id, |surface| {
        surface.supported = catalog == V08_STANDARD_CATALOG;
        surface.catalog_id = catalog;
        surface.root = Some(root);
        Ok(())
    })
}

#[cfg(test)]
mod tests;
