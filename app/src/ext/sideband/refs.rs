//! Envelope references of sideband events (`reference.md` §3.1) and the small string helpers the
//! decoder shares (non-blank picks, JS `String()` conversion). Pure; reads JSON only.

use serde_json::{Map, Value};

use super::{MAX_WALK_DEPTH, SidebandReferences};
use crate::ext::canonical::{js_number_string, js_trim, number_f64};

/// Keys §3.1 descends into, in this order (deeper values override).
pub const ENVELOPE_KEYS: [&str; 7] = [
    "message",
    "task",
    "statusUpdate",
    "taskStatusUpdate",
    "artifactUpdate",
    "taskArtifactUpdate",
    "artifact",
];

impl SidebandReferences {
    /// Whether no reference is known.
    pub fn is_empty(&self) -> bool {
        *self == SidebandReferences::default()
    }

    /// One §3.1 level: the object's non-blank values override `self`; `taskId` falls back to the
    /// level's `id` before the inherited value.
    pub(super) fn overlay(&self, level: &Map<String, Value>) -> SidebandReferences {
        let pick = |keys: &[&str], inherited: &Option<String>| {
            first_non_blank(level, keys)
                .map(str::to_owned)
                .or_else(|| inherited.clone())
        };
        SidebandReferences {
            context_id: pick(&["contextId"], &self.context_id),
            task_id: pick(&["taskId", "id"], &self.task_id),
            message_id: pick(&["messageId"], &self.message_id),
            artifact_id: pick(&["artifactId"], &self.artifact_id),
            trace_id: pick(&["traceId"], &self.trace_id),
            span_id: pick(&["spanId"], &self.span_id),
        }
    }

    /// `self` with every value `over` has replaced (§3.2 "envelope refs + artifact refs").
    pub(super) fn merged_with(&self, over: &SidebandReferences) -> SidebandReferences {
        let pick = |own: &Option<String>, new: &Option<String>| new.clone().or_else(|| own.clone());
        SidebandReferences {
            context_id: pick(&self.context_id, &over.context_id),
            task_id: pick(&self.task_id, &over.task_id),
            message_id: pick(&self.message_id, &over.message_id),
            artifact_id: pick(&self.artifact_id, &over.artifact_id),
            trace_id: pick(&self.trace_id, &over.trace_id),
            span_id: pick(&self.span_id, &over.span_id),
        }
    }

    /// `None` when empty, for the optional `references` field.
    pub(super) fn non_empty(self) -> Option<SidebandReferences> {
        (!self.is_empty()).then_some(self)
    }
}

/// §3.1 envelope references: the top-level object, then the [`ENVELOPE_KEYS`] children
/// recursively, each level overriding the one above.
pub(super) fn envelope_references(value: &Value) -> SidebandReferences {
    descend(value, &SidebandReferences::default(), 0)
}

/// One level of [`envelope_references`], bounded by [`MAX_WALK_DEPTH`].
fn descend(value: &Value, inherited: &SidebandReferences, depth: usize) -> SidebandReferences {
    let Some(level) = value.as_object() else {
        return inherited.clone();
    };
    let mut next = inherited.overlay(level);
    if depth >= MAX_WALK_DEPTH {
        return next;
    }
    for key in ENVELOPE_KEYS {
        if let Some(child @ Value::Object(_)) = level.get(key) {
            next = descend(child, &next, depth + 1);
        }
    }
    next
}

/// The first of `keys` whose value is a string that is non-blank after trimming (returned
/// untrimmed).
pub(super) fn first_non_blank<'a>(record: &'a Map<String, Value>, keys: &[&str]) -> Option<&'a str> {
    keys.iter()
        .filter_map(|key| record.get(*key).and_then(Value::as_str))
        .find(|text| !js_trim(text).is_empty())
}

/// The first of `keys` whose value is present and not `null` (JS `a ?? b`).
pub(super) fn first_present<'a>(record: &'a Map<String, Value>, keys: &[&str]) -> Option<&'a Value> {
    keys.iter()
        .filter_map(|key| record.get(*key))
        .find(|value| !value.is_null())
}

/// JS `String(value)`: strings as they are, numbers as JS prints them, arrays joined with `,`
/// (`null` items empty), objects `[object Object]`.
pub(super) fn js_string(value: &Value) -> String {
    js_string_at(value, 0)
}

/// [`js_string`] with the array recursion bounded by [`MAX_WALK_DEPTH`].
fn js_string_at(value: &Value, depth: usize) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(flag) => flag.to_string(),
        Value::Number(number) => js_number_string(number_f64(number)),
        Value::String(text) => text.clone(),
        Value::Object(_) => "[object Object]".to_owned(),
        Value::Array(_) if depth >= MAX_WALK_DEPTH => String::new(),
        Value::Array(items) => {
            let item = |value: &Value| match value {
                Value::Null => String::new(),
                other => js_string_at(other, depth + 1),
            };
            items.iter().map(item).collect::<Vec<_>>().join(",")
        }
    }
}

#[cfg(test)]
mod tests;
