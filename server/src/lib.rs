//! The `agent-taskbay` server: everything that runs on the operator's machine or the team's
//! hosts. The browser-facing application itself lives in the `app` crate.
//!
//! - [`backend`]: the server's implementation of the app's backend traits (server functions).
//! - [`cli`]: the command line (`serve`, `migrate`) and its help text.
//! - [`config`]: the `A2A_*` environment, read and validated once at start.
//! - [`telemetry`]: structured logs with `tracing`.
//! - [`db`]: connections (SQLite single writer + read pool, or PostgreSQL), migrations, entities.
//! - [`gateway`]: the only code that talks to agents (discovery, bindings, SSE, SSRF guard).
//! - [`demo_agent`]: the demo A2A agent served by `agent-taskbay demo-agent`.
//! - [`store`]: the repository functions every other layer uses to read and write rows.
//! - [`ingest`]: the single ingestion path (ledger + projections in one transaction) and the bus.
//! - [`push`]: push callback tokens (derived from `A2A_PUSH_SIGNING_KEY`, never stored).
//! - [`services`]: the application layer both the HTTP API and server functions call.
//! - [`state`]: [`AppState`], built once in `main` (or per test) and injected everywhere.
//! - [`http`]: the axum router: the Leptos app, health, readiness and metrics.
//! - [`workers`]: command dispatch and stream subscriptions, with leases.
//! - [`serve`]: binding, serving and graceful shutdown.

pub mod backend;
pub mod cli;
pub mod config;
pub mod db;
pub mod demo_agent;
pub mod gateway;
pub mod http;
pub mod ingest;
pub mod push;
pub mod serve;
pub mod services;
pub mod state;
pub mod store;
pub mod telemetry;
pub mod vault;
pub mod workers;

pub use http::router::build_router;
pub use state::AppState;
