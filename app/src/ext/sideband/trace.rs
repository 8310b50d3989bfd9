//! The artifact path of sideband decoding (`reference.md` §3.2) and the a2a-wrapper trace type
//! mapping (§3.4, §1.6). Pure: walks the JSON tree, copies values, renders nothing.

use serde_json::{Map, Value};

use super::parts::normalize_parts;
use super::refs::{first_present, js_string};
use super::{DEFAULT_TRACE_TYPE, DecodeContext, Level, MAX_WALK_DEPTH, SidebandEvent, SidebandReferences};
use crate::ext::uri::TRACE_URI;

/// `metadata.adapter` of events decoded under `urn:x-a2a:trace:v1` (§3.2).
pub const TRACE_ADAPTER: &str = "a2a-wrapper";
/// `metadata.adapter` of artifact events under any other URI (§3.2).
pub const GENERIC_ADAPTER: &str = "generic-extension-artifact";
/// Default `data.state` of a `trace.lifecycle` artifact (§3.4).
pub const DEFAULT_LIFECYCLE_STATE: &str = "event";
/// Default `data.status` of a `trace.mcp` artifact (§3.4).
pub const DEFAULT_MCP_STATUS: &str = "completed";
/// `trace.mcp` statuses that map to `tool.declined` (§3.4).
pub const DECLINED_STATUSES: [&str; 3] = ["declined", "rejected", "blocked"];
/// `trace.mcp` statuses that map to `tool.failed` (§3.4).
pub const FAILED_STATUSES: [&str; 2] = ["error", "failed"];

/// The `type`, `title` and `level` an artifact maps to (§3.4).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceMapping {
    /// Event type.
    pub event_type: String,
    /// Event title.
    pub title: String,
    /// Event level.
    pub level: Level,
}

impl TraceMapping {
    /// A mapping from literals.
    fn new(event_type: impl Into<String>, title: impl Into<String>, level: Level) -> TraceMapping {
        TraceMapping {
            event_type: event_type.into(),
            title: title.into(),
            level,
        }
    }

    /// The pass-through mapping: type = `trace_type`, generic title, info.
    pub fn generic(trace_type: &str) -> TraceMapping {
        TraceMapping::new(trace_type, generic_title(trace_type), Level::Info)
    }
}

/// The §3.4 table for `urn:x-a2a:trace:v1` artifacts; `data` is the first data object of the
/// artifact (`{}` when none).
pub fn map_trace_type(trace_type: &str, data: &Map<String, Value>) -> TraceMapping {
    match trace_type {
        "trace.lifecycle" => match label(data, "state", DEFAULT_LIFECYCLE_STATE).as_str() {
            "started" => TraceMapping::new("agent.started", "Agent execution started", Level::Info),
            "finished" => TraceMapping::new("agent.finished", "Agent execution completed", Level::Info),
            "error" => TraceMapping::new("agent.error", "Agent execution failed", Level::Error),
            state => TraceMapping::new(format!("agent.{state}"), format!("Agent {state}"), Level::Info),
        },
        "trace.mcp.start" => TraceMapping::new("tool.started", "Tool invocation started", Level::Info),
        "trace.mcp" => {
            let status = label(data, "status", DEFAULT_MCP_STATUS);
            if DECLINED_STATUSES.contains(&status.as_str()) {
                TraceMapping::new("tool.declined", "Tool invocation declined", Level::Warning)
            } else if FAILED_STATUSES.contains(&status.as_str()) {
                TraceMapping::new("tool.failed", "Tool invocation failed", Level::Error)
            } else {
                TraceMapping::new("tool.completed", "Tool invocation completed", Level::Info)
            }
        }
        "trace.thinking" | "trace.thought" => {
            TraceMapping::new("agent.thinking", "Agent reasoning summary", Level::Debug)
        }
        "trace.decision" => TraceMapping::new("agent.decision", "Agent decision", Level::Info),
        "trace.delegation" => TraceMapping::new("agent.delegation", "Sub-agent delegation", Level::Info),
        other => TraceMapping::generic(other),
    }
}

/// A generated title (§3.2, §3.3, §3.4): every run of `.`, `_`, `-` becomes one space.
pub fn generic_title(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    let mut in_run = false;
    for ch in value.chars() {
        let separator = matches!(ch, '.' | '_' | '-');
        if !separator {
            out.push(ch);
        } else if !in_run {
            out.push(' ');
        }
        in_run = separator;
    }
    out
}

/// All artifact-path events of `event` (§3.2), artifacts in walk order, one event per matching URI.
pub(super) fn artifact_events(
    event: &Value,
    uris: &[&str],
    envelope: &SidebandReferences,
    ctx: &DecodeContext,
) -> Vec<SidebandEvent> {
    let mut found = Vec::new();
    collect_artifacts(event, &SidebandReferences::default(), 0, &mut found);
    let mut out = Vec::new();
    for (artifact, own_refs) in found {
        let refs = envelope.merged_with(&own_refs);
        let listed = artifact
            .get("extensions")
            .and_then(Value::as_array)
            .into_iter()
            .flatten();
        for uri in listed.filter_map(Value::as_str).filter(|uri| uris.contains(uri)) {
            out.push(artifact_event(artifact, uri, &refs, ctx));
        }
    }
    out
}

/// The §3.2 walk: any object with a string `artifactId` and an array `parts` is an artifact (not
/// walked further); references accumulate over every ancestor object (§3.1 rules).
fn collect_artifacts<'a>(
    value: &'a Value,
    inherited: &SidebandReferences,
    depth: usize,
    out: &mut Vec<(&'a Map<String, Value>, SidebandReferences)>,
) {
    if depth > MAX_WALK_DEPTH {
        return;
    }
    match value {
        Value::Array(items) => items
            .iter()
            .for_each(|item| collect_artifacts(item, inherited, depth + 1, out)),
        Value::Object(record) => {
            let mut refs = inherited.overlay(record);
            if let (Some(Value::String(id)), Some(Value::Array(_))) =
                (record.get("artifactId"), record.get("parts"))
            {
                refs.artifact_id = Some(id.clone());
                out.push((record, refs));
                return;
            }
            for child in record.values() {
                collect_artifacts(child, &refs, depth + 1, out);
            }
        }
        _ => {}
    }
}

/// One artifact event under `uri` (§3.2).
fn artifact_event(
    artifact: &Map<String, Value>,
    uri: &str,
    refs: &SidebandReferences,
    ctx: &DecodeContext,
) -> SidebandEvent {
    let id = artifact
        .get("artifactId")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let mut metadata = artifact
        .get("metadata")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let raw_parts = artifact
        .get("parts")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let empty = Map::new();
    let data = first_data(raw_parts).unwrap_or(&empty);
    let trace_type = first_present(&metadata, &["traceType"])
        .or_else(|| first_present(artifact, &["name"]))
        .map_or_else(|| DEFAULT_TRACE_TYPE.to_owned(), js_string);
    let is_trace = uri == TRACE_URI;
    let mapping = if is_trace {
        map_trace_type(&trace_type, data)
    } else {
        TraceMapping::generic(&trace_type)
    };
    let timestamp = metadata
        .get("timestamp")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let mut references = refs.clone();
    references.artifact_id = Some(id.clone());
    if let Some(trace_id) = ["trace_id", "traceId"]
        .iter()
        .find_map(|key| data.get(*key).and_then(Value::as_str))
    {
        references.trace_id = Some(trace_id.to_owned());
    }
    let adapter = if is_trace { TRACE_ADAPTER } else { GENERIC_ADAPTER };
    metadata.insert("adapter".to_owned(), Value::String(adapter.to_owned()));
    metadata.insert("traceType".to_owned(), Value::String(trace_type));
    SidebandEvent {
        parts: normalize_parts(raw_parts, &id),
        id,
        session_id: ctx.session_id.clone(),
        request_id: ctx.request_id.clone(),
        timestamp: timestamp.unwrap_or_else(|| ctx.now.clone()),
        extension_uri: uri.to_owned(),
        event_type: mapping.event_type,
        title: mapping.title,
        level: mapping.level,
        metadata: Some(metadata),
        references: references.non_empty(),
    }
}

/// The `data` of the first part whose `data` is an object (§3.2 "first data").
fn first_data(parts: &[Value]) -> Option<&Map<String, Value>> {
    parts
        .iter()
        .find_map(|part| part.get("data").and_then(Value::as_object))
}

/// JS `String(data[key] ?? default).toLowerCase()`.
fn label(data: &Map<String, Value>, key: &str, default: &str) -> String {
    first_present(data, &[key])
        .map_or_else(|| default.to_owned(), js_string)
        .to_lowercase()
}

#[cfg(test)]
mod tests;
