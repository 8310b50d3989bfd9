//! Interface reachability for the agent page (issue #32, "each interface's reachability"): every
//! interface of the agent's latest card is asked for a task that does not exist (`GetTask`)
//! through the same gateway, network policy and credential as any call. Any answer from the
//! agent, even an error, means the interface is reachable; what it answered is shown. Nothing is
//! created or changed at the agent.

use std::time::{Duration, Instant};

use app::a2a::{AgentCard, AgentInterface, ProtocolVersion, encode_get_task};
use app::api::agents::InterfaceProbe;
use url::Url;

use super::{classify_origin, interface_refusal};
use crate::db::Db;
use crate::db::entity::agent;
use crate::gateway::{Endpoint, Gateway, GatewayError};
use crate::store::StoreError;
use crate::store::card_snapshots;
use crate::vault::Vault;

/// How long one interface has to answer.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(5);
/// The task id asked for: no agent has it.
pub const PROBE_TASK_ID: &str = "agent-taskbay-reachability-probe";
/// An agent's error text is cut to this many characters in the outcome line.
const DETAIL_CHARS: usize = 120;

/// One probe per interface of the latest card, in card order (empty before the first
/// discovery). Probes run concurrently.
pub async fn interfaces(
    db: &Db,
    gateway: &Gateway,
    vault: &Vault,
    agent: &agent::Model,
) -> Result<Vec<InterfaceProbe>, StoreError> {
    let Some(snapshot) = card_snapshots::latest(db, &agent.id).await? else {
        return Ok(Vec::new());
    };
    let Ok(card) = AgentCard::decode(&snapshot.raw_card_json) else {
        return Ok(Vec::new());
    };
    let Ok(card_url) = Url::parse(&snapshot.resolved_card_url) else {
        return Ok(Vec::new());
    };
    // An untrusted or invalid card (or an unsigned one when signatures are required) is shown
    // but never called (§2.4): nothing is probed.
    if let Err(refused) = gateway.check_trust(gateway.card_trust(&snapshot.raw_card_json, &card_url)) {
        return Ok(card
            .interfaces
            .iter()
            .map(|i| not_probed(i, format!("Not probed: {refused}")))
            .collect());
    }
    // The agent's credential, as any call would carry it; if it cannot be attached, nothing is
    // sent (never anonymously in its place) and each interface says why.
    let gateway = super::credentials::gateway_for(db, vault, gateway, agent, card_url.as_str(), &card)
        .await
        .map(|g| g.with_timeout(PROBE_TIMEOUT));
    let probes = card
        .interfaces
        .iter()
        .map(|interface| probe(gateway.as_ref(), &card_url, interface));
    Ok(futures::future::join_all(probes).await)
}

/// An interface that was not asked, and why.
fn not_probed(interface: &AgentInterface, outcome: String) -> InterfaceProbe {
    InterfaceProbe {
        url: interface.url.clone(),
        binding: interface.binding.as_str().to_owned(),
        protocol_version: interface.protocol_version.clone(),
        reachable: false,
        outcome,
        latency_ms: None,
    }
}

async fn probe(
    gateway: Result<&Gateway, &GatewayError>,
    card_url: &Url,
    interface: &AgentInterface,
) -> InterfaceProbe {
    let mut probe = not_probed(interface, String::new());
    let (Some(transport), Some(version)) = (interface.binding.transport(), interface.version()) else {
        probe.outcome = "Not probed: the console does not speak this binding and version.".into();
        return probe;
    };
    if let Some(refusal) = interface_refusal(card_url, &interface.url, &[], classify_origin).await {
        probe.outcome = format!("Not probed: {refusal}");
        return probe;
    }
    let gateway = match gateway {
        Ok(gateway) => gateway,
        Err(error) => {
            probe.outcome = format!("Not probed: {error}");
            return probe;
        }
    };
    let Ok(url) = Url::parse(&interface.url) else {
        probe.outcome = "Not probed: the interface URL is invalid.".into();
        return probe;
    };
    let tenant = interface.tenant.clone().unwrap_or_default();
    let endpoint = Endpoint {
        url,
        transport,
        version,
        tenant: Some(tenant.clone()).filter(|t| !t.is_empty()),
    };
    let params = encode_get_task(PROBE_TASK_ID, None, &tenant, version);
    let started = Instant::now();
    let result = gateway.get_task(&endpoint, params, &[]).await;
    let elapsed = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    let (reachable, outcome) = describe(&result, elapsed, version);
    probe.reachable = reachable;
    probe.outcome = outcome;
    probe.latency_ms = reachable.then_some(elapsed);
    probe
}

/// Whether the agent answered, and the outcome line.
fn describe(
    result: &Result<serde_json::Value, GatewayError>,
    ms: u64,
    version: ProtocolVersion,
) -> (bool, String) {
    let answered = |detail: String| (true, format!("Answered in {ms} ms ({detail})"));
    match result {
        Ok(_) => (true, format!("Answered in {ms} ms")),
        Err(GatewayError::JsonRpc(error)) => {
            answered(cut(&format!("error {}: {}", error.code, error.message)))
        }
        Err(GatewayError::Http { status, .. }) => answered(format!("HTTP {status}")),
        Err(GatewayError::Decode(_)) => answered(format!("not an A2A {} answer", version.as_str())),
        Err(error @ GatewayError::Unsupported { .. }) => (false, format!("Not probed: {error}")),
        Err(error) => (false, format!("No answer: {error}")),
    }
}

fn cut(text: &str) -> String {
    if text.chars().count() <= DETAIL_CHARS {
        return text.to_owned();
    }
    let cut: String = text.chars().take(DETAIL_CHARS).collect();
    format!("{cut}…")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_answer_is_reachable_and_says_what_came_back() {
        let v1 = ProtocolVersion::V1_0;
        assert_eq!(
            describe(&Ok(serde_json::json!({})), 7, v1),
            (true, "Answered in 7 ms".into())
        );
        let http = Err(GatewayError::Http {
            status: 404,
            body: None,
        });
        assert_eq!(
            describe(&http, 12, v1),
            (true, "Answered in 12 ms (HTTP 404)".into())
        );
        let timeout = Err(GatewayError::Timeout { seconds: 5 });
        assert_eq!(
            describe(&timeout, 5000, v1),
            (false, "No answer: Agent did not answer within 5 s.".into())
        );
        let long = "x".repeat(300);
        let (_, line) = describe(&Err(GatewayError::Decode(long)), 3, v1);
        assert_eq!(line, "Answered in 3 ms (not an A2A 1.0 answer)");
        assert_eq!(cut(&"y".repeat(200)).chars().count(), DETAIL_CHARS + 1);
    }
}
