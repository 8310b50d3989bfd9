//! Artifacts: the outputs of a task, built from parts (possibly streamed in chunks).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::error::DecodeError;
use super::lenient::{as_object, opt_object, opt_str, req_str, str_list};
use super::part::{Part, decode_parts};

/// One normalised artifact.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Artifact {
    /// Id unique within the task; streamed chunks with `append` share it.
    pub artifact_id: String,
    /// Human-readable name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Human-readable description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The content, in order.
    #[serde(default)]
    pub parts: Vec<Part>,
    /// Artifact metadata (e.g. `traceType` for trace artifacts).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
    /// URIs of the extensions this artifact uses.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extensions: Vec<String>,
}

impl Artifact {
    /// Decodes an artifact of either version.
    pub fn decode(value: &Value) -> Result<Self, DecodeError> {
        Self::decode_at(value, "")
    }

    pub(crate) fn decode_at(value: &Value, path: &str) -> Result<Self, DecodeError> {
        let obj = as_object(value, path)?;
        let artifact_id = req_str(obj, "artifactId", path)?;
        let parts = decode_parts(obj, path)?;
        Ok(Artifact {
            artifact_id,
            name: opt_str(obj, "name"),
            description: opt_str(obj, "description"),
            parts,
            metadata: opt_object(obj, "metadata"),
            extensions: str_list(obj, "extensions"),
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::a2a::part::PartContent;

    #[test]
    fn decodes_both_versions() {
        let a = Artifact::decode(&json!({
            "artifactId": "a1", "name": "report", "description": "",
            "parts": [{"kind": "file", "file": {"uri": "https://r"}}, {"text": "t"}],
            "extensions": ["urn:x-a2a:trace:v1"], "metadata": {"traceType": "span"}
        }))
        .expect("artifact");
        assert_eq!(a.artifact_id, "a1");
        assert_eq!(a.name.as_deref(), Some("report"));
        assert_eq!(a.description, None);
        assert_eq!(a.parts[0].content, PartContent::Url("https://r".into()));
        assert_eq!(a.extensions, vec!["urn:x-a2a:trace:v1".to_owned()]);
        assert_eq!(
            a.metadata.and_then(|m| m.get("traceType").cloned()),
            Some(json!("span"))
        );
    }

    #[test]
    fn missing_id_is_an_error() {
        assert_eq!(
            Artifact::decode_at(&json!({"parts": []}), "artifact"),
            Err(DecodeError::missing("artifact.artifactId"))
        );
    }
}
