//! The Agent Card, normalised from 1.0 (`supportedInterfaces`), 0.3 (`url`,
//! `preferredTransport`, `additionalInterfaces`) or cards that carry both (spec A.3), with
//! the raw JSON kept beside it. Decoding never fails on a JSON object: what is missing or
//! mistyped is left empty here and reported by [`super::compliance`].

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::error::DecodeError;
use super::interface::{AgentInterface, Binding, dedupe_interfaces};
use super::lenient::{array, as_object, opt_bool, opt_str, str_list};
use super::security::{SecurityRequirement, SecurityScheme, decode_security_requirements};
use super::skill::AgentSkill;
use super::version::major_minor;

/// Which card shape was detected (the compliance report's `version`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum CardVersion {
    /// Has `supportedInterfaces` (possibly alongside legacy 0.3 fields).
    #[serde(rename = "1.0")]
    V1_0,
    /// Has a top-level `url` and no `supportedInterfaces`, or a `0.3` `protocolVersion`.
    #[serde(rename = "0.3")]
    V0_3,
    /// Neither.
    #[serde(rename = "unknown")]
    Unknown,
}

impl CardVersion {
    /// Detects the shape of a card object (reference §8).
    pub fn detect(card: &Map<String, Value>) -> Self {
        let v1_list = matches!(card.get("supportedInterfaces"), Some(Value::Array(a)) if !a.is_empty());
        let top_version = card
            .get("protocolVersion")
            .and_then(Value::as_str)
            .and_then(major_minor);
        let has_url = matches!(card.get("url"), Some(Value::String(s)) if !s.is_empty());
        if v1_list {
            CardVersion::V1_0
        } else if top_version.as_deref() == Some("0.3") || (has_url && top_version.is_none()) {
            CardVersion::V0_3
        } else if card.contains_key("supportedInterfaces") || top_version.as_deref() == Some("1.0") {
            CardVersion::V1_0
        } else {
            CardVersion::Unknown
        }
    }

    /// `"1.0"`, `"0.3"` or `"unknown"`.
    pub fn as_str(self) -> &'static str {
        match self {
            CardVersion::V1_0 => "1.0",
            CardVersion::V0_3 => "0.3",
            CardVersion::Unknown => "unknown",
        }
    }
}

/// An extension the agent declares (same shape in 0.3 and 1.0, spec A.8).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentExtension {
    /// The extension URI (versioned).
    pub uri: String,
    /// Free text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The client must request it or the agent answers `-32008`.
    #[serde(default)]
    pub required: bool,
    /// Extension-specific parameters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<Value>,
}

/// What the agent can do.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentCapabilities {
    /// `SendStreamingMessage` / `SubscribeToTask` are available.
    #[serde(default)]
    pub streaming: bool,
    /// Push notification configs are accepted.
    #[serde(default)]
    pub push_notifications: bool,
    /// An authenticated extended card exists (0.3 `supportsAuthenticatedExtendedCard`).
    #[serde(default)]
    pub extended_agent_card: bool,
    /// Declared extensions; entries without a `uri` are dropped.
    #[serde(default)]
    pub extensions: Vec<AgentExtension>,
}

/// Who runs the agent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentProvider {
    /// Organisation name.
    #[serde(default)]
    pub organization: String,
    /// Organisation URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

/// A detached JWS over the card (verified elsewhere).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CardSignature {
    /// Base64url protected header.
    pub protected: String,
    /// Base64url signature.
    pub signature: String,
    /// Unprotected header.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header: Option<Value>,
}

/// A normalised Agent Card.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentCard {
    /// Agent name (`""` when missing).
    pub name: String,
    /// Agent description (`""` when missing).
    pub description: String,
    /// The agent's own version string (`""` when missing).
    pub version: String,
    /// Which shape the card had.
    pub detected_version: CardVersion,
    /// `Major.Minor` protocol versions across all interfaces, in first-seen order.
    pub protocol_versions: Vec<String>,
    /// De-duplicated interfaces in preference order: 1.0 `supportedInterfaces` first, then
    /// the legacy `url` and `additionalInterfaces`. Interfaces without a URL are dropped.
    pub interfaces: Vec<AgentInterface>,
    /// Capabilities.
    pub capabilities: AgentCapabilities,
    /// Skills with an id.
    pub skills: Vec<AgentSkill>,
    /// Security schemes by name.
    #[serde(default)]
    pub security_schemes: BTreeMap<String, SecurityScheme>,
    /// Alternatives, any one of which suffices (1.0 `securityRequirements`, 0.3 `security`).
    #[serde(default)]
    pub security_requirements: Vec<SecurityRequirement>,
    /// Media types accepted by default.
    pub default_input_modes: Vec<String>,
    /// Media types produced by default.
    pub default_output_modes: Vec<String>,
    /// Provider.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<AgentProvider>,
    /// Documentation link.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub documentation_url: Option<String>,
    /// Icon link.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icon_url: Option<String>,
    /// Card signatures.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub signatures: Vec<CardSignature>,
}

impl AgentCard {
    /// Normalises a card; fails only when the value is not a JSON object.
    pub fn decode(value: &Value) -> Result<Self, DecodeError> {
        let obj = as_object(value, "")?;
        let interfaces = interfaces(obj);
        let mut protocol_versions: Vec<String> = Vec::new();
        for i in &interfaces {
            if !protocol_versions.contains(&i.protocol_version) {
                protocol_versions.push(i.protocol_version.clone());
            }
        }
        let caps = obj.get("capabilities").and_then(Value::as_object);
        let capabilities = AgentCapabilities {
            streaming: caps.and_then(|c| opt_bool(c, "streaming")).unwrap_or(false),
            push_notifications: caps
                .and_then(|c| opt_bool(c, "pushNotifications"))
                .unwrap_or(false),
            extended_agent_card: caps
                .and_then(|c| opt_bool(c, "extendedAgentCard"))
                .or_else(|| opt_bool(obj, "supportsAuthenticatedExtendedCard"))
                .unwrap_or(false),
            extensions: caps
                .map(|c| array(c, "extensions"))
                .unwrap_or_default()
                .iter()
                .filter_map(extension)
                .collect(),
        };
        let security_schemes = match obj.get("securitySchemes") {
            Some(Value::Object(m)) => m
                .iter()
                .map(|(k, v)| (k.clone(), SecurityScheme::decode(v)))
                .collect(),
            _ => BTreeMap::new(),
        };
        let security_requirements =
            decode_security_requirements(obj.get("securityRequirements").or_else(|| obj.get("security")));
        Ok(AgentCard {
            name: opt_str(obj, "name").unwrap_or_default(),
            description: opt_str(obj, "description").unwrap_or_default(),
            version: opt_str(obj, "version").unwrap_or_default(),
            detected_version: CardVersion::detect(obj),
            protocol_versions,
            interfaces,
            capabilities,
            skills: array(obj, "skills")
                .iter()
                .filter_map(AgentSkill::decode)
                .collect(),
            security_schemes,
            security_requirements,
            default_input_modes: str_list(obj, "defaultInputModes"),
            default_output_modes: str_list(obj, "defaultOutputModes"),
            provider: obj
                .get("provider")
                .and_then(Value::as_object)
                .map(|p| AgentProvider {
                    organization: opt_str(p, "organization").unwrap_or_default(),
                    url: opt_str(p, "url"),
                }),
            documentation_url: opt_str(obj, "documentationUrl"),
            icon_url: opt_str(obj, "iconUrl"),
            signatures: array(obj, "signatures").iter().filter_map(signature).collect(),
        })
    }

    /// The declared extension with this URI.
    pub fn extension(&self, uri: &str) -> Option<&AgentExtension> {
        self.capabilities.extensions.iter().find(|e| e.uri == uri)
    }

    /// The skill with this id.
    pub fn skill(&self, id: &str) -> Option<&AgentSkill> {
        self.skills.iter().find(|s| s.id == id)
    }
}

/// A normalised card with the JSON it came from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DecodedCard {
    /// The normalised card.
    pub card: AgentCard,
    /// The card exactly as fetched (signatures are verified over this).
    pub raw: Value,
}

/// Decodes a card value, keeping the raw JSON.
pub fn decode_card(value: &Value) -> Result<DecodedCard, DecodeError> {
    Ok(DecodedCard {
        card: AgentCard::decode(value)?,
        raw: value.clone(),
    })
}

/// Decodes a card from the fetched bytes, keeping the raw JSON.
pub fn decode_card_bytes(bytes: &[u8]) -> Result<DecodedCard, DecodeError> {
    let value: Value = serde_json::from_slice(bytes).map_err(|e| DecodeError::NotJson(e.to_string()))?;
    decode_card(&value)
}

fn interfaces(obj: &Map<String, Value>) -> Vec<AgentInterface> {
    let mut out = Vec::new();
    for item in array(obj, "supportedInterfaces") {
        let Some(i) = item.as_object() else { continue };
        let Some(url) = opt_str(i, "url") else { continue };
        let binding = opt_str(i, "protocolBinding")
            .or_else(|| opt_str(i, "transport"))
            .unwrap_or_default();
        // A 1.0 interface without protocolVersion is assumed to be 1.0 (reported as an error).
        let version = opt_str(i, "protocolVersion").unwrap_or_else(|| "1.0".to_owned());
        out.push(AgentInterface::new(
            url,
            Binding::parse(&binding),
            &version,
            opt_str(i, "tenant"),
        ));
    }
    // Legacy 0.3 fields: the top-level `protocolVersion` applies to them, default 0.3.
    let legacy_version = opt_str(obj, "protocolVersion").unwrap_or_else(|| "0.3".to_owned());
    if let Some(url) = opt_str(obj, "url") {
        let binding = opt_str(obj, "preferredTransport").unwrap_or_else(|| "JSONRPC".to_owned());
        out.push(AgentInterface::new(
            url,
            Binding::parse(&binding),
            &legacy_version,
            None,
        ));
    }
    for item in array(obj, "additionalInterfaces") {
        let Some(i) = item.as_object() else { continue };
        let Some(url) = opt_str(i, "url") else { continue };
        let binding = opt_str(i, "transport").unwrap_or_default();
        out.push(AgentInterface::new(
            url,
            Binding::parse(&binding),
            &legacy_version,
            None,
        ));
    }
    dedupe_interfaces(out)
}

fn extension(value: &Value) -> Option<AgentExtension> {
    let obj = value.as_object()?;
    Some(AgentExtension {
        uri: opt_str(obj, "uri")?,
        description: opt_str(obj, "description"),
        required: opt_bool(obj, "required").unwrap_or(false),
        params: obj.get("params").filter(|p| !p.is_null()).cloned(),
    })
}

fn signature(value: &Value) -> Option<CardSignature> {
    let obj = value.as_object()?;
    Some(CardSignature {
        protected: opt_str(obj, "protected")?,
        signature: opt_str(obj, "signature")?,
        header: obj.get("header").filter(|h| !h.is_null()).cloned(),
    })
}

#[cfg(test)]
pub(crate) mod fixtures {
    //! Card fixtures shared with the compliance tests.

    use serde_json::{Value, json};

    /// A complete 1.0 card as the JS SDK serves it.
    pub(crate) fn v1_card() -> Value {
        json!({
            "name": "Echo", "description": "Echoes text", "version": "1.2.0",
            "supportedInterfaces": [
                {"url": "https://echo.example/a2a/jsonrpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
                {"url": "https://echo.example/a2a/rest", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0", "tenant": ""}
            ],
            "provider": {"organization": "Example", "url": "https://example.com"},
            "capabilities": {"streaming": true, "pushNotifications": false, "extendedAgentCard": false,
                "extensions": [{"uri": "https://a2ui.org/a2a-extension/a2ui/v0.9", "required": false,
                                "params": {"supportedCatalogIds": []}}]},
            "securitySchemes": {"bearer": {"httpAuthSecurityScheme": {"scheme": "bearer"}}},
            "securityRequirements": [{"schemes": {"bearer": {"list": []}}}],
            "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain", "application/json"],
            "skills": [{"id": "echo", "name": "Echo", "description": "Repeats", "tags": ["demo"],
                        "examples": ["hello"]}]
        })
    }

    /// A 0.3 card.
    pub(crate) fn v03_card() -> Value {
        json!({
            "protocolVersion": "0.3.0", "name": "Legacy", "description": "Old agent", "version": "0.1.0",
            "url": "https://legacy.example/rpc", "preferredTransport": "JSONRPC",
            "additionalInterfaces": [
                {"url": "https://legacy.example/rpc", "transport": "JSONRPC"},
                {"url": "https://legacy.example/grpc", "transport": "GRPC"},
                {"url": "https://legacy.example/v1", "transport": "HTTP+JSON"}
            ],
            "capabilities": {"streaming": true, "stateTransitionHistory": true},
            "supportsAuthenticatedExtendedCard": true,
            "securitySchemes": {"key": {"type": "apiKey", "in": "header", "name": "X-API-Key"}},
            "security": [{"key": []}],
            "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
            "skills": [{"id": "s", "name": "S", "description": "d", "tags": []}]
        })
    }

    /// A 1.0 card from the Python SDK with a 0.3 compat interface: both shapes at once, and
    /// Python empty defaults.
    pub(crate) fn dual_card() -> Value {
        json!({
            "name": "Dual", "description": "Both", "version": "2.0.0",
            "supportedInterfaces": [
                {"url": "http://127.0.0.1:9999/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0", "tenant": ""},
                {"url": "http://127.0.0.1:9999/", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"}
            ],
            "url": "http://127.0.0.1:9999/", "preferredTransport": "JSONRPC", "protocolVersion": "0.3",
            "capabilities": {"streaming": true, "pushNotifications": true, "extensions": []},
            "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
            "documentationUrl": "", "iconUrl": "",
            "skills": [{"id": "chat", "name": "Chat", "description": "Talk", "tags": ["chat"],
                        "examples": [], "inputModes": [], "outputModes": []}]
        })
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::json;

    use super::fixtures::{dual_card, v1_card, v03_card};
    use super::*;
    use crate::a2a::interface::{InterfacePin, Transport, choose_interface};
    use crate::a2a::test_json::arb_json;
    use crate::a2a::version::ProtocolVersion;

    const KEYS: &[&str] = &[
        "name",
        "description",
        "version",
        "supportedInterfaces",
        "url",
        "protocolBinding",
        "protocolVersion",
        "tenant",
        "preferredTransport",
        "additionalInterfaces",
        "transport",
        "capabilities",
        "streaming",
        "extensions",
        "uri",
        "required",
        "params",
        "skills",
        "id",
        "tags",
        "securitySchemes",
        "type",
        "apiKeySecurityScheme",
        "security",
        "securityRequirements",
        "schemes",
        "list",
        "defaultInputModes",
        "defaultOutputModes",
        "signatures",
        "protected",
        "signature",
        "provider",
        "JSONRPC",
        "GRPC",
        "0.3",
        "1.0",
    ];

    #[test]
    fn v1_card_normalises() {
        let d = decode_card(&v1_card()).expect("card");
        let c = &d.card;
        assert_eq!(d.raw, v1_card());
        assert_eq!(
            (c.name.as_str(), c.description.as_str(), c.version.as_str()),
            ("Echo", "Echoes text", "1.2.0")
        );
        assert_eq!(c.detected_version, CardVersion::V1_0);
        assert_eq!(c.protocol_versions, vec!["1.0".to_owned()]);
        assert_eq!(c.interfaces.len(), 2);
        assert_eq!(c.interfaces[1].binding, Binding::HttpJson);
        assert_eq!(c.interfaces[1].tenant, None);
        assert!(c.capabilities.streaming && !c.capabilities.push_notifications);
        let ext = c
            .extension("https://a2ui.org/a2a-extension/a2ui/v0.9")
            .expect("extension");
        assert_eq!(ext.params, Some(json!({"supportedCatalogIds": []})));
        assert!(!ext.required);
        assert!(
            matches!(c.security_schemes.get("bearer"), Some(SecurityScheme::Http { scheme, .. }) if scheme == "bearer")
        );
        assert_eq!(c.security_requirements[0].get("bearer"), Some(&Vec::new()));
        assert_eq!(
            c.skill("echo").map(|s| s.examples.clone()),
            Some(vec!["hello".to_owned()])
        );
        assert_eq!(
            c.default_output_modes,
            vec!["text/plain".to_owned(), "application/json".to_owned()]
        );
        assert_eq!(
            c.provider.as_ref().map(|p| p.organization.as_str()),
            Some("Example")
        );
    }

    #[test]
    fn v03_card_normalises() {
        let c = AgentCard::decode(&v03_card()).expect("card");
        assert_eq!(c.detected_version, CardVersion::V0_3);
        assert_eq!(c.protocol_versions, vec!["0.3".to_owned()]);
        let urls: Vec<_> = c
            .interfaces
            .iter()
            .map(|i| (i.url.as_str(), i.binding.as_str()))
            .collect();
        assert_eq!(
            urls,
            vec![
                ("https://legacy.example/rpc", "JSONRPC"),
                ("https://legacy.example/grpc", "GRPC"),
                ("https://legacy.example/v1", "HTTP+JSON")
            ]
        );
        assert!(
            c.capabilities.extended_agent_card,
            "supportsAuthenticatedExtendedCard maps to extendedAgentCard"
        );
        assert!(
            matches!(c.security_schemes.get("key"), Some(SecurityScheme::ApiKey { name, .. }) if name == "X-API-Key")
        );
        assert_eq!(c.security_requirements.len(), 1);
        let chosen = choose_interface(&c.interfaces, &InterfacePin::default()).expect("chosen");
        assert_eq!(
            (chosen.transport, chosen.version),
            (Transport::JsonRpc, ProtocolVersion::V0_3)
        );
    }

    #[test]
    fn dual_shape_card_from_python() {
        let c = AgentCard::decode(&dual_card()).expect("card");
        assert_eq!(c.detected_version, CardVersion::V1_0);
        assert_eq!(
            c.interfaces.len(),
            2,
            "the legacy url duplicates the 0.3 interface"
        );
        assert_eq!(c.protocol_versions, vec!["1.0".to_owned(), "0.3".to_owned()]);
        assert_eq!(c.documentation_url, None);
        assert!(c.skills[0].input_modes.is_empty());
        let chosen = choose_interface(&c.interfaces, &InterfacePin::default()).expect("chosen");
        assert_eq!(chosen.version, ProtocolVersion::V1_0);
        let pinned = InterfacePin {
            version: Some("0.3".into()),
            ..InterfacePin::default()
        };
        assert_eq!(
            choose_interface(&c.interfaces, &pinned).expect("0.3").version,
            ProtocolVersion::V0_3
        );
    }

    #[test]
    fn broken_cards_still_decode() {
        let c = AgentCard::decode(
            &json!({"supportedInterfaces": [{"protocolBinding": "JSONRPC"}, 3],
            "skills": [{"name": "no id"}, "x"], "capabilities": "yes", "name": 5}),
        )
        .expect("lenient");
        assert_eq!(c.name, "");
        assert!(c.interfaces.is_empty());
        assert!(c.skills.is_empty());
        assert_eq!(c.capabilities, AgentCapabilities::default());
        assert_eq!(
            AgentCard::decode(&json!([])),
            Err(DecodeError::wrong_type("", "an object"))
        );
        assert!(matches!(
            decode_card_bytes(b"<html>"),
            Err(DecodeError::NotJson(_))
        ));
    }

    #[test]
    fn version_detection() {
        let detect = |v: Value| CardVersion::detect(v.as_object().expect("object"));
        assert_eq!(detect(json!({"supportedInterfaces": [{}]})), CardVersion::V1_0);
        assert_eq!(detect(json!({"url": "https://a"})), CardVersion::V0_3);
        assert_eq!(
            detect(json!({"url": "https://a", "protocolVersion": "0.3.0"})),
            CardVersion::V0_3
        );
        assert_eq!(
            detect(json!({"url": "https://a", "protocolVersion": "0.2.5"})),
            CardVersion::Unknown
        );
        assert_eq!(detect(json!({"name": "x"})), CardVersion::Unknown);
        assert_eq!(detect(json!({"supportedInterfaces": []})), CardVersion::V1_0);
        assert_eq!(
            serde_json::to_value(CardVersion::Unknown).expect("ser"),
            json!("unknown")
        );
    }

    proptest! {
        #[test]
        fn never_panics_on_values(v in arb_json(KEYS)) {
            let _ = decode_card(&v);
            let _ = decode_card(&json!({"supportedInterfaces": [v.clone()], "skills": [v.clone()],
                "securitySchemes": {"s": v.clone()}, "capabilities": v}));
        }

        #[test]
        fn never_panics_on_bytes(s in ".{0,300}") {
            let _ = decode_card_bytes(s.as_bytes());
        }
    }
}
