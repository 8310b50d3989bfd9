//! Agent Cards: the 1.0 shape for every variant, the 0.3 shape for `legacy`. Interface URLs use
//! the origin the card was requested through.

use serde_json::{Value, json};

use super::variant::Variant;
use crate::gateway::card_trust::{ed25519_public_jwk, sign_ed25519};

/// The card of `variant` as served from `origin` (`http://host:port`, no trailing slash).
pub fn card(variant: Variant, origin: &str) -> Value {
    if variant.is_legacy() {
        return legacy_card(variant, origin);
    }
    let base = format!("{origin}/{}", variant.name());
    let mut card = json!({
        "name": variant.title(),
        "description": variant.description(),
        "version": "1.0.0",
        "supportedInterfaces": [
            {"url": format!("{base}/a2a"), "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
            {"url": format!("{base}/rest"), "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"},
        ],
        "provider": {"organization": "Agent Taskbay demo agent", "url": origin},
        "capabilities": {
            "streaming": true,
            // Push configs over both 1.0 bindings (`demo_agent::push`).
            "pushNotifications": true,
            "extensions": variant.extensions(),
        },
        "defaultInputModes": ["text/plain", "application/json"],
        "defaultOutputModes": ["text/plain"],
        "skills": variant.skills(),
    });
    if let Some(lock) = variant.lock() {
        let (schemes, requirements) = lock.card_fields(origin);
        card["securitySchemes"] = schemes;
        card["securityRequirements"] = requirements;
    }
    match variant {
        Variant::Signed => sign_ed25519(&mut card, &CARD_KEY_SEED, CARD_KEY_ID),
        Variant::Forged => {
            sign_ed25519(&mut card, &CARD_KEY_SEED, CARD_KEY_ID);
            card["description"] = "Changed after signing.".into();
        }
        _ => {}
    }
    card
}

/// The seed of the demo agent's card signing key (Ed25519). It is public on purpose: the demo
/// agent shows how signed cards are verified, not how keys are kept.
pub const CARD_KEY_SEED: [u8; 32] = *b"agent-taskbay demo card key 0001";
/// The key id its signatures name.
pub const CARD_KEY_ID: &str = "demo-card-key";

/// The trust pin for the demo agent served at `origin`: paste it into `A2A_TRUSTED_CARD_KEYS`.
pub fn card_key_pins(origin: &str) -> Value {
    json!([{"origin": origin, "kid": CARD_KEY_ID, "jwk": ed25519_public_jwk(&CARD_KEY_SEED)}])
}

/// The 0.3 card: top-level `url`, `preferredTransport`, `protocolVersion: "0.3.0"`; JSON-RPC
/// preferred, HTTP+JSON (the `/v1/…` routes under `…/rest`) as an additional interface.
fn legacy_card(variant: Variant, origin: &str) -> Value {
    let url = format!("{origin}/{}/a2a", variant.name());
    let rest = format!("{origin}/{}/rest", variant.name());
    json!({
        "name": variant.title(),
        "description": variant.description(),
        "version": "1.0.0",
        "protocolVersion": "0.3.0",
        "url": url,
        "preferredTransport": "JSONRPC",
        "additionalInterfaces": [
            {"url": url, "transport": "JSONRPC"},
            {"url": rest, "transport": "HTTP+JSON"},
        ],
        "provider": {"organization": "Agent Taskbay demo agent", "url": origin},
        "capabilities": {
            "streaming": true,
            // The 0.3 bindings have no push methods here.
            "pushNotifications": false,
            "extensions": variant.extensions(),
        },
        "defaultInputModes": ["text/plain", "application/json"],
        "defaultOutputModes": ["text/plain"],
        "skills": variant.skills(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interfaces_follow_the_origin() {
        let card = card(Variant::Form, "http://localhost:9");
        assert_eq!(
            card["supportedInterfaces"][0]["url"],
            "http://localhost:9/form/a2a"
        );
        assert_eq!(card["supportedInterfaces"][1]["protocolBinding"], "HTTP+JSON");
        assert_eq!(card["capabilities"]["streaming"], true);
        assert!(card.get("url").is_none());
    }

    #[test]
    fn the_legacy_card_is_0_3() {
        let card = card(Variant::Legacy, "http://h:1");
        assert_eq!(card["url"], "http://h:1/legacy/a2a");
        assert_eq!(card["protocolVersion"], "0.3.0");
        assert_eq!(card["preferredTransport"], "JSONRPC");
        assert_eq!(
            card["additionalInterfaces"][1],
            json!({"url": "http://h:1/legacy/rest", "transport": "HTTP+JSON"})
        );
        assert!(card.get("supportedInterfaces").is_none());
    }
}
