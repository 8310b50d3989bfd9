//! Agent credentials (`shared/spec/security-and-durability.md` §2): storing, revoking and
//! re-encrypting bindings, what an agent's page shows of them, and the gateway every operation
//! calls the agent with. A credential is resolved again for each operation, so a rotation or a
//! revocation applies to the next call; an agent whose card requires a security scheme is never
//! called without one.

use app::a2a::{AgentCard, SecurityScheme};
use app::api::credentials::{AgentCredential, CredentialState, StoredCredential};
use url::Url;

use crate::db::Db;
use crate::db::entity::{agent, agent_credential};
use crate::gateway::{CredentialFailure, Gateway, GatewayError};
use crate::store::StoreError;
use crate::store::audit::Actor;
use crate::store::credentials as store;
use crate::vault::{Binding, BindingError, Vault, VaultError};

/// Why a credential change was refused.
#[derive(Debug, thiserror::Error)]
pub enum CredentialError {
    /// The binding is malformed or out of bounds; the message names the field.
    #[error(transparent)]
    Binding(#[from] BindingError),
    #[error(transparent)]
    Vault(#[from] VaultError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Whether `card` requires credentials: it lists security requirements and none of the
/// alternatives is empty (an empty one means "no authentication" is acceptable).
pub fn required(card: &AgentCard) -> bool {
    !card.security_requirements.is_empty() && card.security_requirements.iter().all(|r| !r.is_empty())
}

/// The origins a binding must list for `card` served from `card_url`: the card's own and each
/// interface's (§2.1).
pub fn needed_origins(card_url: &str, card: &AgentCard) -> Vec<String> {
    origins_of(std::iter::once(card_url).chain(card.interfaces.iter().map(|i| i.url.as_str())))
}

fn origins_of<'a>(urls: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut origins = Vec::new();
    for url in urls {
        if let Ok(url) = Url::parse(url) {
            let origin = url.origin().ascii_serialization();
            if !origins.contains(&origin) {
                origins.push(origin);
            }
        }
    }
    origins
}

/// The agent's binding, opened: `Ok(None)` when none is stored.
pub async fn binding(db: &Db, vault: &Vault, agent: &agent::Model) -> Result<Option<Binding>, GatewayError> {
    let row = store::find(&db.read, &agent.organization_id, &agent.id)
        .await
        .map_err(|_| CredentialFailure::VaultUnavailable)?;
    row.map(|row| open(vault, &row).map_err(|e| GatewayError::from(CredentialFailure::from(e))))
        .transpose()
}

/// The secrets of `agent`'s stored credential, to redact from what it sends (a push, say),
/// revoked or not: a revoked secret can still be echoed back. `Ok(None)` when none is stored.
pub async fn binding_to_redact(
    db: &Db,
    vault: &Vault,
    agent: &agent::Model,
) -> Result<Option<Binding>, CredentialFailure> {
    let row = store::find(&db.read, &agent.organization_id, &agent.id)
        .await
        .map_err(|_| CredentialFailure::VaultUnavailable)?;
    row.map(|row| {
        vault
            .open(&row.organization_id, &row.agent_id, &row.key_id, &row.ciphertext)
            .map_err(|_| CredentialFailure::VaultUnavailable)
    })
    .transpose()
}

fn open(vault: &Vault, row: &agent_credential::Model) -> Result<Binding, VaultError> {
    if !row.enabled {
        return Err(VaultError::Disabled);
    }
    vault.open(&row.organization_id, &row.agent_id, &row.key_id, &row.ciphertext)
}

/// The gateway to call `agent` with for one operation: its binding attached, after checking
/// that the binding covers every origin of `card` (served from `card_url`); the plain gateway
/// when nothing is stored and `card` requires nothing. Fails closed otherwise.
pub async fn gateway_for(
    db: &Db,
    vault: &Vault,
    gateway: &Gateway,
    agent: &agent::Model,
    card_url: &str,
    card: &AgentCard,
) -> Result<Gateway, GatewayError> {
    match binding(db, vault, agent).await? {
        Some(binding) => {
            if needed_origins(card_url, card)
                .iter()
                .any(|origin| !binding.permits(origin))
            {
                return Err(CredentialFailure::Destination.into());
            }
            gateway.clone().with_binding(binding)
        }
        None if required(card) => Err(CredentialFailure::Needed.into()),
        None => Ok(gateway.clone()),
    }
}

/// The state an agent's credential is in, from its stored row (if any) and its card.
pub fn state(
    vault: &Vault,
    row: Option<&agent_credential::Model>,
    card: Option<&AgentCard>,
) -> CredentialState {
    match row {
        None if card.is_some_and(required) => CredentialState::Needed,
        None => CredentialState::NotRequired,
        Some(row) => match open(vault, row) {
            Ok(_) => CredentialState::Stored,
            Err(VaultError::Disabled) => CredentialState::Revoked,
            Err(VaultError::Unavailable) => CredentialState::Unavailable,
        },
    }
}

/// Every credential state of the organization's agents, by agent id (one query).
pub async fn rows_by_agent(
    db: &Db,
    organization_id: &str,
) -> Result<std::collections::HashMap<String, agent_credential::Model>, StoreError> {
    Ok(store::of_organization(db, organization_id)
        .await?
        .into_iter()
        .map(|row| (row.agent_id.clone(), row))
        .collect())
}

/// [`describe`] with the agent's latest stored card.
pub async fn describe_agent(
    db: &Db,
    vault: &Vault,
    agent: &agent::Model,
) -> Result<AgentCredential, StoreError> {
    let snapshot = crate::store::card_snapshots::latest(db, &agent.id).await?;
    let card = snapshot.as_ref().and_then(|s| {
        AgentCard::decode(&s.raw_card_json)
            .ok()
            .map(|card| (s.resolved_card_url.as_str(), card))
    });
    describe(db, vault, agent, card.as_ref().map(|(url, card)| (*url, card))).await
}

/// What the agent page shows an admin: the state, the card's schemes, what is stored (never a
/// value) and the origins a new binding must list.
pub async fn describe(
    db: &Db,
    vault: &Vault,
    agent: &agent::Model,
    card: Option<(&str, &AgentCard)>,
) -> Result<AgentCredential, StoreError> {
    let row = store::find(&db.read, &agent.organization_id, &agent.id).await?;
    let stored = row.as_ref().map(|row| StoredCredential {
        kind: row.kind,
        origins: open(vault, row).map(|b| b.origins).unwrap_or_default(),
        key_id: row.key_id.clone(),
        enabled: row.enabled,
        revision: row.revision,
        updated_at: row.updated_at.to_rfc3339(),
    });
    Ok(AgentCredential {
        state: state(vault, row.as_ref(), card.map(|(_, c)| c)),
        required: card.is_some_and(|(_, c)| required(c)),
        schemes: card
            .map(|(_, c)| {
                c.security_schemes
                    .iter()
                    .map(|(n, s)| scheme_label(n, s))
                    .collect()
            })
            .unwrap_or_default(),
        stored,
        needed_origins: card
            .map(|(url, c)| needed_origins(url, c))
            .unwrap_or_else(|| origins_of(std::iter::once(agent.card_url.as_str()))),
        vault_configured: vault.is_configured(),
    })
}

fn scheme_label(name: &str, scheme: &SecurityScheme) -> String {
    let what = match scheme {
        SecurityScheme::ApiKey { location, name, .. } => format!("API key in {location} {name}"),
        SecurityScheme::Http { scheme, .. } => format!("HTTP {scheme}"),
        SecurityScheme::OAuth2 { .. } => "OAuth 2.0".to_owned(),
        SecurityScheme::OpenIdConnect { .. } => "OpenID Connect".to_owned(),
        SecurityScheme::MutualTls { .. } => "mutual TLS".to_owned(),
        SecurityScheme::Unknown { .. } => "unknown scheme".to_owned(),
    };
    format!("{name}: {}", what.trim())
}

/// Stores (or replaces) the binding in `json` for an enabled agent of `organization_id`,
/// sealed under the active key; audited as `credential.rotated`.
pub async fn store_binding(
    db: &Db,
    vault: &Vault,
    organization_id: &str,
    agent_id: &str,
    json: &[u8],
    actor: &Actor,
) -> Result<agent_credential::Model, CredentialError> {
    let binding = Binding::parse(json)?;
    let sealed = vault.seal(organization_id, agent_id, &binding)?;
    Ok(store::store(
        db,
        organization_id,
        agent_id,
        binding.credential.kind(),
        sealed,
        actor,
    )
    .await?)
}

/// Revokes the agent's credential; audited as `credential.revoked`.
pub async fn revoke(
    db: &Db,
    organization_id: &str,
    agent_id: &str,
    actor: &Actor,
) -> Result<agent_credential::Model, CredentialError> {
    Ok(store::revoke(db, organization_id, agent_id, actor).await?)
}

/// Seals the agent's binding again under the active key (key rotation); refused on a revoked
/// one, and failing closed when the old key is gone.
pub async fn reencrypt(
    db: &Db,
    vault: &Vault,
    organization_id: &str,
    agent_id: &str,
    actor: &Actor,
) -> Result<agent_credential::Model, CredentialError> {
    Ok(store::reencrypt(db, organization_id, agent_id, actor, |row| {
        let binding = open(vault, row).ok()?;
        vault.seal(organization_id, agent_id, &binding).ok()
    })
    .await?)
}
