//! Agents: preview a card, discover and record it as a snapshot, and find the endpoint to call.

use app::a2a::{self, AgentCard, ComplianceReport, InterfaceError, InterfacePin};
use app::api::agents::{AgentDetail, AgentSummary};
use chrono::Utc;
use serde_json::Value;
use url::Url;

use crate::db::Db;
use crate::db::entity::agent;
use crate::gateway::interface_rule::{self, NetClass, classify_origin};
use crate::gateway::{Endpoint, Gateway, GatewayError};
use crate::store::StoreError;
use crate::store::access::Access;
use crate::store::agents::{self as agent_store, DiscoveryOutcome};
use crate::store::card_snapshots::{self, NewSnapshot};
use crate::vault::Vault;

use super::credentials;

pub mod probe;

/// Errors of the agent services; each variant is something the caller shows or acts on.
#[derive(Debug, thiserror::Error)]
pub enum AgentServiceError {
    /// The agent could not be reached or refused; the message is safe to show.
    #[error(transparent)]
    Gateway(#[from] GatewayError),
    /// No usable interface (none the console speaks, the pin matches none, or gRPC only).
    #[error(transparent)]
    Interface(#[from] InterfaceError),
    /// The interface-origin rule refuses the chosen interface (issue #26).
    #[error("{prefix}{0}", prefix = a2a::INTERFACE_REFUSED)]
    InterfaceRefused(String),
    /// The agent has never been discovered, so there is no card to pick an interface from.
    #[error("The agent's card has not been fetched yet.")]
    NoCard,
    /// The stored card or pin no longer decodes (written by an older version).
    #[error("Stored agent data is unreadable: {0}")]
    Corrupt(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A card as discovery found it, with what the console makes of it.
#[derive(Clone, Debug)]
pub struct CardPreview {
    pub card: AgentCard,
    /// The card exactly as served.
    pub raw: Value,
    /// The candidate URL that answered.
    pub resolved_url: String,
    pub report: ComplianceReport,
    /// Hex SHA-256 of the served bytes.
    pub digest: String,
    /// What its signatures prove (§2.4).
    pub trust: app::words::CardTrust,
}

/// Fetches and checks the card at `card_url` without storing anything (the "Add agent" preview).
/// With a credential attached to `gateway`, the card is fetched with it and the binding must
/// cover the card's origin and every interface origin it advertises (§2.1).
pub async fn preview_card(gateway: &Gateway, card_url: &str) -> Result<CardPreview, AgentServiceError> {
    let found = gateway.discover_card(card_url).await?;
    // Discovery only returns JSON objects, and the card decoder accepts any object.
    let decoded = a2a::decode_card(&found.card).map_err(|e| AgentServiceError::Corrupt(e.to_string()))?;
    let mut report = a2a::check_card(&found.card);
    report.record_trust(found.trust, gateway.requires_signed_cards());
    let mut seen: Vec<&str> = Vec::new();
    for interface in &decoded.card.interfaces {
        if seen.contains(&interface.url.as_str()) {
            continue;
        }
        seen.push(&interface.url);
        let refusal = interface_refusal(
            &found.url,
            &interface.url,
            gateway.allowed_origins(),
            classify_origin,
        )
        .await;
        if let Some(refusal) = refusal {
            report.refuse_interface(interface_path(&found.card, &interface.url), &refusal.to_string());
        }
    }
    if gateway.has_credential()
        && credentials::needed_origins(found.url.as_str(), &decoded.card)
            .iter()
            .any(|origin| !gateway.permits_origin(origin))
    {
        return Err(GatewayError::from(crate::gateway::CredentialFailure::Destination).into());
    }
    Ok(CardPreview {
        report,
        card: decoded.card,
        raw: decoded.raw,
        resolved_url: found.url.to_string(),
        digest: found.sha256,
        trust: found.trust,
    })
}

/// Discovers a registered agent's card, stores it as a snapshot when it changed and updates the agent row
/// (name, description, protocol version, reachability). A failure is recorded on the row too.
/// The card is fetched with the agent's credential when one is stored and opens; a revoked or
/// unopenable one leaves the (public) card fetch anonymous, and every operation refused.
pub async fn discover(
    db: &Db,
    gateway: &Gateway,
    vault: &Vault,
    agent: &agent::Model,
) -> Result<CardPreview, AgentServiceError> {
    let fetched = match credentials::binding(db, vault, agent).await {
        Ok(Some(binding)) => match gateway.clone().with_binding(binding) {
            Ok(bound) => preview_card(&bound, &agent.card_url).await,
            Err(error) => Err(error.into()),
        },
        Ok(None) | Err(_) => preview_card(gateway, &agent.card_url).await,
    };
    let preview = match fetched {
        Ok(preview) => preview,
        Err(error) => {
            agent_store::record_discovery(
                db,
                &agent.id,
                DiscoveryOutcome::Failed {
                    error: error.to_string(),
                },
            )
            .await?;
            return Err(error);
        }
    };
    let snapshot = NewSnapshot {
        raw_card: preview.raw.clone(),
        normalized_card: to_json(&preview.card)?,
        compliance: to_json(&preview.report)?,
        signature_status: preview.trust.as_str().to_owned(),
        digest: preview.digest.clone(),
        resolved_card_url: preview.resolved_url.clone(),
        fetched_at: Utc::now(),
    };
    card_snapshots::record_if_changed(db, &agent.organization_id, &agent.id, snapshot).await?;
    let card = &preview.card;
    let outcome = DiscoveryOutcome::Reachable {
        display_name: non_empty(&card.name),
        description: non_empty(&card.description),
        protocol_version: card.protocol_versions.first().cloned(),
    };
    agent_store::record_discovery(db, &agent.id, outcome).await?;
    Ok(preview)
}

/// The endpoint to call for `agent`: the first interface of its latest card the console
/// speaks, or the one its pin selects, if the interface-origin rule allows it.
pub async fn endpoint(db: &Db, agent: &agent::Model) -> Result<Endpoint, AgentServiceError> {
    endpoint_with(db, agent, classify_origin).await
}

/// The endpoint to call for `agent` and the gateway to call it with: the agent's credential
/// attached, resolved now (so a rotation or revocation applies to this operation), or the
/// plain gateway when it has none and its latest card requires none.
pub async fn connect(
    db: &Db,
    gateway: &Gateway,
    vault: &Vault,
    agent: &agent::Model,
) -> Result<(Endpoint, Gateway), AgentServiceError> {
    let endpoint = endpoint(db, agent).await?;
    let snapshot = card_snapshots::latest(db, &agent.id)
        .await?
        .ok_or(AgentServiceError::NoCard)?;
    let card =
        AgentCard::decode(&snapshot.raw_card_json).map_err(|e| AgentServiceError::Corrupt(e.to_string()))?;
    // An untrusted or invalid card (or an unsigned one, when signatures are required) is shown
    // but never called (§2.4).
    let card_url =
        Url::parse(&snapshot.resolved_card_url).map_err(|e| AgentServiceError::Corrupt(e.to_string()))?;
    gateway.check_trust(gateway.card_trust(&snapshot.raw_card_json, &card_url))?;
    let gateway =
        credentials::gateway_for(db, vault, gateway, agent, &snapshot.resolved_card_url, &card).await?;
    Ok((endpoint, gateway))
}

/// [`endpoint`] with the function that says where an origin lies, so the interface-origin rule
/// can be tested with origins that loopback tests cannot have. The allowlist half of the rule is
/// left to the gateway, which refuses every request to an origin outside it.
pub async fn endpoint_with<F, Fut>(
    db: &Db,
    agent: &agent::Model,
    classify: F,
) -> Result<Endpoint, AgentServiceError>
where
    F: Fn(Url) -> Fut,
    Fut: Future<Output = NetClass>,
{
    let snapshot = card_snapshots::latest(db, &agent.id)
        .await?
        .ok_or(AgentServiceError::NoCard)?;
    let card =
        AgentCard::decode(&snapshot.raw_card_json).map_err(|e| AgentServiceError::Corrupt(e.to_string()))?;
    let pin: InterfacePin = match &agent.interface_pin_json {
        Some(pin) => {
            serde_json::from_value(pin.clone()).map_err(|e| AgentServiceError::Corrupt(e.to_string()))?
        }
        None => InterfacePin::default(),
    };
    let chosen = a2a::choose_interface(&card.interfaces, &pin)?;
    let endpoint = Endpoint::try_from(&chosen)?;
    let card_url =
        Url::parse(&snapshot.resolved_card_url).map_err(|e| AgentServiceError::Corrupt(e.to_string()))?;
    if let Some(refusal) = interface_refusal(&card_url, endpoint.url.as_str(), &[], classify).await {
        return Err(AgentServiceError::InterfaceRefused(refusal.to_string()));
    }
    Ok(endpoint)
}

/// Why the interface at `interface_url`, advertised by the card served from `card_url`, may not
/// be used (issue #26); `None` when it may, or when the URL does not parse (the caller reports
/// that). Origins are classified only when they differ.
pub(crate) async fn interface_refusal<F, Fut>(
    card_url: &Url,
    interface_url: &str,
    allowed_origins: &[String],
    classify: F,
) -> Option<interface_rule::InterfaceRefusal>
where
    F: Fn(Url) -> Fut,
    Fut: Future<Output = NetClass>,
{
    let interface = Url::parse(interface_url).ok()?;
    if interface.origin() == card_url.origin() {
        return None;
    }
    let card_class = classify(card_url.clone()).await;
    let interface_class = classify(interface.clone()).await;
    interface_rule::check(card_url, card_class, &interface, interface_class, allowed_origins).err()
}

/// The card field that advertises `url`, for the compliance report.
fn interface_path(raw: &Value, url: &str) -> String {
    let names = |item: &Value| item.get("url").and_then(Value::as_str) == Some(url);
    for key in ["supportedInterfaces", "additionalInterfaces"] {
        if let Some(index) = raw
            .get(key)
            .and_then(Value::as_array)
            .and_then(|list| list.iter().position(names))
        {
            return format!("{key}[{index}].url");
        }
    }
    if names(raw) { "url".into() } else { "$".into() }
}

/// Every agent of the organization with a fresh discovery of its card, in list order.
/// Discoveries run concurrently; a failed one is reported on its row, not as an error.
pub async fn list_summaries(
    db: &Db,
    gateway: &Gateway,
    vault: &Vault,
    access: &Access,
) -> Result<Vec<AgentSummary>, StoreError> {
    let agents = agent_store::list(db, access).await?;
    let discoveries = agents.iter().map(|agent| discover(db, gateway, vault, agent));
    let outcomes = futures::future::join_all(discoveries).await;
    let stored = credentials::rows_by_agent(db, &access.organization_id).await?;
    let mut rows = Vec::with_capacity(agents.len());
    for (agent, outcome) in agents.into_iter().zip(outcomes) {
        let credential = stored.get(&agent.id);
        let card = outcome.as_ref().ok().map(|preview| &preview.card);
        let state = credentials::state(vault, credential, card);
        let mut row = summary(access, agent, outcome)?;
        row.credential = state;
        rows.push(row);
    }
    Ok(rows)
}

/// One agent with a fresh discovery of its card; when the agent cannot be reached, the latest
/// stored card is shown beside the reason. A member granted only some skills sees a card
/// reduced to them (§1.3).
pub async fn detail(
    db: &Db,
    gateway: &Gateway,
    vault: &Vault,
    agent: agent::Model,
    access: &Access,
) -> Result<AgentDetail, StoreError> {
    let removable = agent.source != agent_store::AgentSource::Env;
    let mut detail = AgentDetail {
        id: agent.id.clone(),
        card_url: agent.card_url.clone(),
        removable,
        error: None,
        card: None,
        report: None,
        resolved_url: None,
        pin: agent
            .interface_pin_json
            .clone()
            .and_then(|pin| serde_json::from_value(pin).ok()),
        credential: Default::default(),
        trust: app::words::CardTrust::Unsigned,
        raw_card: None,
    };
    match discover(db, gateway, vault, &agent).await {
        Ok(preview) => {
            detail.trust = preview.trust;
            detail.raw_card = Some(preview.raw);
            detail.card = Some(preview.card);
            detail.report = Some(preview.report);
            detail.resolved_url = Some(preview.resolved_url);
        }
        Err(AgentServiceError::Store(error)) => return Err(error),
        Err(error) => {
            detail.error = Some(error.to_string());
            if let Some(snapshot) = card_snapshots::latest(db, &agent.id).await? {
                detail.card = AgentCard::decode(&snapshot.raw_card_json).ok();
                detail.raw_card = Some(snapshot.raw_card_json.clone());
                detail.report = serde_json::from_value(snapshot.compliance_json).ok();
                detail.trust = Url::parse(&snapshot.resolved_card_url)
                    .map_or(app::words::CardTrust::Invalid, |url| {
                        gateway.card_trust(&snapshot.raw_card_json, &url)
                    });
                detail.resolved_url = Some(snapshot.resolved_card_url);
            }
        }
    }
    let stored = crate::store::credentials::find(&db.read, &agent.organization_id, &agent.id).await?;
    detail.credential = credentials::state(vault, stored.as_ref(), detail.card.as_ref());
    if let Some(card) = detail.card.as_mut() {
        card.skills
            .retain(|skill| access.shows_skill(&agent.id, &skill.id));
    }
    // The raw card shows only the skills the typed one does.
    if let Some(Value::Array(skills)) = detail.raw_card.as_mut().and_then(|c| c.get_mut("skills")) {
        skills.retain(|skill| {
            skill
                .get("id")
                .and_then(Value::as_str)
                .is_some_and(|id| access.shows_skill(&agent.id, id))
        });
    }
    if let Some(report) = detail.report.as_mut() {
        access.reduce_report(&agent.id, report);
    }
    Ok(detail)
}

fn summary(
    access: &Access,
    agent: agent::Model,
    outcome: Result<CardPreview, AgentServiceError>,
) -> Result<AgentSummary, StoreError> {
    let removable = agent.source != agent_store::AgentSource::Env;
    let mut row = AgentSummary {
        id: agent.id.clone(),
        card_url: agent.card_url.clone(),
        removable,
        name: None,
        description: None,
        protocol_version: None,
        card_version: None,
        skills: Vec::new(),
        auth: None,
        error: None,
        credential: Default::default(),
    };
    match outcome {
        Ok(preview) => {
            let card = preview.card;
            row.name = non_empty(&card.name);
            row.description = non_empty(&card.description);
            row.protocol_version = card.protocol_versions.first().cloned();
            row.card_version = non_empty(&card.version);
            row.skills = card
                .skills
                .iter()
                .filter(|skill| access.shows_skill(&agent.id, &skill.id))
                .map(|skill| skill.name.clone())
                .collect();
            row.auth = card.security_schemes.keys().next().cloned();
        }
        // A database failure while recording is a real error; anything else is the agent's.
        Err(AgentServiceError::Store(error)) => return Err(error),
        Err(error) => row.error = Some(error.to_string()),
    }
    Ok(row)
}

fn to_json(value: &impl serde::Serialize) -> Result<Value, AgentServiceError> {
    serde_json::to_value(value).map_err(|e| AgentServiceError::Corrupt(e.to_string()))
}

fn non_empty(text: &str) -> Option<String> {
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_owned())
}
