//! The interface-origin rule (issue #26, "Interface URLs are not tied to the card"): the card
//! names the interfaces the console POSTs to, and is fetched again on every view, so an agent
//! on the internet could aim the console at `127.0.0.1:*` or 10.x whenever
//! `A2A_ALLOW_PRIVATE_NETWORKS=true`. An interface on the card's own origin is governed by the
//! global policy alone ([`super::ssrf`]); one on another origin is used only when
//!
//! - that origin is in `A2A_ALLOWED_AGENT_ORIGINS` (when the allowlist is set), and
//! - it is not in a private, loopback or other internal range, unless the card's own origin is.
//!
//! [`check`] is the pure rule; [`classify_origin`] says where an origin's host lies (literal
//! addresses directly, names through the system resolver).

use std::fmt;
use std::net::IpAddr;

use url::{Host, Url};

use super::ssrf::{classify, origin_allowed};

/// Where an origin's host lies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NetClass {
    /// Only global unicast addresses.
    Public,
    /// Only loopback, private or other non-global addresses.
    Internal,
    /// A name with both kinds of answer. For the card's origin it counts as public (one extra
    /// private record must not let a card aim the console inside); for an interface's as
    /// internal (issue #26 review).
    Mixed,
}

/// Why an interface on another origin than the card is not used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InterfaceRefusal {
    /// The interface's origin is not in `A2A_ALLOWED_AGENT_ORIGINS`.
    NotAllowlisted { interface: String },
    /// The interface's origin is internal while the card's is public.
    InternalFromPublicCard { interface: String },
}

impl fmt::Display for InterfaceRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InterfaceRefusal::NotAllowlisted { interface } => write!(
                f,
                "{interface} is on another origin than the Agent Card and not in the origin allowlist \
                 (A2A_ALLOWED_AGENT_ORIGINS)."
            ),
            InterfaceRefusal::InternalFromPublicCard { interface } => write!(
                f,
                "{interface} is on another origin than the Agent Card and in a private or loopback range, \
                 while the card's origin is not."
            ),
        }
    }
}

/// The rule: whether the console may use `interface`, advertised by the card served from
/// `card`, given where each origin lies and the configured allowlist.
pub fn check(
    card: &Url,
    card_class: NetClass,
    interface: &Url,
    interface_class: NetClass,
    allowed_origins: &[String],
) -> Result<(), InterfaceRefusal> {
    if card.origin() == interface.origin() {
        return Ok(());
    }
    let shown = interface.origin().ascii_serialization();
    if !origin_allowed(interface, allowed_origins) {
        return Err(InterfaceRefusal::NotAllowlisted { interface: shown });
    }
    if interface_class != NetClass::Public && card_class != NetClass::Internal {
        return Err(InterfaceRefusal::InternalFromPublicCard { interface: shown });
    }
    Ok(())
}

/// Where `ip` lies: anything [`classify`] names (loopback, private, link-local, …) is internal.
pub fn class_of_ip(ip: IpAddr) -> NetClass {
    match classify(ip) {
        None => NetClass::Public,
        Some(_) => NetClass::Internal,
    }
}

/// Where the host of `url` lies without a lookup: literal addresses and `localhost` names;
/// `None` for other names.
pub fn literal_class(url: &Url) -> Option<NetClass> {
    match url.host()? {
        Host::Ipv4(v4) => Some(class_of_ip(IpAddr::V4(v4))),
        Host::Ipv6(v6) => Some(class_of_ip(IpAddr::V6(v6))),
        Host::Domain(name) => {
            let name = name.trim_end_matches('.').to_ascii_lowercase();
            (name == "localhost" || name.ends_with(".localhost")).then_some(NetClass::Internal)
        }
    }
}

/// Where the host of `url` lies: literal addresses directly, names through the system
/// resolver ([`NetClass::Mixed`] when the answers are of both kinds). A name that does not resolve counts as public, the
/// stricter answer for a card's origin; such an interface cannot be reached anyway.
pub async fn classify_origin(url: Url) -> NetClass {
    if let Some(class) = literal_class(&url) {
        return class;
    }
    let (Some(host), Some(port)) = (url.host_str(), url.port_or_known_default()) else {
        return NetClass::Public;
    };
    match tokio::net::lookup_host((host, port)).await {
        Ok(addrs) => {
            let mut addrs = addrs.peekable();
            if addrs.peek().is_none() {
                return NetClass::Public;
            }
            let (mut public, mut internal) = (false, false);
            for addr in addrs {
                match class_of_ip(addr.ip()) {
                    NetClass::Public => public = true,
                    _ => internal = true,
                }
            }
            match (public, internal) {
                (true, true) => NetClass::Mixed,
                (false, true) => NetClass::Internal,
                _ => NetClass::Public,
            }
        }
        Err(_) => NetClass::Public,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::NetClass::{Internal, Mixed, Public};
    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap()
    }

    #[test]
    fn a_public_card_may_not_aim_at_an_internal_interface_issue_26() {
        let card = url("https://agent.example/.well-known/agent-card.json");
        for internal in [
            "http://127.0.0.1:8080/a2a",
            "http://10.0.0.5/a2a",
            "http://[::1]:9/x",
        ] {
            assert_eq!(
                check(&card, Public, &url(internal), Internal, &[]),
                Err(InterfaceRefusal::InternalFromPublicCard {
                    interface: url(internal).origin().ascii_serialization()
                }),
                "{internal}"
            );
        }
        let refusal = check(&card, Public, &url("http://10.0.0.5/a2a"), Internal, &[]).unwrap_err();
        assert_eq!(
            refusal.to_string(),
            "http://10.0.0.5 is on another origin than the Agent Card and in a private or loopback range, \
             while the card's origin is not."
        );
    }

    #[test]
    fn an_internal_card_may_aim_at_another_internal_origin_issue_26() {
        let card = url("http://127.0.0.1:4010/card.json");
        assert_eq!(
            check(&card, Internal, &url("http://127.0.0.1:4011/a2a"), Internal, &[]),
            Ok(())
        );
        assert_eq!(
            check(&card, Internal, &url("http://10.1.2.3/a2a"), Internal, &[]),
            Ok(())
        );
    }

    /// A card host with one extra private record is still a public card, and an interface
    /// host with any private answer is an internal interface (issue #26 review).
    #[test]
    fn names_with_public_and_private_answers_never_open_the_inside() {
        let card = url("https://agent.example/card.json");
        let inside = url("http://127.0.0.1:5432/a2a");
        for (card_class, interface_class) in [(Mixed, Internal), (Public, Mixed), (Mixed, Mixed)] {
            assert!(
                matches!(
                    check(&card, card_class, &inside, interface_class, &[]),
                    Err(InterfaceRefusal::InternalFromPublicCard { .. })
                ),
                "{card_class:?} card, {interface_class:?} interface"
            );
        }
        assert_eq!(check(&card, Internal, &inside, Mixed, &[]), Ok(()));
    }

    #[test]
    fn the_same_origin_is_left_to_the_global_policy_issue_26() {
        let card = url("https://agent.example/card.json");
        assert_eq!(
            check(&card, Public, &url("https://agent.example/a2a"), Internal, &[]),
            Ok(())
        );
        let allowlist = ["https://elsewhere.example".to_owned()];
        assert_eq!(
            check(
                &card,
                Public,
                &url("https://agent.example:443/rpc"),
                Public,
                &allowlist
            ),
            Ok(()),
            "the allowlist on the card's own origin is the gateway's business"
        );
    }

    #[test]
    fn another_public_origin_is_used_only_when_allowlisted_issue_26() {
        let card = url("https://agent.example/card.json");
        let api = url("https://api.example/a2a");
        assert_eq!(
            check(&card, Public, &api, Public, &[]),
            Ok(()),
            "no allowlist set"
        );
        let allowlist = [
            "https://agent.example".to_owned(),
            "https://api.example".to_owned(),
        ];
        assert_eq!(check(&card, Public, &api, Public, &allowlist), Ok(()));
        let only_card = ["https://agent.example".to_owned()];
        let refusal = check(&card, Public, &api, Public, &only_card).unwrap_err();
        assert_eq!(
            refusal,
            InterfaceRefusal::NotAllowlisted {
                interface: "https://api.example".into()
            }
        );
        assert_eq!(
            refusal.to_string(),
            "https://api.example is on another origin than the Agent Card and not in the origin allowlist \
             (A2A_ALLOWED_AGENT_ORIGINS)."
        );
        // An allowlisted internal origin is still refused to a public card.
        let internal = ["http://10.0.0.5".to_owned()];
        assert!(matches!(
            check(&card, Public, &url("http://10.0.0.5/a2a"), Internal, &internal),
            Err(InterfaceRefusal::InternalFromPublicCard { .. })
        ));
    }

    #[test]
    fn literal_hosts_are_classified_without_a_lookup() {
        assert_eq!(literal_class(&url("http://127.0.0.1:1/")), Some(Internal));
        assert_eq!(literal_class(&url("http://10.0.0.5/")), Some(Internal));
        assert_eq!(literal_class(&url("http://[fd00::1]/")), Some(Internal));
        assert_eq!(
            literal_class(&url("http://[::ffff:192.168.0.1]/")),
            Some(Internal)
        );
        assert_eq!(literal_class(&url("http://localhost:3000/")), Some(Internal));
        assert_eq!(literal_class(&url("http://api.LOCALHOST./")), Some(Internal));
        assert_eq!(literal_class(&url("https://8.8.8.8/")), Some(Public));
        assert_eq!(literal_class(&url("https://agent.example/")), None);
    }

    #[tokio::test]
    async fn literal_origins_are_classified_without_the_resolver() {
        assert_eq!(classify_origin(url("http://127.0.0.1:9/")).await, Internal);
        assert_eq!(classify_origin(url("http://localhost:9/")).await, Internal);
        assert_eq!(classify_origin(url("https://8.8.8.8/")).await, Public);
    }
}
