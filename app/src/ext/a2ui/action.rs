//! A2UI values and actions (§1.4 "Values", "Action"): resolution of literals and `{path}` bindings
//! against the agent's model under the viewer's edit overlay, button action states, the outgoing
//! action parts and the client-capabilities metadata. Builds JSON only; sends nothing.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::model::{Component, Surface};
use super::pointer::{get, parse_pointer, write};
use super::text::{is_id, json_len, utf16_len};
use super::{A2UI_BASIC_CATALOG, A2uiVersion, MAX_ACTION_CONTEXT_CHARS, MAX_ID_CHARS, V08_STANDARD_CATALOG};
use crate::ext::uri::{A2UI_LEGACY_MEDIA_TYPE, A2UI_MEDIA_TYPE};

/// The message-metadata key of the client capabilities (§1.4, `a2a-and-a2ui.md` §B.2).
pub const A2UI_CLIENT_CAPABILITIES_KEY: &str = "a2uiClientCapabilities";
/// Disabled reason of a `functionCall` action, or of a button without an `event` (§1.4).
pub const ACTION_NOT_SUPPORTED_REASON: &str = "This action is not supported";
/// Disabled reason of a malformed event: bad name, non-object context, forbidden or long key.
pub const ACTION_INVALID_REASON: &str = "This action is not valid";
/// Disabled reason once the task is finished (§1.4 "enabled only while the task is not finished").
pub const TASK_FINISHED_REASON: &str = "The task is finished";
/// Disabled reason of a resolved context over 16 KiB (§1.4).
pub const ACTION_CONTEXT_TOO_LARGE_REASON: &str = "This action carries too much data";

/// Whether a button's action can be sent now, and what it would send.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "state", rename_all_fields = "camelCase")]
pub enum ActionState {
    /// Clicking sends `name` with the resolved `context` (see [`action_message_parts`]).
    Enabled {
        /// The event name (1..128 chars).
        name: String,
        /// The resolved context; unresolvable values are omitted.
        context: Map<String, Value>,
    },
    /// The button is inert; `reason` says why.
    Disabled {
        /// One of the `*_REASON` texts.
        reason: String,
    },
}

/// Resolves a value (§1.4): a literal string/number/boolean as is, or `{"path": "/abs"}` (exactly
/// one key, an absolute valid pointer) looked up in `model` with `edits` (pointer → value) laid
/// over it. Relative paths, function calls, arrays, objects and `null` resolve to nothing.
pub fn resolve(value: &Value, model: &Value, edits: &BTreeMap<String, Value>) -> Option<Value> {
    match value {
        Value::String(_) | Value::Number(_) | Value::Bool(_) => Some(value.clone()),
        Value::Object(_) => lookup(&parse_pointer(binding(value)?)?, model, edits),
        _ => None,
    }
}

/// The pointer of a binding `{"path": "/abs"}` (exactly one key, absolute, valid), if `value` is one.
pub(crate) fn binding(value: &Value) -> Option<&str> {
    let object = value.as_object().filter(|o| o.len() == 1)?;
    let path = object.get("path")?.as_str()?;
    (path.starts_with('/') && parse_pointer(path).is_some()).then_some(path)
}

/// The value at `segments` of `model` overlaid with `edits`: the deepest edit at or above the
/// pointer wins, edits below it are written into the result.
fn lookup(segments: &[String], model: &Value, edits: &BTreeMap<String, Value>) -> Option<Value> {
    let parsed: Vec<(Vec<String>, &Value)> = edits
        .iter()
        .filter_map(|(k, v)| Some((parse_pointer(k)?, v)))
        .collect();
    let base = parsed
        .iter()
        .filter(|(s, _)| segments.starts_with(s))
        .max_by_key(|(s, _)| s.len());
    let mut value = match base {
        Some((s, edit)) => get(edit, &segments[s.len()..]).cloned(),
        None => get(model, segments).cloned(),
    };
    let mut below: Vec<&(Vec<String>, &Value)> = parsed
        .iter()
        .filter(|(s, _)| s.len() > segments.len() && s.starts_with(segments))
        .collect();
    below.sort_by_key(|(s, _)| s.len());
    for (s, edit) in below {
        let target = value.get_or_insert_with(|| Value::Object(Map::new()));
        // An edit that cannot be placed (under a scalar) is simply not visible.
        let _ = write(target, &s[segments.len()..], Some((*edit).clone()));
    }
    value
}

/// Records the viewer's edit of `pointer` (absolute, valid), dropping edits at or below it so the
/// newest write wins. Returns `false` (and changes nothing) for an invalid pointer. A single-choice
/// pick is stored as `[value]` by the caller (§1.4).
pub fn set_edit(edits: &mut BTreeMap<String, Value>, pointer: &str, value: Value) -> bool {
    let Some(segments) = parse_pointer(pointer).filter(|_| pointer.starts_with('/')) else {
        return false;
    };
    edits.retain(|k, _| parse_pointer(k).is_none_or(|s| !s.starts_with(&segments)));
    edits.insert(pointer.to_string(), value);
    true
}

/// The state of `component`'s action (§1.4 "Action"): `action` must be an object without
/// `functionCall` and with an `event` object; `event.name` 1..128 chars; `event.context` absent or
/// an object without `__proto__` or over-128-char keys; the task not finished; the resolved
/// context (unresolvable values omitted) ≤ 16,384 chars of JSON.
pub fn action_state(
    component: &Component,
    surface: &Surface,
    edits: &BTreeMap<String, Value>,
    task_finished: bool,
) -> ActionState {
    let disabled = |reason: &str| ActionState::Disabled {
        reason: reason.to_string(),
    };
    let Some(action) = component.props.get("action").and_then(Value::as_object) else {
        return disabled(ACTION_NOT_SUPPORTED_REASON);
    };
    let event = match action.get("event") {
        Some(Value::Object(event)) if !action.contains_key("functionCall") => event,
        _ => return disabled(ACTION_NOT_SUPPORTED_REASON),
    };
    let Some((name, context)) = valid_event(event) else {
        return disabled(ACTION_INVALID_REASON);
    };
    if task_finished {
        return disabled(TASK_FINISHED_REASON);
    }
    let resolved: Map<String, Value> = context
        .iter()
        .filter_map(|(key, value)| Some((key.clone(), resolve(value, &surface.model, edits)?)))
        .collect();
    if json_len(&Value::Object(resolved.clone())) > MAX_ACTION_CONTEXT_CHARS {
        return disabled(ACTION_CONTEXT_TOO_LARGE_REASON);
    }
    ActionState::Enabled {
        name: name.to_string(),
        context: resolved,
    }
}

/// The event's name and (possibly empty) context, if both are valid.
fn valid_event(event: &Map<String, Value>) -> Option<(&str, Map<String, Value>)> {
    let name = event.get("name")?.as_str().filter(|n| is_id(n, MAX_ID_CHARS))?;
    let context = match event.get("context") {
        None => Map::new(),
        Some(Value::Object(context)) => context.clone(),
        Some(_) => return None,
    };
    let bad_key = |k: &String| k == "__proto__" || utf16_len(k) > MAX_ID_CHARS;
    (!context.keys().any(bad_key)).then_some((name, context))
}

/// The parts of the message a click sends on the same task.
///
/// v0.9 follows §1.4 exactly: `data` is the single action **object**
/// `{"version":"v0.9","action":{…}}` with media type `application/a2ui+json` (note:
/// `a2a-and-a2ui.md` §B.5 describes v0.9 data as a list; the original console sends the object).
/// v0.8: `{"userAction":{…}}` with media type `application/json+a2ui`. `timestamp` is the ISO
/// time of the click, passed in.
pub fn action_message_parts(
    version: A2uiVersion,
    surface_id: &str,
    source_component_id: &str,
    name: &str,
    context: &Map<String, Value>,
    timestamp: &str,
) -> Value {
    let action = json!({
        "name": name,
        "surfaceId": surface_id,
        "sourceComponentId": source_component_id,
        "timestamp": timestamp,
        "context": context,
    });
    match version {
        A2uiVersion::V09 => json!([{
            "data": { "version": "v0.9", "action": action },
            "mediaType": A2UI_MEDIA_TYPE,
        }]),
        A2uiVersion::V08 => json!([{
            "data": { "userAction": action },
            "mediaType": A2UI_LEGACY_MEDIA_TYPE,
        }]),
    }
}

/// The value of `metadata.a2uiClientCapabilities` ([`A2UI_CLIENT_CAPABILITIES_KEY`]) for outgoing
/// messages to an advertising agent: v0.9 `{"v0.9":{"supportedCatalogIds":[basic]}}` (§1.4);
/// v0.8 `{"supportedCatalogIds":[standard]}` (`a2a-and-a2ui.md` §B.2).
pub fn client_capabilities_metadata(version: A2uiVersion) -> Value {
    match version {
        A2uiVersion::V09 => json!({ "v0.9": { "supportedCatalogIds": [A2UI_BASIC_CATALOG] } }),
        A2uiVersion::V08 => json!({ "supportedCatalogIds": [V08_STANDARD_CATALOG] }),
    }
}

#[cfg(test)]
mod tests;
