//! [`AppState`]: everything a request handler or server function needs, built once.

use std::sync::Arc;
use std::time::Instant;

use axum::extract::FromRef;
use leptos::config::LeptosOptions;

use crate::config::Config;
use crate::db::Db;
use crate::gateway::{Gateway, GatewayError};
use crate::http::guard::ConsoleOrigins;
use crate::http::metrics::Metrics;
use crate::ingest::Ingestor;
use crate::ingest::archive::ArtifactStore;
use crate::ingest::bus::Bus;
use crate::workers::WorkerDeps;

/// Shared application state; cheap to clone.
#[derive(Clone, Debug, FromRef)]
pub struct AppState {
    pub leptos_options: LeptosOptions,
    pub config: Arc<Config>,
    pub db: Db,
    pub metrics: Arc<Metrics>,
    /// The one client toward agents, built from the outbound rules of the configuration.
    pub gateway: Gateway,
    /// The credential vault (`A2A_VAULT_KEYS`).
    pub vault: crate::vault::Vault,
    /// When this process started serving, for uptime in `/metrics`.
    pub started: Instant,
    /// The in-process bus of committed changes.
    pub bus: Bus,
    /// The single ingestion path.
    pub ingestor: Ingestor,
    /// The names and origins the console answers to (the request guard's Host and Origin rules).
    pub origins: Arc<ConsoleOrigins>,
    /// Cancelled at shutdown: workers stop and live streams end so connections can drain.
    pub shutdown: tokio_util::sync::CancellationToken,
    /// One permit per open live (SSE) connection, `A2A_MAX_LIVE_CONNECTIONS` in all.
    pub live_connections: Arc<tokio::sync::Semaphore>,
    /// One reader per followed scope, fanned out to its live connections.
    pub feeds: crate::http::live::fanout::Feeds,
    /// How requests are identified (development, or OIDC sign-in).
    pub auth: Arc<crate::http::identity::Auth>,
    /// The deployment's organization's id once read (it never changes).
    organization: Arc<tokio::sync::OnceCell<String>>,
    /// Callers' identity reads, shared by the requests that arrive while one waits its turn.
    pub identity_reads: Arc<crate::http::identity::reads::IdentityReads>,
}

impl AppState {
    /// The id of the deployment's organization (`local`, or `A2A_AUTH_ORGANIZATION_SLUG` with
    /// sign-in; created when missing), read from the database the first time only: a live
    /// connection opens without a query when its scope is already followed.
    pub async fn organization_id(&self) -> Result<String, crate::store::StoreError> {
        self.organization
            .get_or_try_init(|| async {
                crate::store::organizations::ensure(&self.db, self.auth.organization_slug())
                    .await
                    .map(|o| o.id)
            })
            .await
            .cloned()
    }

    /// Builds the state from its parts; fails only if the HTTP client cannot be built.
    pub fn new(leptos_options: LeptosOptions, config: Config, db: Db) -> Result<AppState, GatewayError> {
        let bus = Bus::default();
        let ingestor = Ingestor::new(
            db.clone(),
            ArtifactStore::new(config.artifact_dir.clone()).with_quota(config.artifact_quota),
            bus.clone(),
        )
        .with_task_hook(Arc::new(crate::services::approvals_hook::DetectApprovals))
        .with_commit_queue();
        let mut origins = ConsoleOrigins::new(leptos_options.site_addr, config.auth_origin.as_deref());
        if let Some(push) = &config.push {
            origins = origins.with_push(&push.callback_origin);
        }
        Ok(AppState {
            origins: Arc::new(origins),
            gateway: Gateway::new(&config.outbound)?,
            vault: crate::vault::Vault::new(config.vault_keys.clone()),
            bus,
            ingestor,
            shutdown: tokio_util::sync::CancellationToken::new(),
            live_connections: Arc::new(tokio::sync::Semaphore::new(config.max_live_connections)),
            feeds: crate::http::live::fanout::Feeds::default(),
            organization: Arc::default(),
            // As many at once as the read pool has connections.
            identity_reads: crate::http::identity::reads::IdentityReads::new(db.read_pool_size()),
            auth: Arc::new(crate::http::identity::Auth::from_config(&config.auth)),
            leptos_options,
            config: Arc::new(config),
            db,
            metrics: Arc::new(Metrics::default()),
            started: Instant::now(),
        })
    }

    /// What the background workers need.
    /// The sideband URIs understood: the two built-in ones, then `A2A_SIDEBAND_EXTENSION_URIS`.
    pub fn understood_sideband(&self) -> Vec<String> {
        app::ext::negotiation::understood_sideband_uris(
            Some(&self.config.sideband_extension_uris.join(",")),
            None,
        )
    }

    pub fn worker_deps(&self) -> WorkerDeps {
        WorkerDeps {
            db: self.db.clone(),
            gateway: self.gateway.clone(),
            vault: self.vault.clone(),
            ingestor: self.ingestor.clone(),
            bus: self.bus.clone(),
            understood_sideband: std::sync::Arc::new(self.understood_sideband()),
            decision_sweep: self.config.decision_sweep,
            push: self.config.push.clone(),
            tuning: crate::workers::Tuning {
                max_streams: self.config.max_agent_streams,
                ..crate::workers::Tuning::default()
            },
            streams: crate::workers::StreamSlots::new(self.config.max_agent_streams),
        }
    }
}
