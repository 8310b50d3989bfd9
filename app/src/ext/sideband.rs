//! Sideband event decoding (`reference.md` §1.5, §1.6, §3; seed "Sideband events"): turns one raw A2A
//! stream response plus the negotiated URI list into normalised sideband events for the Trace panel
//! and the `sideband` SSE event. Pure and deterministic: "now" and id prefixes come from the caller;
//! decoded content is plain data, never rendered as HTML and never fetched.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

mod meta;
mod parts;
mod refs;
mod trace;

pub use trace::{TraceMapping, generic_title, map_trace_type};

/// Deepest container nesting the walks of §3.2 and §3.3 visit (root = 0). The original guards
/// against cycles; a `serde_json` tree has none, so this bound only keeps hostile input cheap.
pub const MAX_WALK_DEPTH: usize = 64;
/// Default event `type` of a metadata item without one (§3.3).
pub const DEFAULT_EVENT_TYPE: &str = "event";
/// Default `traceType` of an artifact with neither `metadata.traceType` nor `name` (§3.2).
pub const DEFAULT_TRACE_TYPE: &str = "extension.artifact";

/// Severity of a sideband event (§3.3, §3.4), ordered debug < info < warning < error.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Reasoning summaries and verbose detail.
    Debug,
    /// The default.
    #[default]
    Info,
    /// Declined tools, `warn`/`warning` items.
    Warning,
    /// Failures.
    Error,
}

impl Level {
    /// The wire spelling: `debug`, `info`, `warning`, `error`.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Debug => "debug",
            Level::Info => "info",
            Level::Warning => "warning",
            Level::Error => "error",
        }
    }

    /// §3.3 level mapping of an already stringified, lower-cased value: `warn`/`warning` → warning,
    /// `error` → error, `debug`/`trace` → debug, anything else → info.
    pub fn from_label(label: &str) -> Level {
        match label {
            "warn" | "warning" => Level::Warning,
            "error" => Level::Error,
            "debug" | "trace" => Level::Debug,
            _ => Level::Info,
        }
    }
}

/// What a normalised part carries (§1.0 "Media type matching").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PartKind {
    /// `value` is a string.
    Text,
    /// `value` is any JSON value.
    Data,
    /// `value` is a URL string (never fetched).
    Url,
    /// `value` is base64 bytes.
    Raw,
    /// `value` is the whole original part.
    Unknown,
}

/// One normalised part of a sideband event (§3.5 `{ id, kind, value, mediaType, filename?, metadata? }`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SidebandPart {
    /// `<eventId>:<index>` (our choice; the original used the part's own `id` or `part-<index>`).
    pub id: String,
    /// The part kind.
    pub kind: PartKind,
    /// The content: text, JSON data, URL, base64, or the whole unknown part.
    pub value: Value,
    /// Lower-cased media type with the §1.0 defaults.
    pub media_type: String,
    /// File name, when the part has a non-empty one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filename: Option<String>,
    /// The part's own metadata object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
}

/// Task references of an event (§3.1); each present value is a non-blank, untrimmed string.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SidebandReferences {
    /// A2A context id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_id: Option<String>,
    /// A2A task id (a level's `id` when it has no `taskId`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    /// A2A message id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
    /// A2A artifact id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifact_id: Option<String>,
    /// Trace id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace_id: Option<String>,
    /// Span id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub span_id: Option<String>,
}

/// One decoded sideband event (§3.5 event object).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SidebandEvent {
    /// Artifact id, item `id`/`eventId`, or a generated `<id_prefix>-<n>`.
    pub id: String,
    /// The stream session id supplied by the caller.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The stream request id supplied by the caller.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
    /// The event's own timestamp, else the caller's "now".
    pub timestamp: String,
    /// The negotiated URI the event arrived under.
    pub extension_uri: String,
    /// Event type (`agent.started`, `tool.completed`, an item's `type`, …).
    #[serde(rename = "type")]
    pub event_type: String,
    /// Human title.
    pub title: String,
    /// Severity.
    pub level: Level,
    /// Normalised parts.
    pub parts: Vec<SidebandPart>,
    /// Item or artifact metadata (artifacts add `adapter` and `traceType`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
    /// Task references; `None` when no reference is known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub references: Option<SidebandReferences>,
}

/// What the caller supplies to [`decode`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DecodeContext {
    /// ISO timestamp used wherever §3 says "now".
    pub now: String,
    /// Prefix of generated event ids.
    pub id_prefix: String,
    /// Copied into every event's `sessionId`.
    pub session_id: Option<String>,
    /// Copied into every event's `requestId`.
    pub request_id: Option<String>,
}

/// Decodes one A2A stream response (`{task}`, `{message}`, `{statusUpdate}`, `{artifactUpdate}`, the
/// older `taskStatusUpdate`/`taskArtifactUpdate`, or 0.3 `kind`-tagged objects) into sideband events
/// under the `negotiated` URIs (§3). Empty when nothing is negotiated. Order: artifact-path events,
/// then metadata-path events; duplicates (same URI, id and parts) dropped, first kept (§3.5).
///
/// Where the original draws a random UUID for an item without `id`/`eventId`, this returns
/// `"<id_prefix>-<n>"`, `n` counting generated ids from 0 within this call: the browser decodes the
/// same stored event again on reload or reconnect and must get the same ids. Generated ids are
/// distinct within a call, so such events still never dedupe against each other; callers give each
/// stored event its own prefix.
pub fn decode(event: &Value, negotiated: &[String], ctx: &DecodeContext) -> Vec<SidebandEvent> {
    let mut uris: Vec<&str> = Vec::new();
    for uri in negotiated {
        if !uris.contains(&uri.as_str()) {
            uris.push(uri);
        }
    }
    if uris.is_empty() {
        return Vec::new();
    }
    let envelope = refs::envelope_references(event);
    let mut events = trace::artifact_events(event, &uris, &envelope, ctx);
    events.extend(meta::metadata_events(event, &uris, &envelope, ctx));
    dedupe(events)
}

/// The §3.5 de-duplication key: `<extensionUri>:<id>:<JSON of parts>`.
pub fn dedupe_key(event: &SidebandEvent) -> String {
    let parts = serde_json::to_string(&event.parts).unwrap_or_default();
    format!("{}:{}:{}", event.extension_uri, event.id, parts)
}

/// Drops events whose [`dedupe_key`] was already seen; the first occurrence wins (§3.5).
pub fn dedupe(events: Vec<SidebandEvent>) -> Vec<SidebandEvent> {
    let mut seen = std::collections::HashSet::new();
    events
        .into_iter()
        .filter(|event| seen.insert(dedupe_key(event)))
        .collect()
}

/// Groups events by `references.taskId` in first-seen order, events in input order within a group;
/// events without a task id form the `None` group (the Trace panel groups per task).
pub fn group_by_task(
    events: impl IntoIterator<Item = SidebandEvent>,
) -> Vec<(Option<String>, Vec<SidebandEvent>)> {
    let mut groups: Vec<(Option<String>, Vec<SidebandEvent>)> = Vec::new();
    for event in events {
        let task = event.references.as_ref().and_then(|refs| refs.task_id.clone());
        match groups.iter_mut().find(|(key, _)| *key == task) {
            Some((_, group)) => group.push(event),
            None => groups.push((task, vec![event])),
        }
    }
    groups
}

#[cfg(test)]
mod tests;
