//! Integration tests of the server through its public surface: the router, the binary and
//! the store. One test binary so it links once.

// Test helpers fail loudly; clippy's allow-unwrap-in-tests only covers #[test] bodies.
#![allow(clippy::unwrap_used)]

mod access;
mod agent_cards;
mod agents;
mod api;
mod approvals;
mod artifacts;
mod backup;
mod card_trust;
mod cli;
mod client;
mod commit_queue;
mod committed;
mod credentials;
mod credentials_cli;
mod credentials_kinds;
mod demo_agent;
mod extensions;
mod fn_idempotency;
mod follow_rules;
mod gateway;
mod gateway_demo;
mod gateway_rest03;
mod guard;
mod health;
mod history;
mod identity;
mod leaks;
mod ledger;
mod ledger_race;
mod ledger_sequences;
mod live;
mod live_cap;
mod live_fanout;
mod oidc;
mod outage;
mod ports;
mod probe_plan;
mod processes;
mod push;
mod queue_open;
mod rebuild;
mod reconcile;
mod replicas;
mod sdk_agents;
mod send_stream;
mod ssr;
mod store;
mod support;
mod task_search;
mod task_view;
mod tcp_proxy;
mod upgrade;
mod wire_exchanges;
mod worker_limits;
mod workers;
