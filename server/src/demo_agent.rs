//! The demo agent (`agent-taskbay demo-agent`): a real A2A 1.0 server with one variant per
//! scenario the console must handle. It is a test fixture, not a real agent: cards are
//! unsigned, tasks live in memory and nothing it says should be trusted.
//!
//! - [`variant`]: the variants, their cards' extensions and skills.
//! - [`card`]: the Agent Card (1.0, or 0.3 for `legacy`) for a variant and origin.
//! - [`routes`]: the axum router, [`serve`] and the card URLs printed by the CLI.
//! - `jsonrpc` / `rest`: the two bindings; `legacy` converts 1.0 shapes to 0.3.
//! - `service`: the A2A operations over the per-variant `store` (Task JSON edits in
//!   `task_json`); `runner` plays a `scenario` script onto a task.

mod error;
mod extension;
mod jsonrpc;
mod legacy;
mod push;
mod rest;
mod rest03;
mod runner;
mod scenario;
mod service;
mod store;
mod task_json;
mod wire;

pub mod card;
pub mod locked;
pub mod routes;
pub mod tls;
pub mod variant;

pub use routes::{card_urls, card_urls_with_tls, router, serve, serve_with_tls};
pub use variant::{VARIANTS, Variant};
