//! Agent skills as advertised on the card (same shape in 0.3 and 1.0).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::lenient::{opt_str, str_list};
use super::security::{SecurityRequirement, decode_security_requirements};

/// One skill, normalised.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentSkill {
    /// Stable id; the key for skill-scoped grants and skill routing.
    pub id: String,
    /// Display name (falls back to the id).
    pub name: String,
    /// What the skill does.
    #[serde(default)]
    pub description: String,
    /// Keywords.
    #[serde(default)]
    pub tags: Vec<String>,
    /// Example prompts.
    #[serde(default)]
    pub examples: Vec<String>,
    /// Accepted media types; empty means the card defaults.
    #[serde(default)]
    pub input_modes: Vec<String>,
    /// Produced media types; empty means the card defaults.
    #[serde(default)]
    pub output_modes: Vec<String>,
    /// Skill-specific security requirements.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub security_requirements: Vec<SecurityRequirement>,
}

impl AgentSkill {
    /// Reads a skill; `None` when it is not an object or has no id (the compliance report
    /// names such skills; they cannot be routed to).
    pub fn decode(value: &Value) -> Option<Self> {
        let obj = value.as_object()?;
        let id = opt_str(obj, "id")?;
        Some(AgentSkill {
            name: opt_str(obj, "name").unwrap_or_else(|| id.clone()),
            id,
            description: opt_str(obj, "description").unwrap_or_default(),
            tags: str_list(obj, "tags"),
            examples: str_list(obj, "examples"),
            input_modes: str_list(obj, "inputModes"),
            output_modes: str_list(obj, "outputModes"),
            security_requirements: decode_security_requirements(
                obj.get("securityRequirements").or_else(|| obj.get("security")),
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn decodes_and_defaults() {
        let s = AgentSkill::decode(
            &json!({"id": "summarize", "description": "Sums up", "tags": ["text"],
            "inputModes": ["text/plain"], "security": [{"k": []}]}),
        )
        .expect("skill");
        assert_eq!(s.name, "summarize");
        assert_eq!(s.tags, vec!["text".to_owned()]);
        assert_eq!(s.input_modes, vec!["text/plain".to_owned()]);
        assert!(s.output_modes.is_empty());
        assert_eq!(s.security_requirements.len(), 1);
        assert_eq!(AgentSkill::decode(&json!({"name": "no id"})), None);
        assert_eq!(AgentSkill::decode(&json!("x")), None);
    }
}
