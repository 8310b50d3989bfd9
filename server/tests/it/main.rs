//! Integration tests of the server through its public surface: the router, the binary and
//! the store. One test binary so it links once.

// Test helpers fail loudly; clippy's allow-unwrap-in-tests only covers #[test] bodies.
#![allow(clippy::unwrap_used)]

mod agents;
mod api;
mod approvals;
mod cli;
mod client;
mod demo_agent;
mod extensions;
mod fn_idempotency;
mod gateway;
mod gateway_demo;
mod health;
mod ledger;
mod live;
mod send_stream;
mod ssr;
mod store;
mod support;
mod workers;
