//! Agent Card discovery (`shared/spec/reference.md` §4.3, §2.2; `a2a-and-a2ui.md` §A.3): the
//! candidate URLs for a card URL, and fetching the card as JSON with its resolved URL and the
//! SHA-256 of the exact bytes received. The card is not interpreted here.

use app::a2a::{ProtocolVersion, VERSION_HEADER};
use bytes::Bytes;
use reqwest::header::{ACCEPT, HeaderValue};
use serde_json::Value;
use sha2::{Digest, Sha256};
use url::Url;

use super::client::Gateway;
use super::error::GatewayError;
use crate::config::validate_card_url;

/// Largest Agent Card accepted; counted while reading (`shared/spec/reference.md` §4.3, §8).
pub const MAX_CARD_BYTES: usize = 2 * 1024 * 1024;

/// The well-known card path of A2A 0.3 and 1.0.
pub const WELL_KNOWN_CARD_PATH: &str = "/.well-known/agent-card.json";
/// The card path of A2A 0.2, probed last for very old agents.
pub const LEGACY_CARD_PATH: &str = "/.well-known/agent.json";

/// A fetched Agent Card.
#[derive(Clone, Debug, PartialEq)]
pub struct DiscoveredCard {
    /// The card as received (a JSON object).
    pub card: Value,
    /// The candidate URL that answered.
    pub url: Url,
    /// Lower-case hex SHA-256 of `raw`, for snapshots.
    pub sha256: String,
    /// The exact bytes received.
    pub raw: Bytes,
    /// What the card's signatures prove under `A2A_TRUSTED_CARD_KEYS` (§2.4).
    pub trust: app::words::CardTrust,
}

/// The URLs tried for `url`, in order: a path ending in `.json` is fetched as is; otherwise
/// `<url>/.well-known/agent-card.json`, the origin's `/.well-known/agent-card.json`, the URL
/// itself, then the origin's 0.2 `/.well-known/agent.json`, without duplicates.
pub fn card_candidates(url: &Url) -> Vec<Url> {
    let mut base = url.clone();
    base.set_query(None);
    base.set_fragment(None);
    if base.path().to_ascii_lowercase().ends_with(".json") {
        return vec![base];
    }
    let with_path = |path: &str| {
        let mut candidate = base.clone();
        candidate.set_path(path);
        candidate
    };
    let relative = format!("{}{WELL_KNOWN_CARD_PATH}", base.path().trim_end_matches('/'));
    let mut candidates: Vec<Url> = Vec::with_capacity(4);
    for candidate in [
        with_path(&relative),
        with_path(WELL_KNOWN_CARD_PATH),
        base.clone(),
        with_path(LEGACY_CARD_PATH),
    ] {
        if !candidates.contains(&candidate) {
            candidates.push(candidate);
        }
    }
    candidates
}

impl Gateway {
    /// Discovers the card behind `card_url`: validates the URL (≤ 1024 characters, http(s), no
    /// credentials, query or fragment), then tries each [`card_candidates`] entry; the first
    /// 2xx JSON object wins. A rule refusal (safety policy, redirect, oversized card) stops the
    /// search with that rule's message. Every other failure — refused connection, timeout,
    /// non-2xx status, not JSON — ends in the same [`GatewayError::DiscoveryFailed`] naming all
    /// the candidates, so the message cannot tell a closed port from a silent or an HTTP one
    /// (issue #26); a timeout stops the search, since every candidate shares the origin. The
    /// cause of each failure is logged at debug level only.
    pub async fn discover_card(&self, card_url: &str) -> Result<DiscoveredCard, GatewayError> {
        let url = validate_card_url(card_url).map_err(GatewayError::InvalidUrl)?;
        let candidates = card_candidates(&url);
        let tried: Vec<String> = candidates.iter().map(Url::to_string).collect();
        for (candidate, shown) in candidates.into_iter().zip(&tried) {
            match self.fetch_card(candidate).await {
                Ok(card) => return Ok(card),
                Err(
                    e @ (GatewayError::Refused { .. }
                    | GatewayError::Redirect { .. }
                    | GatewayError::TooLarge { .. }
                    | GatewayError::InvalidUrl(_)
                    | GatewayError::Credential(_)),
                ) => return Err(e),
                Err(e @ GatewayError::Timeout { .. }) => {
                    tracing::debug!(candidate = %shown, error = %e, "card candidate timed out");
                    break;
                }
                Err(e) => tracing::debug!(candidate = %shown, error = %e, "card candidate failed"),
            }
        }
        Err(GatewayError::DiscoveryFailed { tried })
    }

    /// Fetches exactly `url` as an Agent Card (`Accept: application/json`, `A2A-Version: 1.0`,
    /// at most [`MAX_CARD_BYTES`]).
    pub async fn fetch_card(&self, url: Url) -> Result<DiscoveredCard, GatewayError> {
        let request = self
            .request(reqwest::Method::GET, url.clone())?
            .header(ACCEPT, HeaderValue::from_static("application/json"))
            .header(
                VERSION_HEADER,
                HeaderValue::from_static(ProtocolVersion::V1_0.as_str()),
            );
        let response = self.send("GetAgentCard", request).await?;
        let status = response.status();
        if !status.is_success() {
            return Err(GatewayError::Http {
                status: status.as_u16(),
                body: None,
            });
        }
        let raw = self.read_capped(response, MAX_CARD_BYTES).await?;
        let mut card: Value = serde_json::from_slice(&raw)
            .map_err(|e| GatewayError::Decode(format!("Agent Card is not JSON ({e})")))?;
        let trust = self.card_trust(&card, &url);
        // Fetched with a credential: a card that echoes it is stored without it (§2.3 step 9).
        self.redactor().value(&mut card);
        if !card.is_object() {
            return Err(GatewayError::Decode("Agent Card is not a JSON object".into()));
        }
        Ok(DiscoveredCard {
            card,
            url,
            sha256: hex::encode(Sha256::digest(&raw)),
            raw,
            trust,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn candidates(url: &str) -> Vec<String> {
        card_candidates(&Url::parse(url).unwrap())
            .into_iter()
            .map(String::from)
            .collect()
    }

    #[test]
    fn json_urls_are_fetched_as_is() {
        assert_eq!(
            candidates("https://a.example/cards/Agent.JSON"),
            ["https://a.example/cards/Agent.JSON"]
        );
        assert_eq!(
            candidates("https://a.example/.well-known/agent-card.json"),
            ["https://a.example/.well-known/agent-card.json"]
        );
    }

    #[test]
    fn a_path_gets_relative_then_origin_then_itself_then_legacy() {
        assert_eq!(
            candidates("https://a.example/agents/x/"),
            [
                "https://a.example/agents/x/.well-known/agent-card.json",
                "https://a.example/.well-known/agent-card.json",
                "https://a.example/agents/x/",
                "https://a.example/.well-known/agent.json",
            ]
        );
        assert_eq!(
            candidates("http://127.0.0.1:4010/a2a"),
            [
                "http://127.0.0.1:4010/a2a/.well-known/agent-card.json",
                "http://127.0.0.1:4010/.well-known/agent-card.json",
                "http://127.0.0.1:4010/a2a",
                "http://127.0.0.1:4010/.well-known/agent.json",
            ]
        );
    }

    #[test]
    fn an_origin_is_not_tried_twice() {
        assert_eq!(
            candidates("https://a.example"),
            [
                "https://a.example/.well-known/agent-card.json",
                "https://a.example/",
                "https://a.example/.well-known/agent.json",
            ]
        );
    }
}
