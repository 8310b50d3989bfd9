//! Outbound safety (`shared/spec/security-and-durability.md` §2.3 and §7, threats 12–14): which
//! addresses and origins an agent request may reach. Pure classification functions, the URL
//! admission check run before every request, and the DNS resolver that re-checks every answer
//! at connect time so DNS rebinding cannot slip through. Must not perform any request itself.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use url::{Host, Url};

use super::error::GatewayError;

/// The rule that refused an outbound request; each has a message naming it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rule {
    /// The origin is not in `A2A_ALLOWED_AGENT_ORIGINS`.
    OriginNotAllowed,
    /// 127.0.0.0/8, `::1`: allowed only with `A2A_ALLOW_PRIVATE_NETWORKS=true`.
    Loopback,
    /// RFC 1918 ranges: allowed only with `A2A_ALLOW_PRIVATE_NETWORKS=true`.
    PrivateNetwork,
    /// `fc00::/7`: allowed only with `A2A_ALLOW_PRIVATE_NETWORKS=true`.
    UniqueLocal,
    /// 169.254.0.0/16, `fe80::/10`: always blocked.
    LinkLocal,
    /// Cloud instance metadata services (169.254.169.254, `fd00:ec2::254`, `fd20:ce::254`,
    /// 168.63.129.16, 100.100.100.200): always blocked.
    CloudMetadata,
    /// 224.0.0.0/4, `ff00::/8`: always blocked.
    Multicast,
    /// 0.0.0.0/8, `::`: always blocked.
    Unspecified,
    /// 255.255.255.255: always blocked.
    Broadcast,
    /// 100.64.0.0/10 (carrier-grade NAT): always blocked.
    SharedAddressSpace,
    /// 192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24, `2001:db8::/32`, `3fff::/20`: always blocked.
    Documentation,
    /// 198.18.0.0/15: always blocked.
    Benchmarking,
    /// Every other special-purpose or non-global range (240.0.0.0/4, 192.0.0.0/24, 6to4,
    /// Teredo, deprecated site-local, anything outside `2000::/3`…): always blocked.
    Reserved,
}

impl Rule {
    /// Whether `A2A_ALLOW_PRIVATE_NETWORKS=true` lifts this rule.
    pub fn lifted_by_private_networks(self) -> bool {
        matches!(self, Rule::Loopback | Rule::PrivateNetwork | Rule::UniqueLocal)
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Rule::OriginNotAllowed => {
                "the origin is not in the configured origin allowlist (A2A_ALLOWED_AGENT_ORIGINS)"
            }
            Rule::Loopback => "loopback addresses are blocked unless A2A_ALLOW_PRIVATE_NETWORKS=true",
            Rule::PrivateNetwork => {
                "private network addresses are blocked unless A2A_ALLOW_PRIVATE_NETWORKS=true"
            }
            Rule::UniqueLocal => {
                "unique-local IPv6 addresses are blocked unless A2A_ALLOW_PRIVATE_NETWORKS=true"
            }
            Rule::LinkLocal => "link-local addresses are always blocked",
            Rule::CloudMetadata => "cloud metadata addresses are always blocked",
            Rule::Multicast => "multicast addresses are always blocked",
            Rule::Unspecified => "unspecified addresses are always blocked",
            Rule::Broadcast => "the broadcast address is always blocked",
            Rule::SharedAddressSpace => "shared (carrier-grade NAT) addresses are always blocked",
            Rule::Documentation => "documentation addresses are always blocked",
            Rule::Benchmarking => "benchmarking addresses are always blocked",
            Rule::Reserved => "reserved and special-purpose addresses are always blocked",
        })
    }
}

/// The rule that applies to `ip` regardless of configuration, or `None` for an ordinary
/// global unicast address. IPv4-mapped (and NAT64) IPv6 addresses are judged by the IPv4
/// address inside them.
pub fn classify(ip: IpAddr) -> Option<Rule> {
    match ip {
        IpAddr::V4(v4) => classify_v4(v4),
        IpAddr::V6(v6) => classify_v6(v6),
    }
}

/// Whether `ip` may be contacted under `allow_private_networks`; `Err` names the rule.
pub fn check_ip(ip: IpAddr, allow_private_networks: bool) -> Result<(), Rule> {
    match classify(ip) {
        None => Ok(()),
        Some(rule) if allow_private_networks && rule.lifted_by_private_networks() => Ok(()),
        Some(rule) => Err(rule),
    }
}

fn in_v4(ip: Ipv4Addr, net: [u8; 4], prefix: u32) -> bool {
    let mask = u32::MAX.checked_shl(32 - prefix).unwrap_or(0);
    u32::from(ip) & mask == u32::from(Ipv4Addr::from(net)) & mask
}

fn classify_v4(ip: Ipv4Addr) -> Option<Rule> {
    // Exact metadata endpoints first: they sit inside ranges with weaker rules.
    const METADATA: [[u8; 4]; 3] = [[169, 254, 169, 254], [168, 63, 129, 16], [100, 100, 100, 200]];
    if METADATA.contains(&ip.octets()) {
        return Some(Rule::CloudMetadata);
    }
    let table: &[([u8; 4], u32, Rule)] = &[
        ([255, 255, 255, 255], 32, Rule::Broadcast),
        ([0, 0, 0, 0], 8, Rule::Unspecified),
        ([127, 0, 0, 0], 8, Rule::Loopback),
        ([10, 0, 0, 0], 8, Rule::PrivateNetwork),
        ([172, 16, 0, 0], 12, Rule::PrivateNetwork),
        ([192, 168, 0, 0], 16, Rule::PrivateNetwork),
        ([169, 254, 0, 0], 16, Rule::LinkLocal),
        ([100, 64, 0, 0], 10, Rule::SharedAddressSpace),
        ([192, 0, 2, 0], 24, Rule::Documentation),
        ([198, 51, 100, 0], 24, Rule::Documentation),
        ([203, 0, 113, 0], 24, Rule::Documentation),
        ([198, 18, 0, 0], 15, Rule::Benchmarking),
        ([224, 0, 0, 0], 4, Rule::Multicast),
        ([240, 0, 0, 0], 4, Rule::Reserved),
        ([192, 0, 0, 0], 24, Rule::Reserved),
        ([192, 88, 99, 0], 24, Rule::Reserved),
    ];
    table
        .iter()
        .find(|(net, prefix, _)| in_v4(ip, *net, *prefix))
        .map(|(_, _, rule)| *rule)
}

fn in_v6(ip: Ipv6Addr, net: Ipv6Addr, prefix: u32) -> bool {
    let mask = u128::MAX.checked_shl(128 - prefix).unwrap_or(0);
    u128::from(ip) & mask == u128::from(net) & mask
}

fn classify_v6(ip: Ipv6Addr) -> Option<Rule> {
    if ip.is_unspecified() {
        return Some(Rule::Unspecified);
    }
    if ip.is_loopback() {
        return Some(Rule::Loopback);
    }
    // An attacker can spell an internal IPv4 address as ::ffff:a.b.c.d or, through a NAT64
    // gateway, 64:ff9b::a.b.c.d; judge the address that would really be reached.
    if let Some(v4) = ip.to_ipv4_mapped() {
        return classify_v4(v4);
    }
    let octets = ip.octets();
    if in_v6(ip, Ipv6Addr::new(0x64, 0xff9b, 0, 0, 0, 0, 0, 0), 96) {
        let v4 = Ipv4Addr::new(octets[12], octets[13], octets[14], octets[15]);
        return classify_v4(v4);
    }
    // Exact metadata endpoints first: both sit inside fc00::/7, which private networks lift.
    const METADATA: [Ipv6Addr; 2] = [
        // AWS (IMDS over IPv6).
        Ipv6Addr::new(0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254),
        // Google Cloud.
        Ipv6Addr::new(0xfd20, 0xce, 0, 0, 0, 0, 0, 0x254),
    ];
    if METADATA.contains(&ip) {
        return Some(Rule::CloudMetadata);
    }
    let table: &[(Ipv6Addr, u32, Rule)] = &[
        (Ipv6Addr::new(0xff00, 0, 0, 0, 0, 0, 0, 0), 8, Rule::Multicast),
        (Ipv6Addr::new(0xfe80, 0, 0, 0, 0, 0, 0, 0), 10, Rule::LinkLocal),
        (Ipv6Addr::new(0xfc00, 0, 0, 0, 0, 0, 0, 0), 7, Rule::UniqueLocal),
        (
            Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 0),
            32,
            Rule::Documentation,
        ),
        (
            Ipv6Addr::new(0x3fff, 0, 0, 0, 0, 0, 0, 0),
            20,
            Rule::Documentation,
        ),
        (
            Ipv6Addr::new(0x2001, 0x2, 0, 0, 0, 0, 0, 0),
            48,
            Rule::Benchmarking,
        ),
        // IETF protocol assignments (Teredo, ORCHID, …), 6to4, SRv6 SIDs.
        (Ipv6Addr::new(0x2001, 0, 0, 0, 0, 0, 0, 0), 23, Rule::Reserved),
        (Ipv6Addr::new(0x2002, 0, 0, 0, 0, 0, 0, 0), 16, Rule::Reserved),
        (Ipv6Addr::new(0x5f00, 0, 0, 0, 0, 0, 0, 0), 16, Rule::Reserved),
    ];
    if let Some((_, _, rule)) = table.iter().find(|(net, prefix, _)| in_v6(ip, *net, *prefix)) {
        return Some(*rule);
    }
    // Only 2000::/3 is global unicast; everything else (IPv4-compatible, discard-only,
    // deprecated site-local, unassigned space) is refused.
    if !in_v6(ip, Ipv6Addr::new(0x2000, 0, 0, 0, 0, 0, 0, 0), 3) {
        return Some(Rule::Reserved);
    }
    None
}

/// Whether `url`'s origin is one of `allowed_origins` (exact `scheme://host[:port]` strings, as
/// `A2A_ALLOWED_AGENT_ORIGINS` normalises them). An empty list allows every origin. The URL's
/// path is irrelevant; an entry that carries a path never matches anything.
pub fn origin_allowed(url: &Url, allowed_origins: &[String]) -> bool {
    if allowed_origins.is_empty() {
        return true;
    }
    let origin = url.origin().ascii_serialization();
    allowed_origins.contains(&origin)
}

/// Admission check run before every outbound request: http(s) only, no credentials, query or
/// fragment, origin allowlisted, and a literal IP host checked here because literal
/// addresses never reach the resolver. A query the gateway adds itself (the REST binding's
/// ListTasks filters) is attached after admission, never part of the URL admitted.
pub fn admit(
    url: &Url,
    allow_private_networks: bool,
    allowed_origins: &[String],
) -> Result<(), GatewayError> {
    if !matches!(url.scheme(), "http" | "https") {
        return Err(GatewayError::InvalidUrl(
            "Agent URLs must use http or https.".into(),
        ));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(GatewayError::InvalidUrl(
            "Agent URLs must not contain credentials.".into(),
        ));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(GatewayError::InvalidUrl(
            "Agent URLs must not contain a query or fragment.".into(),
        ));
    }
    if !origin_allowed(url, allowed_origins) {
        return Err(GatewayError::Refused {
            rule: Rule::OriginNotAllowed,
            target: url.origin().ascii_serialization(),
        });
    }
    let ip = match url.host() {
        Some(Host::Ipv4(v4)) => IpAddr::V4(v4),
        Some(Host::Ipv6(v6)) => IpAddr::V6(v6),
        Some(Host::Domain(_)) => return Ok(()),
        None => return Err(GatewayError::InvalidUrl("Agent URLs must name a host.".into())),
    };
    check_ip(ip, allow_private_networks).map_err(|rule| GatewayError::Refused {
        rule,
        target: ip.to_string(),
    })
}

/// A resolved address the resolver refused; carried through reqwest's error chain and turned
/// back into [`GatewayError::Refused`].
#[derive(Debug, thiserror::Error)]
#[error("{host} resolves to {ip}: {rule}")]
pub(crate) struct RefusedAddress {
    pub host: String,
    pub ip: IpAddr,
    pub rule: Rule,
}

/// The DNS resolver of the one agent client: resolves with the system resolver (tokio's
/// blocking pool) inside reqwest's connect step and refuses the whole connection if any answer
/// is disallowed, so the addresses connected to are exactly those checked.
#[derive(Clone, Copy, Debug)]
pub(crate) struct GuardedResolver {
    pub allow_private_networks: bool,
}

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        Box::pin(resolve_checked(
            name.as_str().to_owned(),
            self.allow_private_networks,
        ))
    }
}

type BoxError = Box<dyn std::error::Error + Send + Sync>;

async fn resolve_checked(host: String, allow_private_networks: bool) -> Result<Addrs, BoxError> {
    let addrs: Vec<SocketAddr> = tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
    let addrs = check_answer(host, addrs, allow_private_networks)?;
    Ok(Box::new(addrs.into_iter()))
}

/// The policy half of the resolver, apart from the lookup so it can be tested with any
/// answer: the addresses `host` resolved to, all of them, or the first refused one.
fn check_answer(
    host: String,
    addrs: Vec<SocketAddr>,
    allow_private_networks: bool,
) -> Result<Vec<SocketAddr>, BoxError> {
    if addrs.is_empty() {
        return Err(format!("{host} did not resolve to any address").into());
    }
    // One disallowed answer refuses the name: connecting only to the allowed ones would let a
    // mixed answer probe which internal addresses are reachable.
    let refused = addrs.iter().find_map(|addr| {
        check_ip(addr.ip(), allow_private_networks)
            .err()
            .map(|rule| (addr.ip(), rule))
    });
    if let Some((ip, rule)) = refused {
        return Err(Box::new(RefusedAddress { host, ip, rule }));
    }
    Ok(addrs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn every_blocked_range_is_refused_with_its_rule() {
        let cases = [
            ("127.0.0.1", Rule::Loopback),
            ("127.255.0.9", Rule::Loopback),
            ("10.0.0.1", Rule::PrivateNetwork),
            ("10.255.255.255", Rule::PrivateNetwork),
            ("172.16.0.1", Rule::PrivateNetwork),
            ("172.31.255.254", Rule::PrivateNetwork),
            ("192.168.1.1", Rule::PrivateNetwork),
            ("100.64.0.1", Rule::SharedAddressSpace),
            ("100.127.255.255", Rule::SharedAddressSpace),
            ("169.254.169.254", Rule::CloudMetadata),
            ("100.100.100.200", Rule::CloudMetadata),
            ("168.63.129.16", Rule::CloudMetadata),
            ("169.254.1.1", Rule::LinkLocal),
            ("0.0.0.0", Rule::Unspecified),
            ("0.1.2.3", Rule::Unspecified),
            ("224.0.0.1", Rule::Multicast),
            ("239.255.255.250", Rule::Multicast),
            ("240.0.0.1", Rule::Reserved),
            ("255.255.255.255", Rule::Broadcast),
            ("192.0.2.1", Rule::Documentation),
            ("198.51.100.7", Rule::Documentation),
            ("203.0.113.9", Rule::Documentation),
            ("198.18.0.1", Rule::Benchmarking),
            ("198.19.255.255", Rule::Benchmarking),
            ("192.0.0.8", Rule::Reserved),
            ("::1", Rule::Loopback),
            ("::", Rule::Unspecified),
            ("fe80::1", Rule::LinkLocal),
            ("fc00::1", Rule::UniqueLocal),
            ("fd12:3456::1", Rule::UniqueLocal),
            ("fd00:ec2::254", Rule::CloudMetadata),
            ("fd20:ce::254", Rule::CloudMetadata),
            ("ff02::1", Rule::Multicast),
            ("::ffff:169.254.169.254", Rule::CloudMetadata),
            ("::ffff:127.0.0.1", Rule::Loopback),
            ("::ffff:10.1.2.3", Rule::PrivateNetwork),
            ("64:ff9b::a9fe:a9fe", Rule::CloudMetadata),
            ("2001:db8::1", Rule::Documentation),
            ("3fff::1", Rule::Documentation),
            ("2001::1", Rule::Reserved),
            ("2002:c000:0204::1", Rule::Reserved),
            ("fec0::1", Rule::Reserved),
            ("::1.2.3.4", Rule::Reserved),
            ("100::1", Rule::Reserved),
        ];
        for (addr, rule) in cases {
            assert_eq!(classify(ip(addr)), Some(rule), "{addr}");
            assert_eq!(check_ip(ip(addr), false), Err(rule), "{addr}");
        }
    }

    #[test]
    fn global_unicast_addresses_pass() {
        for addr in [
            "1.1.1.1",
            "8.8.8.8",
            "93.184.216.34",
            "172.32.0.1",
            "100.128.0.1",
            "169.253.255.255",
            "2606:4700:4700::1111",
            "2a00:1450:4001::200e",
            "::ffff:8.8.8.8",
            "64:ff9b::808:808",
        ] {
            assert_eq!(classify(ip(addr)), None, "{addr}");
            assert_eq!(check_ip(ip(addr), false), Ok(()), "{addr}");
        }
    }

    #[test]
    fn private_networks_opt_in_lifts_only_loopback_private_and_unique_local() {
        for addr in [
            "127.0.0.1",
            "10.1.1.1",
            "172.16.5.5",
            "192.168.0.10",
            "::1",
            "fc00::1",
            "::ffff:127.0.0.1",
        ] {
            assert_eq!(check_ip(ip(addr), true), Ok(()), "{addr}");
        }
        for (addr, rule) in [
            ("169.254.169.254", Rule::CloudMetadata),
            ("169.254.10.10", Rule::LinkLocal),
            ("fe80::1", Rule::LinkLocal),
            ("fd00:ec2::254", Rule::CloudMetadata),
            ("fd20:ce::254", Rule::CloudMetadata),
            ("::ffff:169.254.169.254", Rule::CloudMetadata),
            ("100.64.0.1", Rule::SharedAddressSpace),
            ("224.0.0.1", Rule::Multicast),
            ("0.0.0.0", Rule::Unspecified),
            ("240.0.0.1", Rule::Reserved),
        ] {
            assert_eq!(check_ip(ip(addr), true), Err(rule), "{addr}");
        }
    }

    #[test]
    fn rule_messages_name_the_rule_and_the_switch() {
        assert!(
            Rule::Loopback
                .to_string()
                .contains("A2A_ALLOW_PRIVATE_NETWORKS=true")
        );
        assert!(Rule::CloudMetadata.to_string().contains("always blocked"));
        assert!(
            Rule::OriginNotAllowed
                .to_string()
                .contains("A2A_ALLOWED_AGENT_ORIGINS")
        );
    }

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn allowlist_is_exact_on_scheme_host_and_port() {
        let allowed = vec![
            "http://127.0.0.1:4010".to_owned(),
            "https://agent.example".to_owned(),
        ];
        assert!(origin_allowed(&url("http://127.0.0.1:4010/a2a/v1"), &allowed));
        assert!(origin_allowed(&url("https://agent.example/x/y"), &allowed));
        assert!(origin_allowed(&url("https://agent.example:443/"), &allowed));
        assert!(
            !origin_allowed(&url("https://127.0.0.1:4010/"), &allowed),
            "scheme"
        );
        assert!(!origin_allowed(&url("http://127.0.0.1:4011/"), &allowed), "port");
        assert!(!origin_allowed(&url("http://localhost:4010/"), &allowed), "host");
        assert!(
            !origin_allowed(&url("https://agent.example:8443/"), &allowed),
            "port"
        );
        assert!(
            !origin_allowed(&url("https://evil.agent.example/"), &allowed),
            "subdomain"
        );
        assert!(!origin_allowed(&url("http://agent.example/"), &allowed), "scheme");
    }

    #[test]
    fn allowlist_entries_with_a_path_match_nothing() {
        let allowed = vec!["https://agent.example/a2a".to_owned()];
        assert!(!origin_allowed(&url("https://agent.example/a2a"), &allowed));
        assert!(!origin_allowed(&url("https://agent.example/"), &allowed));
    }

    #[test]
    fn empty_allowlist_allows_any_origin() {
        assert!(origin_allowed(&url("https://anything.example/"), &[]));
    }

    #[test]
    fn admission_checks_literal_addresses_and_the_allowlist() {
        let refused = |u: &str, private: bool, allowed: &[String]| match admit(&url(u), private, allowed) {
            Err(GatewayError::Refused { rule, .. }) => Some(rule),
            Err(other) => panic!("{u}: unexpected {other:?}"),
            Ok(()) => None,
        };
        assert_eq!(
            refused("http://127.0.0.1:8080/", false, &[]),
            Some(Rule::Loopback)
        );
        assert_eq!(refused("http://127.0.0.1:8080/", true, &[]), None);
        // The URL parser normalises decimal and hex spellings to the real address.
        assert_eq!(refused("http://2130706433/", false, &[]), Some(Rule::Loopback));
        assert_eq!(
            refused("http://0xa9fea9fe/", true, &[]),
            Some(Rule::CloudMetadata)
        );
        assert_eq!(
            refused("http://[::ffff:169.254.169.254]/", true, &[]),
            Some(Rule::CloudMetadata)
        );
        assert_eq!(refused("http://[fe80::1]/", true, &[]), Some(Rule::LinkLocal));
        assert_eq!(
            refused("http://[fd20:ce::254]/", true, &[]),
            Some(Rule::CloudMetadata)
        );
        assert_eq!(refused("https://agent.example/", false, &[]), None);
        let allowed = vec!["https://agent.example".to_owned()];
        assert_eq!(
            refused("https://other.example/", false, &allowed),
            Some(Rule::OriginNotAllowed)
        );
        assert_eq!(refused("https://agent.example/a2a", false, &allowed), None);
    }

    #[test]
    fn admission_refuses_other_schemes_and_credentials() {
        for u in [
            "ftp://agent.example/",
            "http://user:pw@agent.example/",
            "http://agent.example/#x",
            "http://agent.example/a2a?x=1",
            "http://agent.example/a2a?",
        ] {
            assert!(
                matches!(admit(&url(u), true, &[]), Err(GatewayError::InvalidUrl(_))),
                "{u}"
            );
        }
        match admit(&url("https://agent.example/card?x=1"), false, &[]) {
            Err(GatewayError::InvalidUrl(message)) => assert!(message.contains("query"), "{message}"),
            other => panic!("unexpected {other:?}"),
        }
    }

    fn answer(addrs: &[&str]) -> Vec<SocketAddr> {
        addrs.iter().map(|a| SocketAddr::new(ip(a), 0)).collect()
    }

    #[test]
    fn a_mixed_answer_is_refused_whole() {
        let err = check_answer(
            "mixed.example".into(),
            answer(&["93.184.216.34", "10.0.0.5", "2606:4700:4700::1111"]),
            false,
        )
        .unwrap_err();
        let refused = err.downcast_ref::<RefusedAddress>().expect("a RefusedAddress");
        assert_eq!(refused.ip, ip("10.0.0.5"));
        assert_eq!(refused.rule, Rule::PrivateNetwork);
        assert_eq!(refused.host, "mixed.example");
        let err =
            check_answer("meta.example".into(), answer(&["8.8.8.8", "fd20:ce::254"]), true).unwrap_err();
        assert_eq!(
            err.downcast_ref::<RefusedAddress>().unwrap().rule,
            Rule::CloudMetadata
        );
    }

    #[test]
    fn an_all_public_answer_passes_unchanged() {
        let addrs = answer(&["93.184.216.34", "8.8.8.8", "2606:4700:4700::1111"]);
        assert_eq!(
            check_answer("public.example".into(), addrs.clone(), false).unwrap(),
            addrs
        );
        assert!(check_answer("empty.example".into(), Vec::new(), true).is_err());
    }

    #[tokio::test]
    async fn resolver_refuses_a_name_with_a_disallowed_answer() {
        let resolver = GuardedResolver {
            allow_private_networks: false,
        };
        let err = resolver
            .resolve("localhost".parse().unwrap())
            .await
            .err()
            .unwrap();
        let refused = err.downcast_ref::<RefusedAddress>().expect("a RefusedAddress");
        assert_eq!(refused.rule, Rule::Loopback);

        let permissive = GuardedResolver {
            allow_private_networks: true,
        };
        let addrs: Vec<_> = permissive
            .resolve("localhost".parse().unwrap())
            .await
            .unwrap()
            .collect();
        assert!(addrs.iter().all(|a| a.ip().is_loopback()), "{addrs:?}");
    }
}
