//! The metadata path of sideband decoding (`reference.md` §3.3, §1.5): payloads under negotiated
//! URI keys (or the conventional `sidebandEvents`/`sideband` keys) in any `metadata` object become
//! events. Pure: "now" and id prefixes come from the caller; only negotiated keys are read.

use serde_json::{Map, Value};

use super::parts::event_parts;
use super::refs::{first_non_blank, first_present, js_string};
use super::trace::generic_title;
use super::{DEFAULT_EVENT_TYPE, DecodeContext, Level, MAX_WALK_DEPTH, SidebandEvent, SidebandReferences};

/// Conventional keys attributed to every negotiated URI, in candidate order (§3.3 rule 3).
pub const CONVENTIONAL_KEYS: [&str; 2] = ["sidebandEvents", "sideband"];
/// Suffixes of `<uri>/…` keys that carry events, matched case-insensitively (§3.3 rule 2).
pub const KEY_SUFFIXES: [&str; 2] = ["/events", "/sideband"];
/// Item keys giving the event type, first non-blank wins (§3.3).
pub const TYPE_KEYS: [&str; 4] = ["type", "kind", "event", "name"];
/// Item keys giving the event id (§3.3).
pub const ID_KEYS: [&str; 2] = ["id", "eventId"];
/// Item keys giving the timestamp (§3.3).
pub const TIME_KEYS: [&str; 2] = ["timestamp", "time"];
/// Item keys giving the title (§3.3).
pub const TITLE_KEYS: [&str; 3] = ["title", "label", "name"];
/// Item keys giving the level, first present one wins (§3.3).
pub const LEVEL_KEYS: [&str; 2] = ["level", "severity"];

/// All metadata-path events of `event` (§3.3), containers in pre-order, URIs in negotiated order.
pub(super) fn metadata_events(
    event: &Value,
    uris: &[&str],
    envelope: &SidebandReferences,
    ctx: &DecodeContext,
) -> Vec<SidebandEvent> {
    let mut containers = Vec::new();
    collect_metadata(event, 0, &mut containers);
    let mut ids = IdSource {
        prefix: &ctx.id_prefix,
        next: 0,
    };
    let mut out = Vec::new();
    for container in containers {
        for uri in uris {
            for payload in candidates(container, uri) {
                for item in payload_items(payload) {
                    out.push(item_event(item, uri, envelope, ctx, &mut ids));
                }
            }
        }
    }
    out
}

/// Deterministic stand-in for the original's random UUIDs: `<prefix>-<n>`, `n` from 0.
struct IdSource<'a> {
    prefix: &'a str,
    next: usize,
}

impl IdSource<'_> {
    /// The next generated id.
    fn next_id(&mut self) -> String {
        let id = format!("{}-{}", self.prefix, self.next);
        self.next += 1;
        id
    }
}

/// Every `metadata` object in the tree, pre-order; a `metadata` object itself is not walked.
fn collect_metadata<'a>(value: &'a Value, depth: usize, out: &mut Vec<&'a Map<String, Value>>) {
    if depth > MAX_WALK_DEPTH {
        return;
    }
    match value {
        Value::Array(items) => items
            .iter()
            .for_each(|item| collect_metadata(item, depth + 1, out)),
        Value::Object(record) => {
            if let Some(Value::Object(metadata)) = record.get("metadata") {
                out.push(metadata);
            }
            for (key, child) in record {
                if key != "metadata" {
                    collect_metadata(child, depth + 1, out);
                }
            }
        }
        _ => {}
    }
}

/// The payloads `container` holds for `uri`, in §3.3 order: the key equal to the URI; keys
/// `<uri>/…/events` or `<uri>/…/sideband`; then `sidebandEvents`, then `sideband`.
fn candidates<'a>(container: &'a Map<String, Value>, uri: &str) -> Vec<&'a Value> {
    let mut out: Vec<&Value> = container.get(uri).into_iter().collect();
    let prefix = format!("{uri}/");
    let suffixed = container
        .iter()
        .filter(|(key, _)| key.starts_with(&prefix) && has_event_suffix(key));
    out.extend(suffixed.map(|(_, payload)| payload));
    out.extend(CONVENTIONAL_KEYS.iter().filter_map(|key| container.get(*key)));
    out
}

/// Whether `key` ends with one of [`KEY_SUFFIXES`], ASCII case-insensitively (JS `/…$/i`).
fn has_event_suffix(key: &str) -> bool {
    let bytes = key.as_bytes();
    KEY_SUFFIXES.iter().any(|suffix| {
        let start = bytes.len().checked_sub(suffix.len());
        start
            .and_then(|start| bytes.get(start..))
            .is_some_and(|tail| tail.eq_ignore_ascii_case(suffix.as_bytes()))
    })
}

/// §3.3 payload → items: an array's elements; an object's `events` array; else the payload itself.
fn payload_items(payload: &Value) -> Vec<&Value> {
    match payload {
        Value::Array(items) => items.iter().collect(),
        Value::Object(record) => match record.get("events") {
            Some(Value::Array(events)) => events.iter().collect(),
            _ => vec![payload],
        },
        other => vec![other],
    }
}

/// §3.3 item → event.
fn item_event(
    item: &Value,
    uri: &str,
    envelope: &SidebandReferences,
    ctx: &DecodeContext,
    ids: &mut IdSource<'_>,
) -> SidebandEvent {
    let empty = Map::new();
    let record = item.as_object().unwrap_or(&empty);
    let pick = |keys: &[&str]| first_non_blank(record, keys).map(str::to_owned);
    let event_type = pick(&TYPE_KEYS).unwrap_or_else(|| DEFAULT_EVENT_TYPE.to_owned());
    let id = pick(&ID_KEYS).unwrap_or_else(|| ids.next_id());
    SidebandEvent {
        parts: event_parts(item, &id),
        id,
        session_id: ctx.session_id.clone(),
        request_id: ctx.request_id.clone(),
        timestamp: pick(&TIME_KEYS).unwrap_or_else(|| ctx.now.clone()),
        extension_uri: uri.to_owned(),
        title: pick(&TITLE_KEYS).unwrap_or_else(|| generic_title(&event_type)),
        event_type,
        level: item_level(record),
        metadata: record.get("metadata").and_then(Value::as_object).cloned(),
        references: envelope.overlay(record).non_empty(),
    }
}

/// §3.3 level: `level ?? severity`, as a JS string, lower-cased, mapped by [`Level::from_label`].
fn item_level(record: &Map<String, Value>) -> Level {
    first_present(record, &LEVEL_KEYS).map_or(Level::Info, |value| {
        Level::from_label(&js_string(value).to_lowercase())
    })
}

#[cfg(test)]
mod tests;
