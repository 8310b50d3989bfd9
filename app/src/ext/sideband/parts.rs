//! Part normalisation for sideband events (`reference.md` §1.0 "Media type matching", §3.3 item
//! parts, §3.5 part shape). Pure: copies values, never decodes bytes or follows URLs.

use serde_json::{Map, Value};

use super::refs::{first_non_blank, first_present, js_string};
use super::{PartKind, SidebandPart};

/// Media type of a part with no usable one that is neither text nor data (§1.0).
pub const OCTET_STREAM: &str = "application/octet-stream";
/// Default media type of a text part (§1.0, §3.3).
pub const TEXT_PLAIN: &str = "text/plain";
/// Default media type of a data part (§1.0, §3.3).
pub const APPLICATION_JSON: &str = "application/json";
/// Media type of an item's `markdown` text (§3.3).
pub const TEXT_MARKDOWN: &str = "text/markdown";
/// Item keys that give an item's text, first non-blank wins (§3.3).
pub const TEXT_KEYS: [&str; 4] = ["text", "message", "content", "description"];

/// The id of the `index`-th part of event `event_id`: `<eventId>:<index>`. Our choice: stable
/// across decodes and unique within an event (the original used the part's own `id`, else
/// `part-<index>`).
pub fn part_id(event_id: &str, index: usize) -> String {
    format!("{event_id}:{index}")
}

/// Normalises an array of raw parts (§1.0), ids from [`part_id`].
pub(super) fn normalize_parts(parts: &[Value], event_id: &str) -> Vec<SidebandPart> {
    let each = |(index, part)| normalize_part(part, part_id(event_id, index));
    parts.iter().enumerate().map(each).collect()
}

/// Normalises one raw part (§1.0): kind `text` if `text` is a string or `kind` is `"text"`,
/// `data` if a `data` key exists or `kind` is `"data"`, then `url`, `raw`, `file.uri`, `file.bytes`,
/// else `unknown` (value = the whole part). Non-objects are `unknown` parts.
pub(super) fn normalize_part(part: &Value, id: String) -> SidebandPart {
    let Some(obj) = part.as_object() else {
        return plain(id, PartKind::Unknown, part.clone(), OCTET_STREAM);
    };
    let tagged = |kind: &str| obj.get("kind").and_then(Value::as_str) == Some(kind);
    let string = |key: &str| {
        obj.get(key)
            .and_then(Value::as_str)
            .map(|s| Value::String(s.to_owned()))
    };
    let file = obj.get("file").and_then(Value::as_object);
    let file_string = |key: &str| file.and_then(|f| f.get(key)).and_then(Value::as_str);
    let (kind, value, fallback) = if obj.get("text").is_some_and(Value::is_string) || tagged("text") {
        (
            PartKind::Text,
            Value::String(text_of(obj.get("text"))),
            TEXT_PLAIN,
        )
    } else if obj.contains_key("data") || tagged("data") {
        let data = obj.get("data").cloned().unwrap_or(Value::Null);
        (PartKind::Data, data, APPLICATION_JSON)
    } else if let Some(url) = string("url") {
        (PartKind::Url, url, OCTET_STREAM)
    } else if let Some(raw) = string("raw") {
        (PartKind::Raw, raw, OCTET_STREAM)
    } else if let Some(uri) = file_string("uri") {
        (PartKind::Url, Value::String(uri.to_owned()), OCTET_STREAM)
    } else if let Some(bytes) = file_string("bytes") {
        (PartKind::Raw, Value::String(bytes.to_owned()), OCTET_STREAM)
    } else {
        (PartKind::Unknown, part.clone(), OCTET_STREAM)
    };
    SidebandPart {
        id,
        kind,
        value,
        media_type: media_type(obj, fallback),
        filename: filename(obj),
        metadata: obj.get("metadata").and_then(Value::as_object).cloned(),
    }
}

/// §3.3 item → parts: a string is one text part; any other non-object one data part; an object
/// with a `parts` array those parts; a `markdown` string one `text/markdown` part; else the first
/// non-blank of [`TEXT_KEYS`] as text, else its `data` as data, else the whole object as data.
pub(super) fn event_parts(item: &Value, event_id: &str) -> Vec<SidebandPart> {
    let first = part_id(event_id, 0);
    match item {
        Value::String(_) => vec![plain(first, PartKind::Text, item.clone(), TEXT_PLAIN)],
        Value::Object(obj) => object_parts(obj, item, event_id),
        other => vec![plain(first, PartKind::Data, other.clone(), APPLICATION_JSON)],
    }
}

/// [`event_parts`] for an object item.
fn object_parts(obj: &Map<String, Value>, item: &Value, event_id: &str) -> Vec<SidebandPart> {
    if let Some(Value::Array(parts)) = obj.get("parts") {
        return normalize_parts(parts, event_id);
    }
    let first = part_id(event_id, 0);
    let declared = first_non_blank(obj, &["mediaType", "mimeType"]).map(str::to_lowercase);
    let part = if let Some(Value::String(markdown)) = obj.get("markdown") {
        plain(
            first,
            PartKind::Text,
            Value::String(markdown.clone()),
            TEXT_MARKDOWN,
        )
    } else if let Some(text) = first_non_blank(obj, &TEXT_KEYS) {
        let media = declared.unwrap_or_else(|| TEXT_PLAIN.to_owned());
        plain(first, PartKind::Text, Value::String(text.to_owned()), &media)
    } else if let Some(data) = obj.get("data") {
        let media = declared.unwrap_or_else(|| APPLICATION_JSON.to_owned());
        plain(first, PartKind::Data, data.clone(), &media)
    } else {
        plain(first, PartKind::Data, item.clone(), APPLICATION_JSON)
    };
    vec![part]
}

/// A part without file name or metadata.
fn plain(id: String, kind: PartKind, value: Value, media_type: &str) -> SidebandPart {
    SidebandPart {
        id,
        kind,
        value,
        media_type: media_type.to_owned(),
        filename: None,
        metadata: None,
    }
}

/// §1.0: `mediaType`, else `mimeType`, else `file.mimeType` (first present, non-null value, as JS
/// `String()` gives it), lower-cased; empty → `fallback`.
fn media_type(obj: &Map<String, Value>, fallback: &str) -> String {
    let file_mime = || {
        obj.get("file")
            .and_then(Value::as_object)
            .and_then(|f| first_present(f, &["mimeType"]))
    };
    let declared = first_present(obj, &["mediaType", "mimeType"]).or_else(file_mime);
    let lowered = declared.map(js_string).unwrap_or_default().to_lowercase();
    if lowered.is_empty() {
        fallback.to_owned()
    } else {
        lowered
    }
}

/// `filename`, else `file.name` (first present, non-null), as JS `String()` gives it; empty → none.
fn filename(obj: &Map<String, Value>) -> Option<String> {
    let file_name = || {
        obj.get("file")
            .and_then(Value::as_object)
            .and_then(|f| first_present(f, &["name"]))
    };
    let name = first_present(obj, &["filename"])
        .or_else(file_name)
        .map(js_string)?;
    (!name.is_empty()).then_some(name)
}

/// A text part's value: JS `String(part.text ?? "")`.
fn text_of(text: Option<&Value>) -> String {
    match text {
        None | Some(Value::Null) => String::new(),
        Some(value) => js_string(value),
    }
}

#[cfg(test)]
mod tests;
