//! Agent interfaces (url + binding + protocol version + tenant), their de-duplication, and
//! the choice of the interface the console talks to: the first one it speaks, optionally
//! pinned per agent. gRPC is refused under the hardened network policy (reference §8).

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use super::version::{ProtocolVersion, major_minor};

/// The message given whenever a gRPC interface would have to be used (reference §8).
pub const GRPC_REFUSED: &str =
    "gRPC transport is unavailable under the hardened network policy; advertise an HTTP binding.";

/// A protocol binding as advertised (1.0 `protocolBinding`, 0.3 `transport`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(into = "String", from = "String")]
pub enum Binding {
    /// `JSONRPC`.
    JsonRpc,
    /// `HTTP+JSON` (REST).
    HttpJson,
    /// `GRPC`; never used by this console.
    Grpc,
    /// Anything else, upper-cased.
    Other(String),
}

impl Binding {
    /// Reads a binding name case-insensitively (`JSONRPC`, `json-rpc`, `HTTP+JSON`, `REST`,
    /// `grpc`, …).
    pub fn parse(name: &str) -> Self {
        let upper = name.trim().to_ascii_uppercase();
        match upper.as_str() {
            "JSONRPC" | "JSON-RPC" | "JSON_RPC" => Binding::JsonRpc,
            "HTTP+JSON" | "HTTP_JSON" | "HTTPJSON" | "REST" | "HTTP" => Binding::HttpJson,
            "GRPC" => Binding::Grpc,
            _ => Binding::Other(upper),
        }
    }

    /// The canonical upper-case name (`JSONRPC`, `HTTP+JSON`, `GRPC`).
    pub fn as_str(&self) -> &str {
        match self {
            Binding::JsonRpc => "JSONRPC",
            Binding::HttpJson => "HTTP+JSON",
            Binding::Grpc => "GRPC",
            Binding::Other(s) => s,
        }
    }

    /// The transport the console would use for this binding, if it speaks it.
    pub fn transport(&self) -> Option<Transport> {
        match self {
            Binding::JsonRpc => Some(Transport::JsonRpc),
            Binding::HttpJson => Some(Transport::HttpJson),
            Binding::Grpc | Binding::Other(_) => None,
        }
    }
}

impl From<Binding> for String {
    fn from(b: Binding) -> Self {
        b.as_str().to_owned()
    }
}

impl From<String> for Binding {
    fn from(s: String) -> Self {
        Binding::parse(&s)
    }
}

/// A binding this console speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Transport {
    /// JSON-RPC 2.0 over HTTP POST (SSE for streams).
    #[serde(rename = "JSONRPC")]
    JsonRpc,
    /// HTTP+JSON (REST routes, SSE for streams).
    #[serde(rename = "HTTP+JSON")]
    HttpJson,
}

/// One advertised interface, normalised.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentInterface {
    /// The endpoint URL.
    pub url: String,
    /// The binding.
    pub binding: Binding,
    /// `Major.Minor` when the advertised version parses, else the string as sent.
    pub protocol_version: String,
    /// 1.0 tenant to copy into every request; `None` when absent or empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tenant: Option<String>,
}

impl AgentInterface {
    /// An interface; the version is reduced to `Major.Minor` when possible.
    pub fn new(
        url: impl Into<String>,
        binding: Binding,
        protocol_version: &str,
        tenant: Option<String>,
    ) -> Self {
        AgentInterface {
            url: url.into(),
            binding,
            protocol_version: major_minor(protocol_version)
                .unwrap_or_else(|| protocol_version.trim().to_owned()),
            tenant: tenant.filter(|t| !t.is_empty()),
        }
    }

    /// The protocol version, when the console speaks it.
    pub fn version(&self) -> Option<ProtocolVersion> {
        ProtocolVersion::parse(&self.protocol_version)
    }

    /// The de-duplication key: (binding upper-case, major.minor version, url, tenant).
    fn key(&self) -> (String, String, String, String) {
        (
            self.binding.as_str().to_owned(),
            self.protocol_version.clone(),
            self.url.clone(),
            self.tenant.clone().unwrap_or_default(),
        )
    }
}

/// How many advertised interfaces are considered; later ones are ignored. A real agent
/// advertises a handful (one per binding and version), while a hostile card within the 2 MiB
/// card cap can list tens of thousands, and every one costs a key and a comparison here and
/// a look in [`choose_interface`].
pub const MAX_INTERFACES: usize = 64;

/// Drops later duplicates, keeping the advertised order (which is the preference order).
/// Only the first [`MAX_INTERFACES`] entries are considered.
pub fn dedupe_interfaces(interfaces: Vec<AgentInterface>) -> Vec<AgentInterface> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for interface in interfaces.into_iter().take(MAX_INTERFACES) {
        if seen.insert(interface.key()) {
            out.push(interface);
        }
    }
    out
}

/// A per-agent pin restricting which interface may be chosen; unset fields match anything.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InterfacePin {
    /// Only this URL (a trailing `/` is ignored).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Only this binding.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub binding: Option<Binding>,
    /// Only this version (compared as `Major.Minor`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
}

impl InterfacePin {
    fn matches(&self, interface: &AgentInterface) -> bool {
        let url_ok = self
            .url
            .as_deref()
            .is_none_or(|u| u.trim_end_matches('/') == interface.url.trim_end_matches('/'));
        let binding_ok = self.binding.as_ref().is_none_or(|b| *b == interface.binding);
        let version_ok = self.version.as_deref().is_none_or(|v| {
            major_minor(v).unwrap_or_else(|| v.trim().to_owned()) == interface.protocol_version
        });
        url_ok && binding_ok && version_ok
    }
}

/// The interface the console will talk to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChosenInterface {
    /// The endpoint URL.
    pub url: String,
    /// How to talk to it.
    pub transport: Transport,
    /// Which protocol version to speak (and send as `A2A-Version`).
    pub version: ProtocolVersion,
    /// The tenant to copy into requests (`""` when none).
    pub tenant: String,
}

/// Why no interface could be chosen.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
pub enum InterfaceError {
    /// Only gRPC was available, or gRPC was pinned.
    #[error("{}", GRPC_REFUSED)]
    GrpcRefused,
    /// The card advertises no interface with a URL.
    #[error("the Agent Card advertises no interface")]
    NoInterface,
    /// The pin matches none of the advertised interfaces.
    #[error("no advertised interface matches the pinned interface")]
    PinNotMatched,
    /// Interfaces exist but none uses JSON-RPC or HTTP+JSON with A2A 1.0 or 0.3.
    #[error(
        "no interface uses a binding and version this console speaks (JSONRPC or HTTP+JSON, A2A 1.0 or 0.3); offered: {offered}"
    )]
    Unsupported {
        /// The offered `binding version url` triples, comma-separated.
        offered: String,
    },
}

/// Chooses the first interface, in advertised order, that matches the pin and that the
/// console speaks. Duplicates are ignored; gRPC is never chosen.
pub fn choose_interface(
    interfaces: &[AgentInterface],
    pin: &InterfacePin,
) -> Result<ChosenInterface, InterfaceError> {
    if pin.binding == Some(Binding::Grpc) {
        return Err(InterfaceError::GrpcRefused);
    }
    let all = dedupe_interfaces(interfaces.iter().filter(|i| !i.url.is_empty()).cloned().collect());
    if all.is_empty() {
        return Err(InterfaceError::NoInterface);
    }
    let candidates: Vec<&AgentInterface> = all.iter().filter(|i| pin.matches(i)).collect();
    if candidates.is_empty() {
        return Err(InterfaceError::PinNotMatched);
    }
    let spoken = candidates.iter().find_map(|i| {
        let transport = i.binding.transport()?;
        let version = i.version()?;
        Some(ChosenInterface {
            url: i.url.clone(),
            transport,
            version,
            tenant: i.tenant.clone().unwrap_or_default(),
        })
    });
    match spoken {
        Some(chosen) => Ok(chosen),
        None if candidates.iter().any(|i| i.binding == Binding::Grpc) => Err(InterfaceError::GrpcRefused),
        None => Err(InterfaceError::Unsupported {
            offered: candidates
                .iter()
                .map(|i| format!("{} {} {}", i.binding.as_str(), i.protocol_version, i.url))
                .collect::<Vec<_>>()
                .join(", "),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iface(url: &str, binding: &str, version: &str) -> AgentInterface {
        AgentInterface::new(url, Binding::parse(binding), version, None)
    }

    #[test]
    fn bindings_parse_case_insensitively() {
        assert_eq!(Binding::parse("jsonrpc"), Binding::JsonRpc);
        assert_eq!(Binding::parse("JSON-RPC"), Binding::JsonRpc);
        assert_eq!(Binding::parse("http+json"), Binding::HttpJson);
        assert_eq!(Binding::parse("gRPC"), Binding::Grpc);
        assert_eq!(Binding::parse("soap"), Binding::Other("SOAP".into()));
        assert_eq!(
            serde_json::to_value(Binding::HttpJson).expect("ser"),
            serde_json::json!("HTTP+JSON")
        );
    }

    #[test]
    fn first_spoken_interface_wins() {
        let list = [
            iface("https://a/grpc", "GRPC", "1.0"),
            iface("https://a/rpc", "JSONRPC", "1.0"),
            iface("https://a/rest", "HTTP+JSON", "1.0"),
        ];
        let chosen = choose_interface(&list, &InterfacePin::default()).expect("chosen");
        assert_eq!(chosen.url, "https://a/rpc");
        assert_eq!(chosen.transport, Transport::JsonRpc);
        assert_eq!(chosen.version, ProtocolVersion::V1_0);
        assert_eq!(chosen.tenant, "");
    }

    #[test]
    fn unsupported_versions_are_skipped() {
        let list = [
            iface("https://a/old", "JSONRPC", "0.2.6"),
            iface("https://a/v03", "JSONRPC", "0.3.0"),
        ];
        let chosen = choose_interface(&list, &InterfacePin::default()).expect("chosen");
        assert_eq!(chosen.version, ProtocolVersion::V0_3);
        assert_eq!(chosen.url, "https://a/v03");

        let err = choose_interface(&[iface("https://a", "SOAP", "1.0")], &InterfacePin::default())
            .expect_err("refused");
        assert_eq!(
            err.to_string(),
            "no interface uses a binding and version this console speaks (JSONRPC or HTTP+JSON, A2A 1.0 or 0.3); offered: SOAP 1.0 https://a"
        );
    }

    #[test]
    fn pinning_by_url_binding_and_version() {
        let list = [
            iface("https://a/rpc", "JSONRPC", "1.0"),
            iface("https://a/rest", "HTTP+JSON", "1.0"),
            iface("https://a/rpc", "JSONRPC", "0.3"),
        ];
        let by_binding = InterfacePin {
            binding: Some(Binding::HttpJson),
            ..InterfacePin::default()
        };
        assert_eq!(
            choose_interface(&list, &by_binding).expect("rest").url,
            "https://a/rest"
        );

        let by_version = InterfacePin {
            version: Some("0.3.0".into()),
            ..InterfacePin::default()
        };
        let chosen = choose_interface(&list, &by_version).expect("0.3");
        assert_eq!(
            (chosen.url.as_str(), chosen.version),
            ("https://a/rpc", ProtocolVersion::V0_3)
        );

        let by_url = InterfacePin {
            url: Some("https://a/rest/".into()),
            ..InterfacePin::default()
        };
        assert_eq!(
            choose_interface(&list, &by_url).expect("rest").transport,
            Transport::HttpJson
        );

        let all_three = InterfacePin {
            url: Some("https://a/rpc".into()),
            binding: Some(Binding::JsonRpc),
            version: Some("0.3".into()),
        };
        assert_eq!(
            choose_interface(&list, &all_three).expect("pinned").version,
            ProtocolVersion::V0_3
        );

        let nothing = InterfacePin {
            url: Some("https://elsewhere".into()),
            ..InterfacePin::default()
        };
        assert_eq!(
            choose_interface(&list, &nothing),
            Err(InterfaceError::PinNotMatched)
        );
    }

    #[test]
    fn grpc_is_refused_with_the_policy_message() {
        let only_grpc = [iface("https://a/grpc", "GRPC", "1.0")];
        let err = choose_interface(&only_grpc, &InterfacePin::default()).expect_err("refused");
        assert_eq!(err, InterfaceError::GrpcRefused);
        assert_eq!(
            err.to_string(),
            "gRPC transport is unavailable under the hardened network policy; advertise an HTTP binding."
        );

        let mixed = [
            iface("https://a/grpc", "GRPC", "1.0"),
            iface("https://a/rpc", "JSONRPC", "1.0"),
        ];
        let pinned = InterfacePin {
            binding: Some(Binding::Grpc),
            ..InterfacePin::default()
        };
        assert_eq!(
            choose_interface(&mixed, &pinned),
            Err(InterfaceError::GrpcRefused)
        );

        let pinned_url = InterfacePin {
            url: Some("https://a/grpc".into()),
            ..InterfacePin::default()
        };
        assert_eq!(
            choose_interface(&mixed, &pinned_url),
            Err(InterfaceError::GrpcRefused)
        );
    }

    #[test]
    fn empty_list_and_dedupe() {
        assert_eq!(
            choose_interface(&[], &InterfacePin::default()),
            Err(InterfaceError::NoInterface)
        );
        let list = vec![
            iface("https://a", "jsonrpc", "1.0.1"),
            iface("https://a", "JSONRPC", "1.0"),
            AgentInterface::new("https://a", Binding::JsonRpc, "1.0", Some("t1".into())),
            iface("https://a", "JSONRPC", "0.3"),
        ];
        let deduped = dedupe_interfaces(list);
        assert_eq!(deduped.len(), 3);
        assert_eq!(deduped[2].protocol_version, "0.3");
        assert_eq!(deduped[1].tenant.as_deref(), Some("t1"));
        let tenant_pin = InterfacePin::default();
        assert_eq!(
            choose_interface(&deduped[1..], &tenant_pin)
                .expect("tenant")
                .tenant,
            "t1"
        );
    }

    #[test]
    fn a_hostile_interface_list_is_capped_and_keeps_order() {
        // 50k entries cycling through 100 distinct URLs: only the first MAX_INTERFACES are
        // looked at, their duplicates dropped, first occurrences kept in order.
        let list: Vec<_> = (0..50_000)
            .map(|i| iface(&format!("https://a{}", i % 100), "JSONRPC", "1.0"))
            .collect();
        let started = std::time::Instant::now();
        let deduped = dedupe_interfaces(list);
        assert!(started.elapsed() < std::time::Duration::from_secs(2));
        let urls: Vec<_> = deduped.iter().map(|i| i.url.clone()).collect();
        let expected: Vec<_> = (0..MAX_INTERFACES).map(|i| format!("https://a{i}")).collect();
        assert_eq!(urls, expected);

        let repeated: Vec<_> = (0..50_000)
            .map(|i| iface(&format!("https://b{}", i % 3), "HTTP+JSON", "1.0"))
            .collect();
        let urls: Vec<_> = dedupe_interfaces(repeated).into_iter().map(|i| i.url).collect();
        assert_eq!(urls, ["https://b0", "https://b1", "https://b2"]);
    }
}
