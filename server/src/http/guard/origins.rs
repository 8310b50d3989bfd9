//! [`ConsoleOrigins`]: the names the console answers to, and the origins its own pages have.
//!
//! In development the console listens on loopback only, so its names are the loopback names
//! (`localhost`, `127.0.0.1`, `[::1]` and the bound address itself) with the bound port. When
//! `A2A_AUTH_ORIGIN` is set (a reverse proxy in front), that origin is one of them too
//! (`shared/spec/reference.md` §5). Anything else in `Host` is a DNS-rebinding page or a
//! misrouted request (issue #26).

use std::net::SocketAddr;

use axum::http::uri::Authority;

/// One origin of the console: scheme, lower-case host (IPv6 in brackets) and port.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Own {
    scheme: &'static str,
    host: String,
    port: u16,
}

impl Own {
    fn serialization(&self) -> String {
        let default = if self.scheme == "https" { 443 } else { 80 };
        if self.port == default {
            format!("{}://{}", self.scheme, self.host)
        } else {
            format!("{}://{}:{}", self.scheme, self.host, self.port)
        }
    }
}

/// The console's own origins.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConsoleOrigins {
    own: Vec<Own>,
    /// `A2A_PUSH_CALLBACK_ORIGIN` when it is not one of `own`: answered on the push receiver
    /// only ([`ConsoleOrigins::answers_push_to`]), never for pages, the API or as an `Origin`.
    push: Option<Own>,
}

const LOOPBACK_NAMES: [&str; 3] = ["localhost", "127.0.0.1", "[::1]"];

impl ConsoleOrigins {
    /// The origins of a console bound at `bound`, plus `public` (an exact origin, as
    /// `config::exact_origin` returns it) when set.
    pub fn new(bound: SocketAddr, public: Option<&str>) -> ConsoleOrigins {
        let mut own = Vec::new();
        if bound.ip().is_loopback() || bound.ip().is_unspecified() {
            let bound_name = match bound {
                SocketAddr::V4(v4) => v4.ip().to_string(),
                SocketAddr::V6(v6) => format!("[{}]", v6.ip()),
            };
            for name in LOOPBACK_NAMES.into_iter().map(str::to_owned).chain([bound_name]) {
                let candidate = Own {
                    scheme: "http",
                    host: name,
                    port: bound.port(),
                };
                if !own.contains(&candidate) {
                    own.push(candidate);
                }
            }
        }
        let origins = ConsoleOrigins { own, push: None };
        match public {
            Some(origin) => origins.also(origin),
            None => origins,
        }
    }

    fn parse(origin: &str) -> Option<Own> {
        let url = url::Url::parse(origin).ok()?;
        Some(Own {
            scheme: if url.scheme() == "https" { "https" } else { "http" },
            host: url.host_str()?.to_ascii_lowercase(),
            port: url.port_or_known_default()?,
        })
    }

    /// These origins and `origin` (an exact origin: `A2A_AUTH_ORIGIN`, the one people use).
    pub fn also(mut self, origin: &str) -> ConsoleOrigins {
        if let Some(candidate) = Self::parse(origin)
            && !self.own.contains(&candidate)
        {
            self.own.push(candidate);
        }
        self
    }

    /// These origins, and `origin` (`A2A_PUSH_CALLBACK_ORIGIN`) for the push receiver alone:
    /// agents deliver there, and nothing else of the console answers on it.
    pub fn with_push(mut self, origin: &str) -> ConsoleOrigins {
        self.push = Self::parse(origin).filter(|candidate| !self.own.contains(candidate));
        self
    }

    /// Whether `host` names the push callback origin (or the console).
    pub fn answers_push_to(&self, host: &str) -> bool {
        self.answers_to(host) || self.push.as_ref().is_some_and(|push| Self::names(push, host))
    }

    fn names(own: &Own, host: &str) -> bool {
        let Ok(authority) = host.trim().parse::<Authority>() else {
            return false;
        };
        if authority.as_str().contains('@') {
            return false;
        }
        let default = if own.scheme == "https" { 443 } else { 80 };
        own.host == authority.host().to_ascii_lowercase()
            && own.port == authority.port_u16().unwrap_or(default)
    }

    /// Whether `host` (a `Host` header or a URI authority) names the console.
    pub fn answers_to(&self, host: &str) -> bool {
        let Ok(authority) = host.trim().parse::<Authority>() else {
            return false;
        };
        if authority.as_str().contains('@') {
            return false;
        }
        let name = authority.host().to_ascii_lowercase();
        self.own.iter().any(|own| {
            let default = if own.scheme == "https" { 443 } else { 80 };
            own.host == name && own.port == authority.port_u16().unwrap_or(default)
        })
    }

    /// Whether `origin` (an `Origin` header) is exactly one of the console's origins.
    pub fn is_own_origin(&self, origin: &str) -> bool {
        let origin = origin.trim();
        self.own.iter().any(|own| own.serialization() == origin)
    }

    /// The console's origins, for messages and documentation.
    pub fn list(&self) -> Vec<String> {
        self.own.iter().map(Own::serialization).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dev() -> ConsoleOrigins {
        ConsoleOrigins::new("127.0.0.1:3002".parse().unwrap(), None)
    }

    #[test]
    fn development_answers_to_the_loopback_names_on_the_bound_port_only() {
        let origins = dev();
        for host in ["127.0.0.1:3002", "localhost:3002", "LOCALHOST:3002", "[::1]:3002"] {
            assert!(origins.answers_to(host), "{host}");
        }
        for host in [
            "evil.example:3002",
            "127.0.0.1:3003",
            "127.0.0.1",
            "localhost",
            "127.0.0.2:3002",
            "localhost.:3002",
            "user@127.0.0.1:3002",
            "",
            "127.0.0.1:3002/x",
            "0x7f.0.0.1:3002",
        ] {
            assert!(!origins.answers_to(host), "{host}");
        }
    }

    #[test]
    fn the_bound_address_is_one_of_the_names() {
        let origins = ConsoleOrigins::new("127.0.0.2:8080".parse().unwrap(), None);
        assert!(origins.answers_to("127.0.0.2:8080"));
        assert!(origins.answers_to("localhost:8080"));
        let v6 = ConsoleOrigins::new("[::1]:8080".parse().unwrap(), None);
        assert!(v6.answers_to("[::1]:8080"));
        assert_eq!(
            v6.list(),
            [
                "http://localhost:8080",
                "http://127.0.0.1:8080",
                "http://[::1]:8080"
            ]
        );
    }

    #[test]
    fn the_public_origin_is_an_own_origin_with_its_default_port() {
        let origins = ConsoleOrigins::new("127.0.0.1:3002".parse().unwrap(), Some("https://taskbay.example"));
        assert!(origins.answers_to("taskbay.example"));
        assert!(origins.answers_to("taskbay.example:443"));
        assert!(!origins.answers_to("taskbay.example:3002"));
        assert!(origins.is_own_origin("https://taskbay.example"));
        assert!(!origins.is_own_origin("http://taskbay.example"));
        assert!(!origins.is_own_origin("https://taskbay.example:443/"));
    }

    #[test]
    fn an_origin_must_match_exactly() {
        let origins = dev();
        assert!(origins.is_own_origin("http://127.0.0.1:3002"));
        assert!(origins.is_own_origin("http://localhost:3002"));
        for origin in [
            "https://127.0.0.1:3002",
            "http://127.0.0.1:3003",
            "http://127.0.0.1:3002/",
            "http://evil.example:3002",
            "null",
            "",
        ] {
            assert!(!origins.is_own_origin(origin), "{origin}");
        }
    }
}
