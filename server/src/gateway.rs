//! The gateway: the only code that talks to agents. Discovery, the JSON-RPC and HTTP+JSON
//! bindings for A2A 1.0 and 0.3, the SSE reader, and an SSRF-safe HTTP client. It works on
//! `serde_json::Value` in the wire shape of the chosen interface; it does not interpret A2A
//! types, store anything or decide which agent or interface to call.
//!
//! - [`client`]: [`Gateway`], the one HTTP client (no redirects, no proxy, timeouts, size caps).
//! - [`ssrf`]: address and origin rules, checked before each request and at connect time.
//! - [`endpoint`]: [`Endpoint`], the interface a call goes to. The operation table, JSON-RPC
//!   envelopes and error bodies are the wire model's (`app::a2a`), shared with the browser.
//! - [`calls`]: the A2A operations over either binding and version; [`methods`], one method
//!   per operation.
//! - [`jsonrpc`], [`rest`]: the two bindings' request and response shapes.
//! - [`sse`]: the incremental event-stream parser and event decoder.
//! - [`discovery`]: Agent Card candidate URLs and fetching.
//! - `credential`: an agent's credential on every request ([`Gateway::with_binding`]); [`redact`]:
//!   its secrets removed from every answer.
//! - [`exchanges`]: each HTTP exchange of a tagged operation, noted for the Wire panel.
//! - [`error`]: the one error type, [`GatewayError`].

pub mod calls;
pub mod card_trust;
pub mod client;
mod credential;
pub mod discovery;
pub mod endpoint;
pub mod error;
pub mod exchanges;
pub mod interface_rule;
mod jsonrpc;
pub mod methods;
pub mod redact;
mod rest;
mod rest_retry;
pub mod sse;
pub mod ssrf;

pub use calls::EventStream;
pub use client::{DEFAULT_TIMEOUT, Gateway, MAX_RESPONSE_BYTES};
pub use discovery::{DiscoveredCard, MAX_CARD_BYTES, card_candidates};
pub use endpoint::Endpoint;
pub use error::{CredentialFailure, GatewayError};
pub use ssrf::Rule;
