//! Serving: bind, run until the shutdown future completes, then drain and close.

use std::future::Future;
use std::net::SocketAddr;

use anyhow::Context as _;
use axum::serve::{ListenerExt as _, TapIo};
use leptos::config::LeptosOptions;
use tokio::net::{TcpListener, TcpStream};

use crate::config::{Config, DatabaseConfig, WorkerMode};
use crate::db::{self, Db};
use crate::http::site::Site;
use crate::state::AppState;
use crate::store::agents;

/// Leptos options for a server bound at `addr`, from the `LEPTOS_*` environment and production
/// mode unless `LEPTOS_ENV` says otherwise, with the site's files where [`Site`] puts them: the
/// site inside the binary, or `LEPTOS_SITE_ROOT` (default `target/site`). Keep the `Site` for as
/// long as the server runs.
pub fn leptos_options(addr: SocketAddr) -> anyhow::Result<(LeptosOptions, Site)> {
    let mut options = leptos::config::get_configuration(None)
        .context("reading LEPTOS_* settings")?
        .leptos_options;
    options.site_addr = addr;
    let site = Site::prepare(&mut options).context("writing out the site embedded in the binary")?;
    if std::env::var_os("LEPTOS_ENV").is_none() {
        options.env = leptos::config::Env::PROD;
    }
    Ok((options, site))
}

/// `listener` with `TCP_NODELAY` set on every connection it accepts. Live streams write one
/// small frame per event; with Nagle's algorithm on, the kernel holds a frame back until the
/// peer acknowledges the previous one, and delayed acknowledgements make that up to 40 ms: the
/// first events of a burst reached the screen 50–100 ms late (issue #6, event to screen).
pub fn without_nagle(listener: TcpListener) -> TapIo<TcpListener, fn(&mut TcpStream)> {
    listener.tap_io(set_nodelay)
}

fn set_nodelay(stream: &mut TcpStream) {
    if let Err(error) = stream.set_nodelay(true) {
        tracing::debug!(%error, "could not set TCP_NODELAY");
    }
}

/// Opens the database and brings the schema up to date where the configuration allows it.
pub async fn open_database(config: &Config) -> anyhow::Result<Db> {
    let db = db::connect(&config.database)
        .await
        .with_context(|| format!("opening the {} database", config.database.kind()))?;
    let migrate = match &config.database {
        DatabaseConfig::Sqlite { .. } => true,
        DatabaseConfig::Postgres { auto_migrate, .. } => *auto_migrate,
    };
    if migrate {
        let applied = db::migration::migrate(&db).await.context("running migrations")?;
        if applied > 0 {
            tracing::info!(applied, "database migrations applied");
        }
    } else {
        let pending = db::migration::pending(&db)
            .await
            .context("reading migration state")?;
        if !pending.is_empty() {
            tracing::warn!(
                ?pending,
                "migrations are pending and A2A_AUTO_MIGRATE is not true; /readyz answers 503 until `agent-taskbay migrate` runs"
            );
        }
    }
    Ok(db)
}

/// Seeds the agents named in `A2A_REGISTERED_AGENTS` into the deployment's organization.
pub async fn seed_registered_agents(state: &AppState) -> anyhow::Result<()> {
    if state.config.registered_agents.is_empty() {
        return Ok(());
    }
    let organization_id = state
        .organization_id()
        .await
        .context("finding the deployment's organization")?;
    for url in &state.config.registered_agents {
        agents::register(
            &state.db,
            &organization_id,
            url.as_str(),
            agents::AgentSource::Env,
        )
        .await
        .with_context(|| format!("registering {url} from A2A_REGISTERED_AGENTS"))?;
    }
    Ok(())
}

/// Serves `state` on `listener` with the background workers until `shutdown` resolves; then
/// the workers stop, live streams end, and in-flight requests finish.
pub async fn run(
    listener: TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let db = state.db.clone();
    let stop = state.shutdown.clone();
    let tracker = tokio_util::task::TaskTracker::new();
    crate::ingest::relay::start(&state.db, &state.bus, &tracker, stop.clone());
    match state.config.worker_mode {
        WorkerMode::Embedded => crate::workers::start(state.worker_deps(), &tracker, stop.clone()),
        WorkerMode::External => tracing::info!("workers run in separate `agent-taskbay worker` processes"),
    }
    let router = crate::build_router(state);
    let signal = {
        let stop = stop.clone();
        async move {
            shutdown.await;
            stop.cancel();
        }
    };
    axum::serve(without_nagle(listener), router.into_make_service())
        .with_graceful_shutdown(signal)
        .await
        .context("serving HTTP")?;
    stop.cancel();
    tracker.close();
    tracker.wait().await;
    db.close().await;
    tracing::info!("stopped");
    Ok(())
}

/// The worker process (`agent-taskbay worker`, §6.1): every worker loop and the notice relay on
/// the shared PostgreSQL database, no HTTP, until `shutdown`; then in-flight work finishes and
/// leases are left to expire or be taken over. It never migrates.
pub async fn run_workers(config: Config, shutdown: impl Future<Output = ()>) -> anyhow::Result<()> {
    if matches!(config.database, DatabaseConfig::Sqlite { .. }) {
        anyhow::bail!(
            "The separate worker requires PostgreSQL; the embedded SQLite database uses embedded dispatch."
        );
    }
    let db = db::connect(&config.database)
        .await
        .with_context(|| format!("opening the {} database", config.database.kind()))?;
    let pending = db::migration::pending(&db).await.context("checking migrations")?;
    if !pending.is_empty() {
        anyhow::bail!(
            "{} migration(s) are pending; run agent-taskbay migrate first.",
            pending.len()
        );
    }
    let options = LeptosOptions::builder().output_name("agent-taskbay").build();
    let state = AppState::new(options, config, db).context("building the HTTP client for agents")?;
    let stop = state.shutdown.clone();
    let tracker = tokio_util::task::TaskTracker::new();
    crate::ingest::relay::start(&state.db, &state.bus, &tracker, stop.clone());
    crate::workers::start(state.worker_deps(), &tracker, stop.clone());
    tracing::info!("Agent Taskbay workers are running");
    shutdown.await;
    stop.cancel();
    tracker.close();
    tracker.wait().await;
    state.db.clone().close().await;
    tracing::info!("stopped");
    Ok(())
}

/// Resolves on Ctrl-C or SIGTERM.
pub async fn shutdown_signal() {
    let ctrl_c = async {
        if let Err(error) = tokio::signal::ctrl_c().await {
            tracing::error!(%error, "cannot listen for Ctrl-C");
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(error) => {
                tracing::error!(%error, "cannot listen for SIGTERM");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
    tracing::info!("shutdown signal received; finishing in-flight requests");
}

#[cfg(test)]
mod tests {
    use axum::serve::Listener as _;

    use super::*;

    #[tokio::test]
    async fn every_accepted_connection_has_nagle_off() {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("address");
        let mut listener = without_nagle(listener);
        for _ in 0..2 {
            let ((accepted, _), client) = tokio::join!(listener.accept(), TcpStream::connect(addr));
            client.expect("connect");
            assert!(accepted.nodelay().expect("socket option"), "TCP_NODELAY is set");
        }
    }
}
