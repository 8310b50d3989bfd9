//! Agent credentials as admins see them (`shared/spec/security-and-durability.md` §2): whether an
//! agent needs one, what is stored (kind, origins, key id, revision, when), and the form that
//! stores or replaces one. A stored value never comes back: the server answers with
//! [`AgentCredential`], which has no secret field.

use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::AppError;
pub use crate::words::CredentialKind;

/// Why an agent whose card requires a security scheme, and that has no credential, is not called.
pub const NEEDS_CREDENTIALS: &str =
    "This agent requires credentials. An admin can add them on the agent's page.";

/// Where an agent stands with credentials.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum CredentialState {
    /// No credential stored and the card asks for none: calls go out without one.
    #[default]
    NotRequired,
    /// The card requires a security scheme and no credential is stored: nothing is sent.
    Needed,
    /// A credential is stored and opens: calls carry it.
    Stored,
    /// The stored credential was revoked: nothing is sent until one is stored again.
    Revoked,
    /// A credential is stored but the vault cannot open it (keys missing or changed).
    Unavailable,
}

impl CredentialState {
    /// Whether the console may call the agent.
    pub fn usable(self) -> bool {
        matches!(self, CredentialState::NotRequired | CredentialState::Stored)
    }

    /// A short badge, or `None` when there is nothing to say.
    pub fn badge(self) -> Option<&'static str> {
        match self {
            CredentialState::NotRequired => None,
            CredentialState::Needed => Some("Needs credentials"),
            CredentialState::Stored => Some("Credential stored"),
            CredentialState::Revoked => Some("Credentials revoked"),
            CredentialState::Unavailable => Some("Credential vault unavailable"),
        }
    }

    /// Why the agent cannot be called, for the chat and the agent page; `None` when it can.
    pub fn blocked_reason(self) -> Option<&'static str> {
        match self {
            CredentialState::NotRequired | CredentialState::Stored => None,
            CredentialState::Needed => Some(NEEDS_CREDENTIALS),
            CredentialState::Revoked => Some("Agent credentials are disabled."),
            CredentialState::Unavailable => Some("Credential vault unavailable."),
        }
    }
}

/// The stored credential, without its value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoredCredential {
    pub kind: CredentialKind,
    /// Where it may be sent; empty when the vault cannot open it.
    pub origins: Vec<String>,
    /// The vault key it is encrypted with.
    pub key_id: String,
    pub enabled: bool,
    pub revision: i64,
    /// RFC 3339.
    pub updated_at: String,
}

/// An agent's credential as its page shows it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentCredential {
    pub state: CredentialState,
    /// The card names at least one security scheme that every alternative requires.
    pub required: bool,
    /// The card's security schemes by name, as people read them (`bearer: HTTP bearer`).
    pub schemes: Vec<String>,
    pub stored: Option<StoredCredential>,
    /// The origins a new binding must list: the card's and every interface's.
    pub needed_origins: Vec<String>,
    /// Whether the deployment has vault keys (`A2A_VAULT_KEYS`); without them nothing can be
    /// stored.
    pub vault_configured: bool,
}

/// The credential form (the agent page's "Set credential"): every kind's fields, of which
/// `kind` says which are read. Secrets travel once, browser to server, and are never returned.
#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CredentialForm {
    pub agent_id: String,
    pub kind: String,
    /// One origin per line (or comma-separated).
    pub origins: String,
    /// apiKey: the header name.
    #[serde(default)]
    pub header_name: String,
    /// apiKey value, bearer token or OAuth client secret.
    #[serde(default)]
    pub secret: String,
    #[serde(default)]
    pub issuer: String,
    #[serde(default)]
    pub token_endpoint: String,
    #[serde(default)]
    pub client_id: String,
    #[serde(default)]
    pub scope: String,
    /// mtls: PEM certificate chain, key and optional CA.
    #[serde(default)]
    pub cert: String,
    #[serde(default)]
    pub key: String,
    #[serde(default)]
    pub ca: String,
}

impl std::fmt::Debug for CredentialForm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CredentialForm")
            .field("agent_id", &self.agent_id)
            .field("kind", &self.kind)
            .finish_non_exhaustive()
    }
}

impl CredentialForm {
    /// The binding JSON (`{"origins":[…],"credential":{…}}`) the form describes; the server
    /// checks it strictly. An unknown kind is refused here.
    pub fn binding_json(&self) -> Result<serde_json::Value, AppError> {
        use serde_json::json;
        let origins: Vec<&str> = self
            .origins
            .split(['\n', ',', ' '])
            .map(str::trim)
            .filter(|o| !o.is_empty())
            .collect();
        let optional = |value: &str| (!value.trim().is_empty()).then(|| value.trim().to_owned());
        let credential = match CredentialKind::parse(&self.kind) {
            Some(CredentialKind::ApiKey) => {
                json!({"type": "apiKey", "name": self.header_name.trim(), "value": self.secret})
            }
            Some(CredentialKind::Bearer) => json!({"type": "bearer", "token": self.secret}),
            Some(CredentialKind::OauthClient) => {
                let mut credential = json!({"type": "oauthClient", "issuer": self.issuer.trim(),
                    "tokenEndpoint": self.token_endpoint.trim(), "clientId": self.client_id.trim(),
                    "clientSecret": self.secret});
                if let Some(scope) = optional(&self.scope) {
                    credential["scope"] = scope.into();
                }
                credential
            }
            Some(CredentialKind::Mtls) => {
                let mut credential = json!({"type": "mtls", "cert": self.cert, "key": self.key});
                if let Some(ca) = optional(&self.ca) {
                    credential["ca"] = ca.into();
                }
                credential
            }
            None => {
                return Err(AppError::Invalid {
                    field: "kind".into(),
                    message: "Choose the kind of credential.".into(),
                });
            }
        };
        Ok(json!({"origins": origins, "credential": credential}))
    }
}

/// What the server provides (admins only: the request guard checks `administer` first).
#[cfg(feature = "ssr")]
pub trait CredentialsBackend: Send + Sync {
    fn get(&self, agent_id: String) -> crate::api::BoxFuture<'_, Result<AgentCredential, AppError>>;
    fn store(
        &self,
        agent_id: String,
        binding: serde_json::Value,
    ) -> crate::api::BoxFuture<'_, Result<AgentCredential, AppError>>;
    fn revoke(&self, agent_id: String) -> crate::api::BoxFuture<'_, Result<AgentCredential, AppError>>;
}

/// The agent's credential state and what is stored, never a value.
#[server(prefix = "/api/fn", endpoint = "get_agent_credential")]
pub async fn get_agent_credential(agent_id: String) -> Result<AgentCredential, AppError> {
    crate::api::respond(async { crate::api::backend()?.credentials.get(agent_id).await }.await)
}

/// Stores or replaces the agent's credential (the form's fields, URL-encoded).
#[server(prefix = "/api/fn", endpoint = "store_agent_credential")]
pub async fn store_agent_credential(form: CredentialForm) -> Result<AgentCredential, AppError> {
    crate::api::respond(
        async {
            let binding = form.binding_json()?;
            crate::api::backend()?
                .credentials
                .store(form.agent_id, binding)
                .await
        }
        .await,
    )
}

/// Revokes the agent's credential: calls fail closed until one is stored again.
#[server(prefix = "/api/fn", endpoint = "revoke_agent_credential")]
pub async fn revoke_agent_credential(agent_id: String) -> Result<AgentCredential, AppError> {
    crate::api::respond(async { crate::api::backend()?.credentials.revoke(agent_id).await }.await)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_form_builds_each_kind_of_binding() {
        let form = CredentialForm {
            agent_id: "a".into(),
            kind: "apiKey".into(),
            origins: "https://a.example\nhttps://b.example, ".into(),
            header_name: " X-API-Key ".into(),
            secret: "secret-123".into(),
            ..CredentialForm::default()
        };
        assert_eq!(
            form.binding_json().unwrap(),
            serde_json::json!({"origins": ["https://a.example", "https://b.example"],
                "credential": {"type": "apiKey", "name": "X-API-Key", "value": "secret-123"}})
        );
        let oauth = CredentialForm {
            kind: "oauthClient".into(),
            scope: " ".into(),
            ..form.clone()
        };
        assert!(oauth.binding_json().unwrap()["credential"].get("scope").is_none());
        let unknown = CredentialForm {
            kind: "basic".into(),
            ..form.clone()
        };
        assert!(matches!(unknown.binding_json(), Err(AppError::Invalid { field, .. }) if field == "kind"));
        assert!(!format!("{form:?}").contains("secret-123"));
    }

    #[test]
    fn only_not_required_and_stored_are_usable() {
        let usable: Vec<_> = [
            CredentialState::NotRequired,
            CredentialState::Needed,
            CredentialState::Stored,
            CredentialState::Revoked,
            CredentialState::Unavailable,
        ]
        .into_iter()
        .filter(|s| s.usable())
        .collect();
        assert_eq!(
            usable,
            vec![CredentialState::NotRequired, CredentialState::Stored]
        );
        assert_eq!(CredentialState::Needed.badge(), Some("Needs credentials"));
    }
}
