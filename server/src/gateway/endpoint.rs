//! [`Endpoint`]: the agent interface a call goes to, with its URL parsed. The operation table,
//! transports and protocol versions are the wire model's (`app::a2a`); this only adds what the
//! gateway needs to send a request.

use app::a2a::{ChosenInterface, ProtocolVersion, Transport};
use url::Url;

use super::error::GatewayError;

/// The agent interface a call goes to, as chosen from the card by the caller.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Endpoint {
    /// The interface URL (`supportedInterfaces[i].url`, or the 0.3 card's `url`).
    pub url: Url,
    pub transport: Transport,
    pub version: ProtocolVersion,
    /// `AgentInterface.tenant` (1.0): added to JSON-RPC params and as a REST path prefix.
    pub tenant: Option<String>,
}

impl TryFrom<&ChosenInterface> for Endpoint {
    type Error = GatewayError;

    /// The endpoint for an interface picked by [`app::a2a::choose_interface`]; an empty tenant
    /// means none. Fails when the advertised URL does not parse.
    fn try_from(chosen: &ChosenInterface) -> Result<Endpoint, GatewayError> {
        let url = Url::parse(&chosen.url)
            .map_err(|e| GatewayError::InvalidUrl(format!("Agent interface URL is invalid ({e}).")))?;
        Ok(Endpoint {
            url,
            transport: chosen.transport,
            version: chosen.version,
            tenant: Some(chosen.tenant.clone()).filter(|t| !t.is_empty()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_a_chosen_interface() {
        let chosen = ChosenInterface {
            url: "https://agent.example/a2a".into(),
            transport: Transport::HttpJson,
            version: ProtocolVersion::V0_3,
            tenant: String::new(),
        };
        let endpoint = Endpoint::try_from(&chosen).unwrap();
        assert_eq!(endpoint.url.as_str(), "https://agent.example/a2a");
        assert_eq!(
            (endpoint.transport, endpoint.version, endpoint.tenant),
            (Transport::HttpJson, ProtocolVersion::V0_3, None)
        );
        let tenanted = ChosenInterface {
            tenant: "acme".into(),
            ..chosen.clone()
        };
        assert_eq!(
            Endpoint::try_from(&tenanted).unwrap().tenant.as_deref(),
            Some("acme")
        );
        let broken = ChosenInterface {
            url: "not a url".into(),
            ..chosen
        };
        assert!(matches!(
            Endpoint::try_from(&broken),
            Err(GatewayError::InvalidUrl(_))
        ));
    }
}
