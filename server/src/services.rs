//! The application layer: what the HTTP API and the server functions call. Each function
//! takes the parts of [`AppState`](crate::AppState) it needs, validates, and combines the store
//! and the gateway. No SQL and no HTTP here; those live in `store` and `gateway`.

pub mod agents;
