//! Message and artifact parts: 1.0 member-named parts (`text`, `url`, `raw`, `data`) and 0.3
//! `kind` parts (`text`, `file{uri|bytes}`, `data`), normalised into one [`Part`].

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::error::DecodeError;
use super::lenient::{array, as_object, index, join, opt_object, opt_str, present};

/// The content of a part; exactly one kind per part (spec A.3 `oneof content`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum PartContent {
    /// Plain text (often markdown).
    Text(String),
    /// A file by reference; the console never fetches it.
    Url(String),
    /// Inline file bytes, base64 as sent by the agent.
    Raw(String),
    /// Structured data; any JSON value in 1.0, an object in 0.3.
    Data(Value),
}

/// One normalised part.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Part {
    /// What the part carries.
    pub content: PartContent,
    /// 1.0 `mediaType`, or 0.3 `file.mimeType`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media_type: Option<String>,
    /// 1.0 `filename`, or 0.3 `file.name`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filename: Option<String>,
    /// Part metadata; extension data is usually keyed by extension URI.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
}

/// Decodes the `parts` array of a message or artifact object at `path`; the first bad part
/// fails the whole list with its index in the path.
pub(crate) fn decode_parts(obj: &Map<String, Value>, path: &str) -> Result<Vec<Part>, DecodeError> {
    // A 0.3 ProtoJSON message names its parts `content` (`rest03.rs`); the gateway renames it,
    // this keeps such a payload readable anyway.
    let key = if obj.contains_key("parts") || !obj.contains_key("content") {
        "parts"
    } else {
        "content"
    };
    let parts_path = join(path, key);
    array(obj, key)
        .iter()
        .enumerate()
        .map(|(i, p)| Part::decode_at(p, &index(&parts_path, i)))
        .collect()
}

impl Part {
    /// A text part with no media type.
    pub fn text(text: impl Into<String>) -> Self {
        Part {
            content: PartContent::Text(text.into()),
            media_type: None,
            filename: None,
            metadata: None,
        }
    }

    /// A data part with the given media type.
    pub fn data(data: Value, media_type: Option<String>) -> Self {
        Part {
            content: PartContent::Data(data),
            media_type,
            filename: None,
            metadata: None,
        }
    }

    /// The text, when this is a text part.
    pub fn as_text(&self) -> Option<&str> {
        match &self.content {
            PartContent::Text(t) => Some(t),
            _ => None,
        }
    }

    /// Decodes a part of either version.
    pub fn decode(value: &Value) -> Result<Self, DecodeError> {
        Self::decode_at(value, "")
    }

    pub(crate) fn decode_at(value: &Value, path: &str) -> Result<Self, DecodeError> {
        let obj = as_object(value, path)?;
        let metadata = opt_object(obj, "metadata");
        let mut media_type = opt_str(obj, "mediaType");
        let mut filename = opt_str(obj, "filename");
        let kind = obj.get("kind").and_then(Value::as_str);
        // The 1.0 member names are checked first; a 0.3 `kind` only decides when none is set.
        let content = if let Some(text) = obj.get("text").and_then(Value::as_str) {
            PartContent::Text(text.to_owned())
        } else if let Some(url) = opt_str(obj, "url") {
            PartContent::Url(url)
        } else if let Some(raw) = opt_str(obj, "raw") {
            PartContent::Raw(raw)
        } else if let Some(file) = present(obj, "file") {
            let file_path = join(path, "file");
            let file = as_object(file, &file_path)?;
            media_type = media_type
                .or_else(|| opt_str(file, "mimeType"))
                .or_else(|| opt_str(file, "mediaType"));
            filename = filename.or_else(|| opt_str(file, "name"));
            // `fileWithUri` / `fileWithBytes`: the 0.3 ProtoJSON names of the same members.
            if let Some(uri) = opt_str(file, "uri").or_else(|| opt_str(file, "fileWithUri")) {
                PartContent::Url(uri)
            } else if let Some(bytes) = file
                .get("bytes")
                .or_else(|| file.get("fileWithBytes"))
                .and_then(Value::as_str)
            {
                PartContent::Raw(bytes.to_owned())
            } else {
                return Err(DecodeError::unknown_shape(
                    file_path,
                    "a file needs `uri` or `bytes`",
                ));
            }
        } else if obj.contains_key("data") {
            PartContent::Data(obj.get("data").cloned().unwrap_or(Value::Null))
        } else if kind == Some("text") {
            // 0.3 text part whose `text` is missing or not a string.
            return Err(match obj.get("text") {
                None | Some(Value::Null) => DecodeError::missing(join(path, "text")),
                Some(_) => DecodeError::wrong_type(join(path, "text"), "a string"),
            });
        } else {
            return Err(DecodeError::unknown_shape(
                path,
                "a part needs `text`, `url`, `raw`, `file` or `data`",
            ));
        };
        Ok(Part {
            content,
            media_type,
            filename,
            metadata,
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn v1_parts() {
        let p = Part::decode(&json!({"text": "hi"})).expect("text");
        assert_eq!(p, Part::text("hi"));

        let p = Part::decode(
            &json!({"url": "https://x/y.pdf", "mediaType": "application/pdf", "filename": "y.pdf"}),
        )
        .expect("url");
        assert_eq!(p.content, PartContent::Url("https://x/y.pdf".into()));
        assert_eq!(p.media_type.as_deref(), Some("application/pdf"));
        assert_eq!(p.filename.as_deref(), Some("y.pdf"));

        let p = Part::decode(&json!({"raw": "aGk=", "mediaType": "text/plain"})).expect("raw");
        assert_eq!(p.content, PartContent::Raw("aGk=".into()));

        let p = Part::decode(&json!({"data": [1, 2], "mediaType": "application/a2ui+json"})).expect("data");
        assert_eq!(p.content, PartContent::Data(json!([1, 2])));
    }

    #[test]
    fn python_empty_defaults_are_absent() {
        let p = Part::decode(&json!({"text": "x", "filename": "", "mediaType": "", "metadata": {}}))
            .expect("text");
        assert_eq!(p, Part::text("x"));
    }

    #[test]
    fn v03_parts() {
        let p = Part::decode(&json!({"kind": "text", "text": "hi", "metadata": {"k": 1}})).expect("text");
        assert_eq!(p.as_text(), Some("hi"));
        assert_eq!(
            p.metadata,
            Some(json!({"k": 1}).as_object().cloned().expect("map"))
        );

        let p = Part::decode(
            &json!({"kind": "file", "file": {"uri": "https://f", "mimeType": "image/png", "name": "a.png"}}),
        )
        .expect("file uri");
        assert_eq!(p.content, PartContent::Url("https://f".into()));
        assert_eq!(p.media_type.as_deref(), Some("image/png"));
        assert_eq!(p.filename.as_deref(), Some("a.png"));

        let p = Part::decode(&json!({"kind": "file", "file": {"bytes": "AAE="}})).expect("file bytes");
        assert_eq!(p.content, PartContent::Raw("AAE=".into()));

        let p = Part::decode(&json!({"kind": "data", "data": {"a": 1.0}})).expect("data");
        assert_eq!(p.content, PartContent::Data(json!({"a": 1.0})));
    }

    #[test]
    fn broken_parts_are_typed_errors() {
        assert_eq!(
            Part::decode(&json!("hi")),
            Err(DecodeError::wrong_type("", "an object"))
        );
        assert_eq!(
            Part::decode_at(&json!({"kind": "text"}), "parts[0]"),
            Err(DecodeError::missing("parts[0].text"))
        );
        assert!(matches!(
            Part::decode(&json!({"kind": "file", "file": {}})),
            Err(DecodeError::UnknownShape { path, .. }) if path == "file"
        ));
        assert!(matches!(
            Part::decode(&json!({"kind": "video"})),
            Err(DecodeError::UnknownShape { .. })
        ));
    }
}
