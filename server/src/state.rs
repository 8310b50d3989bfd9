//! [`AppState`]: everything a request handler or server function needs, built once.

use std::sync::Arc;
use std::time::Instant;

use axum::extract::FromRef;
use leptos::config::LeptosOptions;

use crate::config::Config;
use crate::db::Db;
use crate::http::metrics::Metrics;

/// Shared application state; cheap to clone.
#[derive(Clone, Debug, FromRef)]
pub struct AppState {
    pub leptos_options: LeptosOptions,
    pub config: Arc<Config>,
    pub db: Db,
    pub metrics: Arc<Metrics>,
    /// When this process started serving, for uptime in `/metrics`.
    pub started: Instant,
}

impl AppState {
    /// Builds the state from its parts.
    pub fn new(leptos_options: LeptosOptions, config: Config, db: Db) -> AppState {
        AppState {
            leptos_options,
            config: Arc::new(config),
            db,
            metrics: Arc::new(Metrics::default()),
            started: Instant::now(),
        }
    }
}
