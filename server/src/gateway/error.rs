//! [`GatewayError`]: the one error type of the gateway. Every variant is something a caller acts
//! on (refuse and show the rule, retry later, fall back to another operation, show the agent's
//! own error). Messages are safe to show an operator: they never carry headers, bodies or
//! credentials; the underlying transport error is kept as `source` for logs only.

use app::a2a::{ErrorCode, JsonRpcError, RestError};
use serde_json::Value;

use super::ssrf::Rule;

/// Why a call to an agent did not produce a result.
#[derive(Debug, thiserror::Error)]
pub enum GatewayError {
    /// The URL is not one the gateway may call (scheme, credentials, length, query…).
    #[error("{0}")]
    InvalidUrl(String),
    /// The params lack something the binding needs (a task id for a REST path…).
    #[error("{0}")]
    InvalidParams(String),
    /// The outbound safety policy refused the destination; `rule` says which rule. `target`
    /// is what the caller named (origin, literal address or host name), never a DNS answer.
    #[error("Agent destination {target} is not permitted: {rule}.")]
    Refused {
        rule: Rule,
        /// The origin, literal address or host name that was refused.
        target: String,
    },
    /// The agent answered with a 3xx; redirects are never followed.
    #[error("Agent redirects are not permitted.")]
    Redirect {
        /// The HTTP status (301, 302, 307…).
        status: u16,
    },
    /// No answer (or no next stream chunk) within the timeout.
    #[error("Agent did not answer within {seconds} s.")]
    Timeout { seconds: u64 },
    /// The response (or the card) exceeded its size cap and was cut off.
    #[error("Agent response exceeds the safety limit ({limit} bytes).")]
    TooLarge { limit: usize },
    /// The agent answered with a non-2xx HTTP status (REST errors, or a JSON-RPC endpoint that
    /// failed at the HTTP level).
    #[error("Agent answered HTTP {status}.")]
    Http {
        status: u16,
        /// The JSON body, if there was one (for REST a `google.rpc.Status` under `error`).
        body: Option<Value>,
    },
    /// The agent answered with a JSON-RPC error object (A2A codes in `-32001..=-32009`),
    /// decoded by the wire model.
    #[error("Agent error {}: {}", .0.code, .0.message)]
    JsonRpc(JsonRpcError),
    /// The operation does not exist for the chosen binding and version (ListTasks over
    /// 0.3 JSON-RPC).
    #[error("{operation} is not available over {binding}.")]
    Unsupported {
        operation: &'static str,
        binding: &'static str,
    },
    /// The agent's answer is not what the protocol requires (not JSON, not an object, a
    /// JSON-RPC envelope without result…).
    #[error("Agent response is invalid: {0}")]
    Decode(String),
    /// Every discovery candidate failed; lists the URLs tried, in order.
    #[error("Agent Card discovery failed. Tried: {}", tried.join(", "))]
    DiscoveryFailed { tried: Vec<String> },
    /// Connection or protocol failure below HTTP (refused, reset, TLS).
    #[error("Agent network request failed.")]
    Transport(#[source] reqwest::Error),
    /// The HTTP client could not be built (TLS configuration).
    #[error("Agent client could not be built.")]
    Build(#[source] reqwest::Error),
    /// `A2A_EXTRA_CA_CERTS` cannot be read or holds no usable certificate.
    #[error("A2A_EXTRA_CA_CERTS: {0}")]
    ExtraCa(String),
    /// The agent's credential cannot be used for this call; nothing was sent anonymously
    /// (`shared/spec/security-and-durability.md` §2.2, §2.3).
    #[error(transparent)]
    Credential(#[from] CredentialFailure),
    /// The card is untrusted or invalid, or unsigned while signatures are required (§2.4).
    #[error("Agent Card trust policy rejected this connection.")]
    CardTrust,
}

/// Why a credentialed call was not made (or its credential not obtained). Each message is fixed:
/// none carries a value, a key id or the underlying cause.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CredentialFailure {
    /// The vault cannot open the binding (no key ring, unknown key id, copied ciphertext…).
    #[error("Credential vault unavailable.")]
    VaultUnavailable,
    /// The binding was revoked.
    #[error("Agent credentials are disabled.")]
    Disabled,
    /// A request would go to an origin the binding does not list (§2.3 step 3).
    #[error("Agent credential destination is not permitted.")]
    Destination,
    /// The card requires a security scheme and the agent has no credential (issue #30).
    #[error("{}", app::api::credentials::NEEDS_CREDENTIALS)]
    Needed,
    /// The OAuth token endpoint's origin is not allowed (§2.1).
    #[error("The OAuth token endpoint is not in the configured origin allowlist.")]
    TokenEndpointRefused,
    /// The token endpoint refused, failed, or answered something other than a Bearer token.
    #[error("Agent credential exchange failed.")]
    TokenExchange,
    /// The client certificate, its key or the CA could not be used.
    #[error("Agent client certificate is unusable.")]
    ClientCertificate,
}

impl From<crate::vault::VaultError> for CredentialFailure {
    fn from(error: crate::vault::VaultError) -> CredentialFailure {
        match error {
            crate::vault::VaultError::Unavailable => CredentialFailure::VaultUnavailable,
            crate::vault::VaultError::Disabled => CredentialFailure::Disabled,
        }
    }
}

impl GatewayError {
    /// The A2A error the agent reported: the JSON-RPC code, or for a REST error body its
    /// `ErrorInfo.reason` or 0.3 `code`, or what its 4xx/501 status stands for
    /// ([`RestError::kind_for_status`]). `None` for every other failure, so a `Some` means the
    /// agent refused the request.
    pub fn kind(&self) -> Option<ErrorCode> {
        match self {
            GatewayError::JsonRpc(error) => Some(error.kind()),
            GatewayError::Http { status, .. } => self.rest_error()?.kind_for_status(*status),
            _ => None,
        }
    }

    /// The A2A error reason (`TASK_NOT_FOUND`, `UNSUPPORTED_OPERATION`…) carried in a 1.0
    /// `google.rpc.ErrorInfo`, from either a JSON-RPC `data` array or a REST error body.
    pub fn reason(&self) -> Option<String> {
        match self {
            GatewayError::JsonRpc(error) => error.reason(),
            _ => self.rest_error()?.reason,
        }
    }

    fn rest_error(&self) -> Option<RestError> {
        match self {
            GatewayError::Http { body: Some(body), .. } => RestError::decode(body),
            _ => None,
        }
    }
}

/// Turns a reqwest failure into the variant the caller acts on: a refusal from the resolver
/// (found in the error's source chain), a timeout, or a plain transport failure.
pub(crate) fn from_reqwest(error: reqwest::Error, timeout_seconds: u64) -> GatewayError {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(&error);
    while let Some(current) = source {
        if let Some(refused) = current.downcast_ref::<super::ssrf::RefusedAddress>() {
            // The message names the rule and the host the caller asked for, never what DNS
            // answered: an internal address is not the caller's business (issue #26).
            tracing::debug!(host = %refused.host, ip = %refused.ip, rule = ?refused.rule, "agent destination refused");
            return GatewayError::Refused {
                rule: refused.rule,
                target: refused.host.clone(),
            };
        }
        source = current.source();
    }
    if error.is_timeout() {
        return GatewayError::Timeout {
            seconds: timeout_seconds,
        };
    }
    GatewayError::Transport(error)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn messages_match_the_spec_strings() {
        assert_eq!(
            GatewayError::Redirect { status: 302 }.to_string(),
            "Agent redirects are not permitted."
        );
        assert_eq!(
            GatewayError::DiscoveryFailed {
                tried: vec!["http://a/x".into(), "http://a/y".into()]
            }
            .to_string(),
            "Agent Card discovery failed. Tried: http://a/x, http://a/y"
        );
        let refused = GatewayError::Refused {
            rule: Rule::CloudMetadata,
            target: "169.254.169.254".into(),
        };
        assert_eq!(
            refused.to_string(),
            "Agent destination 169.254.169.254 is not permitted: cloud metadata addresses are always blocked."
        );
    }

    #[test]
    fn reason_is_read_from_json_rpc_data_and_rest_details() {
        let rpc = GatewayError::JsonRpc(JsonRpcError {
            code: -32001,
            message: "Task not found".into(),
            data: Some(
                json!([{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "TASK_NOT_FOUND"}]),
            ),
        });
        assert_eq!(rpc.reason().as_deref(), Some("TASK_NOT_FOUND"));
        assert_eq!(rpc.kind(), Some(ErrorCode::TaskNotFound));
        assert_eq!(rpc.to_string(), "Agent error -32001: Task not found");
        let rest = GatewayError::Http {
            status: 404,
            body: Some(json!({"error": {"code": 404, "details": [{"reason": "TASK_NOT_FOUND"}]}})),
        };
        assert_eq!(rest.reason().as_deref(), Some("TASK_NOT_FOUND"));
        assert_eq!(rest.kind(), Some(ErrorCode::TaskNotFound));
        let old = GatewayError::JsonRpc(JsonRpcError {
            code: -32001,
            message: "x".into(),
            data: Some(json!({"free": "object"})),
        });
        assert_eq!(old.reason(), None);
        assert_eq!(
            GatewayError::Http {
                status: 502,
                body: None
            }
            .kind(),
            None
        );
    }
}
