//! A2UI surface state (§1.4 "Folding"): the per-task fold of envelopes into at most eight
//! surfaces, each with a component map and a data model, plus the shared, limit-checked update
//! operations both wire versions use. Pure data; rendering lives in `a2ui/render.rs`.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::pointer::write;
use super::text::{is_id, json_len};
use super::{
    A2UI_BASIC_CATALOG, A2uiVersion, MAX_COMPONENTS, MAX_ENVELOPES, MAX_ID_CHARS, MAX_MODEL_JSON_CHARS,
    MAX_SURFACES, UNSUPPORTED_CATALOG_NOTICE, V08_STANDARD_CATALOG,
};

/// One component in the internal (v0.9-shaped) model: v0.8 components are normalised into it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Component {
    /// Component id (1..128 chars).
    pub id: String,
    /// Component type name (`Text`, `Row`, …; ≤ 64 chars).
    pub component: String,
    /// The remaining properties, flat, with v0.9 names and value forms.
    pub props: Map<String, Value>,
}

/// One A2UI surface.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Surface {
    /// Surface id (1..128 chars).
    pub id: String,
    /// The wire version that created the surface; messages of the other version are invalid.
    pub version: A2uiVersion,
    /// The chosen catalog (v0.8: the standard catalog unless `beginRendering` names another).
    pub catalog_id: String,
    /// Whether the catalog is the one this console renders (§1.4).
    pub supported: bool,
    /// Root component id: `root` in v0.9; in v0.8 set by `beginRendering` (nothing renders before).
    pub root: Option<String>,
    /// Components by id (≤ 200).
    pub components: BTreeMap<String, Component>,
    /// The agent's data model: always an object, ≤ 64 KiB of JSON.
    pub model: Value,
}

/// The folded A2UI state of one task.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct A2uiState {
    /// Surfaces in creation order (≤ 8).
    pub surfaces: Vec<Surface>,
    /// Invalid envelopes seen (shown with [`super::rejected_notice`]).
    pub rejected: usize,
    /// Envelopes processed so far (valid or not), up to [`MAX_ENVELOPES`].
    pub envelopes: usize,
}

/// An envelope broke a rule; it is counted and skipped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Invalid;

/// The body's `surfaceId`: a string of 1..128 chars (§1.4), else [`Invalid`].
pub(crate) fn surface_id(body: &Map<String, Value>) -> Result<&str, Invalid> {
    match body.get("surfaceId") {
        Some(Value::String(id)) if is_id(id, MAX_ID_CHARS) => Ok(id),
        _ => Err(Invalid),
    }
}

impl Surface {
    /// An empty surface.
    pub(crate) fn new(id: &str, version: A2uiVersion, catalog_id: &str) -> Self {
        let supported = match version {
            A2uiVersion::V09 => catalog_id == A2UI_BASIC_CATALOG,
            A2uiVersion::V08 => catalog_id == V08_STANDARD_CATALOG,
        };
        let root = (version == A2uiVersion::V09).then(|| "root".to_string());
        Surface {
            id: id.to_string(),
            version,
            catalog_id: catalog_id.to_string(),
            supported,
            root,
            components: BTreeMap::new(),
            model: Value::Object(Map::new()),
        }
    }

    /// The unsupported-catalog notice, when the surface renders nothing for that reason (§1.4).
    pub fn notice(&self) -> Option<&'static str> {
        (!self.supported).then_some(UNSUPPORTED_CATALOG_NOTICE)
    }

    /// The component with `id`.
    pub fn component(&self, id: &str) -> Option<&Component> {
        self.components.get(id)
    }

    /// Merges `incoming` by id; more than 200 components afterwards → [`Invalid`], nothing changes.
    pub(crate) fn merge_components(&mut self, incoming: Vec<Component>) -> Result<(), Invalid> {
        let added: BTreeSet<&str> = incoming
            .iter()
            .map(|c| c.id.as_str())
            .filter(|id| !self.components.contains_key(*id))
            .collect();
        if self.components.len() + added.len() > MAX_COMPONENTS {
            return Err(Invalid);
        }
        for component in incoming {
            self.components.insert(component.id.clone(), component);
        }
        Ok(())
    }

    /// Sets (`Some`) or deletes (`None`) the model value at parsed `segments` (§1.4).
    ///
    /// Root: `None` resets to `{}`; a non-object is [`Invalid`]; an object over 64 KiB resets the
    /// model to `{}` and is [`Invalid`]. Non-root: a conflict or an over-limit result is
    /// [`Invalid`] and nothing changes.
    pub(crate) fn update_model(&mut self, segments: &[String], value: Option<Value>) -> Result<(), Invalid> {
        if segments.is_empty() {
            return self.replace_model(value);
        }
        let mut next = self.model.clone();
        write(&mut next, segments, value).map_err(|_| Invalid)?;
        if json_len(&next) > MAX_MODEL_JSON_CHARS {
            return Err(Invalid);
        }
        self.model = next;
        Ok(())
    }

    /// The root case of [`Surface::update_model`].
    fn replace_model(&mut self, value: Option<Value>) -> Result<(), Invalid> {
        match value {
            None => self.model = Value::Object(Map::new()),
            Some(object @ Value::Object(_)) if json_len(&object) > MAX_MODEL_JSON_CHARS => {
                self.model = Value::Object(Map::new());
                return Err(Invalid);
            }
            Some(object @ Value::Object(_)) => self.model = object,
            Some(_) => return Err(Invalid),
        }
        Ok(())
    }
}

impl A2uiState {
    /// Folds one A2UI part (oldest first, call for every part of the task's agent messages).
    ///
    /// v0.9 data must be an array of envelopes; v0.8 data is one message or an array of them.
    /// Each element counts toward the 2,000 envelopes; after that, processing stops silently.
    pub fn apply_part(&mut self, version: A2uiVersion, data: &Value) {
        let envelopes: Vec<&Value> = match (version, data) {
            (_, Value::Array(items)) => items.iter().collect(),
            (A2uiVersion::V08, object @ Value::Object(_)) => vec![object],
            _ => return,
        };
        for envelope in envelopes {
            if self.envelopes >= MAX_ENVELOPES {
                return;
            }
            self.envelopes += 1;
            let outcome = match version {
                A2uiVersion::V09 => super::v09::apply(self, envelope),
                A2uiVersion::V08 => super::v08::apply(self, envelope),
            };
            if outcome.is_err() {
                self.rejected += 1;
            }
        }
    }

    /// The surface with `id`.
    pub fn surface(&self, id: &str) -> Option<&Surface> {
        self.surfaces.iter().find(|s| s.id == id)
    }

    /// The existing surface `id` of `version` (an update to a missing surface or to one of the
    /// other version is [`Invalid`]).
    pub(crate) fn surface_mut(&mut self, id: &str, version: A2uiVersion) -> Result<&mut Surface, Invalid> {
        self.surfaces
            .iter_mut()
            .find(|s| s.id == id && s.version == version)
            .ok_or(Invalid)
    }

    /// Whether a surface `id` may be created: it exists (replaced in place) or fewer than 8 exist.
    pub(crate) fn has_room_for(&self, id: &str) -> bool {
        self.surface(id).is_some() || self.surfaces.len() < MAX_SURFACES
    }

    /// Inserts `surface`, replacing one with the same id in place (§1.4 re-creation).
    pub(crate) fn put_surface(&mut self, surface: Surface) -> Result<(), Invalid> {
        if let Some(slot) = self.surfaces.iter_mut().find(|s| s.id == surface.id) {
            *slot = surface;
        } else if self.surfaces.len() < MAX_SURFACES {
            self.surfaces.push(surface);
        } else {
            return Err(Invalid);
        }
        Ok(())
    }

    /// Removes surface `id` if present (deleting an unknown id is not invalid, §1.4).
    pub(crate) fn delete_surface(&mut self, id: &str) {
        self.surfaces.retain(|s| s.id != id);
    }
}

#[cfg(test)]
mod tests;
