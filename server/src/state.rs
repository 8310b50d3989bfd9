//! [`AppState`]: everything a request handler or server function needs, built once.

use std::sync::Arc;
use std::time::Instant;

use axum::extract::FromRef;
use leptos::config::LeptosOptions;

use crate::config::Config;
use crate::db::Db;
use crate::gateway::{Gateway, GatewayError};
use crate::http::metrics::Metrics;

/// Shared application state; cheap to clone.
#[derive(Clone, Debug, FromRef)]
pub struct AppState {
    pub leptos_options: LeptosOptions,
    pub config: Arc<Config>,
    pub db: Db,
    pub metrics: Arc<Metrics>,
    /// The one client toward agents, built from the outbound rules of the configuration.
    pub gateway: Gateway,
    /// When this process started serving, for uptime in `/metrics`.
    pub started: Instant,
}

impl AppState {
    /// Builds the state from its parts; fails only if the HTTP client cannot be built.
    pub fn new(leptos_options: LeptosOptions, config: Config, db: Db) -> Result<AppState, GatewayError> {
        Ok(AppState {
            gateway: Gateway::new(&config.outbound)?,
            leptos_options,
            config: Arc::new(config),
            db,
            metrics: Arc::new(Metrics::default()),
            started: Instant::now(),
        })
    }
}
