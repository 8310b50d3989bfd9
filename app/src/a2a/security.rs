//! Security schemes and requirements from an Agent Card, in both spellings: 1.0 oneof
//! wrappers (`apiKeySecurityScheme{location,name}`, `{"schemes":{"s":{"list":[…]}}}`) and
//! 0.3 OpenAPI style (`{"type":"apiKey","in":…}`, `{"s":[…]}`), spec A.3.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::lenient::{as_bool, opt_str};

/// A security scheme the agent declares, normalised.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum SecurityScheme {
    /// An API key in a header, query parameter or cookie.
    #[serde(rename_all = "camelCase")]
    ApiKey {
        /// `header`, `query` or `cookie` (1.0 `location`, 0.3 `in`); empty when not given.
        location: String,
        /// The header / parameter / cookie name; empty when not given.
        name: String,
        /// Free text.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
    },
    /// HTTP authentication (`bearer`, `basic`, …).
    #[serde(rename_all = "camelCase")]
    Http {
        /// The HTTP auth scheme, as sent; empty when not given.
        scheme: String,
        /// A hint such as `JWT`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        bearer_format: Option<String>,
        /// Free text.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
    },
    /// OAuth 2.0.
    #[serde(rename_all = "camelCase")]
    OAuth2 {
        /// The declared flows (boxed: much larger than the other variants).
        flows: Box<OAuthFlows>,
        /// RFC 8414 metadata URL.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        metadata_url: Option<String>,
        /// Free text.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
    },
    /// OpenID Connect discovery.
    #[serde(rename_all = "camelCase")]
    OpenIdConnect {
        /// The discovery URL; empty when not given.
        url: String,
        /// Free text.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
    },
    /// Mutual TLS.
    #[serde(rename_all = "camelCase")]
    MutualTls {
        /// Free text.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
    },
    /// A scheme in neither known spelling, kept as sent.
    Unknown {
        /// The scheme JSON.
        raw: Value,
    },
}

/// The OAuth flows a scheme declares (1.0 adds `deviceCode`; `implicit` and `password` are
/// deprecated but still read).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OAuthFlows {
    /// Authorization code (with optional PKCE).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authorization_code: Option<OAuthFlow>,
    /// Client credentials.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_credentials: Option<OAuthFlow>,
    /// Device code (1.0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_code: Option<OAuthFlow>,
    /// Implicit (deprecated).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub implicit: Option<OAuthFlow>,
    /// Resource owner password (deprecated).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub password: Option<OAuthFlow>,
}

/// One OAuth flow's endpoints and scopes.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OAuthFlow {
    /// Authorization endpoint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authorization_url: Option<String>,
    /// Token endpoint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_url: Option<String>,
    /// Refresh endpoint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_url: Option<String>,
    /// Device authorization endpoint (device code flow).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_authorization_url: Option<String>,
    /// Scope name → description.
    #[serde(default)]
    pub scopes: BTreeMap<String, String>,
    /// 1.0 `pkceRequired`.
    #[serde(default)]
    pub pkce_required: bool,
}

/// A security requirement: scheme name → required scopes. A card lists alternatives; any
/// one requirement satisfied is enough.
pub type SecurityRequirement = BTreeMap<String, Vec<String>>;

/// 1.0 wrapper member names and the 0.3 `type` each corresponds to.
const WRAPPERS: [(&str, &str); 5] = [
    ("apiKeySecurityScheme", "apiKey"),
    ("httpAuthSecurityScheme", "http"),
    ("oauth2SecurityScheme", "oauth2"),
    ("openIdConnectSecurityScheme", "openIdConnect"),
    ("mtlsSecurityScheme", "mutualTLS"),
];

impl SecurityScheme {
    /// Reads a scheme in either spelling; never fails (unknown shapes become
    /// [`SecurityScheme::Unknown`]).
    pub fn decode(value: &Value) -> Self {
        let unknown = || SecurityScheme::Unknown { raw: value.clone() };
        let Some(obj) = value.as_object() else {
            return unknown();
        };
        let found = WRAPPERS.iter().find_map(|(wrapper, kind)| {
            obj.get(*wrapper)
                .and_then(Value::as_object)
                .map(|inner| (*kind, inner))
        });
        let (kind, body) = match found {
            Some(hit) => hit,
            None => match obj.get("type").and_then(Value::as_str) {
                Some(kind) => (kind, obj),
                None => return unknown(),
            },
        };
        let description = opt_str(body, "description");
        match kind {
            "apiKey" => SecurityScheme::ApiKey {
                location: opt_str(body, "location")
                    .or_else(|| opt_str(body, "in"))
                    .unwrap_or_default(),
                name: opt_str(body, "name").unwrap_or_default(),
                description,
            },
            "http" => SecurityScheme::Http {
                scheme: opt_str(body, "scheme").unwrap_or_default(),
                bearer_format: opt_str(body, "bearerFormat"),
                description,
            },
            "oauth2" => SecurityScheme::OAuth2 {
                flows: Box::new(
                    body.get("flows")
                        .and_then(Value::as_object)
                        .map(decode_flows)
                        .unwrap_or_default(),
                ),
                metadata_url: opt_str(body, "oauth2MetadataUrl"),
                description,
            },
            "openIdConnect" => SecurityScheme::OpenIdConnect {
                url: opt_str(body, "openIdConnectUrl").unwrap_or_default(),
                description,
            },
            "mutualTLS" | "mtls" | "mutualTls" => SecurityScheme::MutualTls { description },
            _ => unknown(),
        }
    }
}

fn decode_flows(obj: &Map<String, Value>) -> OAuthFlows {
    let flow = |key: &str| obj.get(key).and_then(Value::as_object).map(decode_flow);
    OAuthFlows {
        authorization_code: flow("authorizationCode"),
        client_credentials: flow("clientCredentials"),
        device_code: flow("deviceCode"),
        implicit: flow("implicit"),
        password: flow("password"),
    }
}

fn decode_flow(obj: &Map<String, Value>) -> OAuthFlow {
    let scopes = match obj.get("scopes") {
        Some(Value::Object(m)) => m
            .iter()
            .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_owned()))
            .collect(),
        _ => BTreeMap::new(),
    };
    OAuthFlow {
        authorization_url: opt_str(obj, "authorizationUrl"),
        token_url: opt_str(obj, "tokenUrl"),
        refresh_url: opt_str(obj, "refreshUrl"),
        device_authorization_url: opt_str(obj, "deviceAuthorizationUrl"),
        scopes,
        pkce_required: obj.get("pkceRequired").and_then(as_bool).unwrap_or(false),
    }
}

/// Reads one requirement in either spelling; non-objects read as empty.
pub fn decode_security_requirement(value: &Value) -> SecurityRequirement {
    let Some(obj) = value.as_object() else {
        return BTreeMap::new();
    };
    let scopes = |v: &Value| -> Vec<String> {
        v.as_array()
            .map(|a| a.iter().filter_map(Value::as_str).map(str::to_owned).collect())
            .unwrap_or_default()
    };
    // 1.0 nests everything under an object-valued `schemes`; a 0.3 scheme named "schemes"
    // would map to an array instead.
    if let Some(Value::Object(schemes)) = obj.get("schemes") {
        return schemes
            .iter()
            .map(|(name, v)| (name.clone(), v.get("list").map(scopes).unwrap_or_default()))
            .collect();
    }
    obj.iter().map(|(name, v)| (name.clone(), scopes(v))).collect()
}

/// Reads a list of requirements; anything that is not an array reads as empty.
pub fn decode_security_requirements(value: Option<&Value>) -> Vec<SecurityRequirement> {
    match value {
        Some(Value::Array(items)) => items.iter().map(decode_security_requirement).collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn api_key_both_spellings() {
        let v1 =
            SecurityScheme::decode(&json!({"apiKeySecurityScheme": {"location": "header", "name": "X-Key"}}));
        let v03 = SecurityScheme::decode(&json!({"type": "apiKey", "in": "header", "name": "X-Key"}));
        let expected = SecurityScheme::ApiKey {
            location: "header".into(),
            name: "X-Key".into(),
            description: None,
        };
        assert_eq!(v1, expected);
        assert_eq!(v03, expected);
    }

    #[test]
    fn http_oidc_mtls_both_spellings() {
        let bearer = SecurityScheme::Http {
            scheme: "bearer".into(),
            bearer_format: Some("JWT".into()),
            description: None,
        };
        assert_eq!(
            SecurityScheme::decode(
                &json!({"httpAuthSecurityScheme": {"scheme": "bearer", "bearerFormat": "JWT"}})
            ),
            bearer
        );
        assert_eq!(
            SecurityScheme::decode(&json!({"type": "http", "scheme": "bearer", "bearerFormat": "JWT"})),
            bearer
        );
        let oidc = SecurityScheme::OpenIdConnect {
            url: "https://id/.well-known/openid-configuration".into(),
            description: None,
        };
        assert_eq!(
            SecurityScheme::decode(
                &json!({"openIdConnectSecurityScheme": {"openIdConnectUrl": "https://id/.well-known/openid-configuration"}})
            ),
            oidc
        );
        assert_eq!(
            SecurityScheme::decode(
                &json!({"type": "openIdConnect", "openIdConnectUrl": "https://id/.well-known/openid-configuration"})
            ),
            oidc
        );
        assert_eq!(
            SecurityScheme::decode(&json!({"mtlsSecurityScheme": {}})),
            SecurityScheme::MutualTls { description: None }
        );
        assert_eq!(
            SecurityScheme::decode(&json!({"type": "mutualTLS"})),
            SecurityScheme::MutualTls { description: None }
        );
    }

    #[test]
    fn oauth_flows() {
        let s = SecurityScheme::decode(&json!({"oauth2SecurityScheme": {"flows": {
            "clientCredentials": {"tokenUrl": "https://t", "scopes": {"read": "Read"}},
            "deviceCode": {"deviceAuthorizationUrl": "https://d", "tokenUrl": "https://t", "scopes": {}},
            "authorizationCode": {"authorizationUrl": "https://a", "tokenUrl": "https://t", "pkceRequired": true}
        }}}));
        let SecurityScheme::OAuth2 { flows, .. } = s else {
            panic!("expected oauth2")
        };
        let cc = flows.client_credentials.expect("client credentials");
        assert_eq!(cc.token_url.as_deref(), Some("https://t"));
        assert_eq!(cc.scopes.get("read").map(String::as_str), Some("Read"));
        assert!(flows.authorization_code.expect("auth code").pkce_required);
        assert_eq!(
            flows
                .device_code
                .expect("device")
                .device_authorization_url
                .as_deref(),
            Some("https://d")
        );
        assert!(flows.implicit.is_none());
    }

    #[test]
    fn unknown_schemes_are_kept() {
        assert_eq!(
            SecurityScheme::decode(&json!({"type": "magic"})),
            SecurityScheme::Unknown {
                raw: json!({"type": "magic"})
            }
        );
        assert_eq!(
            SecurityScheme::decode(&json!(3)),
            SecurityScheme::Unknown { raw: json!(3) }
        );
    }

    #[test]
    fn requirements_both_spellings() {
        let v1 = decode_security_requirement(
            &json!({"schemes": {"oauth": {"list": ["read", "write"]}, "key": {}}}),
        );
        let v03 = decode_security_requirement(&json!({"oauth": ["read", "write"], "key": []}));
        assert_eq!(v1, v03);
        assert_eq!(
            v1.get("oauth"),
            Some(&vec!["read".to_owned(), "write".to_owned()])
        );
        assert_eq!(
            decode_security_requirements(Some(&json!("x"))),
            Vec::<SecurityRequirement>::new()
        );
    }
}
