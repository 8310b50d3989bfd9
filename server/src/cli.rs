//! The command line: `agent-taskbay [serve|worker|migrate|backup|rebuild-projections|gc-artifacts|auth|credentials|demo-agent]`,
//! with the environment variables listed in `--help`.

use std::net::{IpAddr, SocketAddr};

use anyhow::Context as _;
use clap::{Args, Parser, Subcommand};

use crate::config::{Config, VARIABLES};
use crate::db;
use crate::serve;
use crate::state::AppState;

pub mod auth;
pub mod backup;
pub mod credentials;

/// Default port of the console.
pub const DEFAULT_PORT: u16 = 3002;

/// A self-hosted console for operating A2A agents.
#[derive(Debug, Parser)]
#[command(
    name = "agent-taskbay",
    version,
    about,
    args_conflicts_with_subcommands = true,
    after_long_help = env_help(),
    after_help = env_help()
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// `serve` options, accepted without the word `serve` since it is the default command.
    #[command(flatten)]
    pub serve: ServeArgs,
}

/// What to run.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve the console (the default when no command is given).
    Serve(ServeArgs),
    /// Run only the background workers (dispatch, subscriptions, sweeps), for a deployment whose
    /// web processes set A2A_COMMAND_WORKER_MODE=external (PostgreSQL only).
    Worker,
    /// Apply pending database migrations and exit.
    Migrate,
    /// Write a consistent copy of the embedded SQLite database to FILE (a new file) while the
    /// console keeps serving, check it, and exit. PostgreSQL: use pg_dump.
    Backup {
        /// Where the copy goes; must not exist yet.
        file: std::path::PathBuf,
    },
    /// Check the ledger, then rebuild task projections from it (all tasks, or one) and exit.
    RebuildProjections {
        /// Only this task (its local id).
        #[arg(long)]
        task: Option<String>,
    },
    /// Remove archived files no task references, untouched for --min-age-secs, and exit.
    GcArtifacts {
        /// Only files unreferenced and unmodified for at least this many seconds (default one
        /// hour), so objects being written while the console serves are kept.
        #[arg(long, default_value_t = crate::ingest::gc::DEFAULT_MIN_AGE.as_secs())]
        min_age_secs: u64,
    },
    /// Manage who may sign in: `auth provision --issuer --subject --organization --name --role`.
    Auth {
        #[command(subcommand)]
        command: auth::AuthCommand,
    },
    /// Manage agent credentials: `credentials store|revoke --organization --agent` (the binding on
    /// stdin for `store`), `credentials reencrypt --organization --agent` or `--all`.
    Credentials {
        #[command(subcommand)]
        command: credentials::CredentialsCommand,
    },
    /// Serve the demo A2A agent on 127.0.0.1 and print one card URL per variant.
    DemoAgent {
        /// Port to listen on.
        #[arg(long, default_value_t = 4010)]
        port: u16,
        /// Also serve over TLS on this port (the `mtls` variant), with a CA made at start.
        #[arg(long, requires = "tls_dir")]
        tls_port: Option<u16>,
        /// Where the TLS variant's `ca.pem`, `client.pem` and `client-key.pem` are written.
        #[arg(long)]
        tls_dir: Option<std::path::PathBuf>,
    },
}

/// Options of `serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address to listen on; only loopback addresses without sign-in (A2A_AUTH_MODE=oidc).
    #[arg(short = 'H', long, default_value = "127.0.0.1")]
    pub host: String,
    /// Port to listen on.
    #[arg(short, long, env = "PORT", default_value_t = DEFAULT_PORT, value_parser = clap::value_parser!(u16).range(1..))]
    pub port: u16,
}

fn env_help() -> String {
    let mut help = String::from("Environment variables:\n");
    for (name, meaning) in VARIABLES {
        help.push_str(&format!("  {name:<30} {meaning}\n"));
    }
    help.push_str("\nDocumentation: docs/reference/configuration.md and docs/reference/cli.md");
    help
}

/// Resolves `host` to a loopback address, or explains why it is refused.
pub fn loopback_addr(host: &str, port: u16) -> Result<SocketAddr, String> {
    let ip = any_addr(host, port)?.ip();
    if !ip.is_loopback() {
        return Err(format!(
            "--host {host} is not a loopback address. Without sign-in (A2A_AUTH_MODE=oidc) the console only \
             listens on localhost, 127.x.x.x or ::1; put a reverse proxy in front to reach it from elsewhere."
        ));
    }
    Ok(SocketAddr::new(ip, port))
}

/// Resolves `host` (an IP address or `localhost`) to an address to listen on.
pub fn any_addr(host: &str, port: u16) -> Result<SocketAddr, String> {
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    if bare.eq_ignore_ascii_case("localhost") {
        return Ok(SocketAddr::new(IpAddr::from([127, 0, 0, 1]), port));
    }
    bare.parse::<IpAddr>()
        .map(|ip| SocketAddr::new(ip, port))
        .map_err(|_| format!("\"{host}\" is not an IP address or localhost."))
}

/// Runs the chosen command to completion.
pub async fn run(cli: Cli, config: Config) -> anyhow::Result<()> {
    match cli.command.unwrap_or(Command::Serve(cli.serve)) {
        Command::Serve(args) => serve_command(args, config).await,
        Command::Worker => serve::run_workers(config, serve::shutdown_signal()).await,
        Command::Migrate => migrate_command(config).await,
        Command::Backup { file } => backup::run(file, config).await,
        Command::RebuildProjections { task } => rebuild_command(config, task).await,
        Command::GcArtifacts { min_age_secs } => gc_command(config, min_age_secs).await,
        Command::Auth { command } => auth::run(command, config).await,
        Command::Credentials { command } => credentials::run(command, config).await,
        Command::DemoAgent {
            port,
            tls_port,
            tls_dir,
        } => demo_agent_command(port, tls_port.zip(tls_dir)).await,
    }
}

async fn serve_command(args: ServeArgs, config: Config) -> anyhow::Result<()> {
    // Without sign-in the console stays on loopback; with it, any address (§1.5, ADR 0004).
    let addr = match config.auth {
        crate::config::auth::AuthMode::Development => loopback_addr(&args.host, args.port),
        crate::config::auth::AuthMode::Oidc(_) => any_addr(&args.host, args.port),
    }
    .map_err(anyhow::Error::msg)?;
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .with_context(|| format!("listening on {addr}"))?;
    // The bound address, not the asked one: `--port 0` takes a free port, and the request
    // guard answers only to the port the console really has.
    let addr = listener.local_addr().context("reading the bound address")?;
    let (options, site) = serve::leptos_options(addr)?;
    let db = serve::open_database(&config).await?;
    let state = AppState::new(options, config, db).context("building the HTTP client for agents")?;
    serve::seed_registered_agents(&state).await?;
    let site_root = state.leptos_options.site_root.clone();
    if !std::path::Path::new(site_root.as_ref()).join("pkg").exists() {
        tracing::warn!(%site_root, "built site assets not found; run the README's run command to build them");
    }
    tracing::info!(
        url = %format!("http://{addr}"),
        database = state.config.database.kind(),
        site = if site.embedded { "embedded" } else { "directory" },
        "Agent Taskbay is serving"
    );
    // `site` lives until serving ends: the embedded site's directory goes with it.
    serve::run(listener, state, serve::shutdown_signal()).await
}

async fn demo_agent_command(port: u16, tls: Option<(u16, std::path::PathBuf)>) -> anyhow::Result<()> {
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .with_context(|| format!("listening on {addr}"))?;
    let bound = listener.local_addr().context("reading the bound address")?;
    let tls = match tls {
        Some((tls_port, dir)) => {
            let addr = SocketAddr::from(([127, 0, 0, 1], tls_port));
            let tls_listener = tokio::net::TcpListener::bind(addr)
                .await
                .with_context(|| format!("listening on {addr}"))?;
            let tls_bound = tls_listener.local_addr().context("reading the bound address")?;
            let pki = crate::demo_agent::tls::DemoPki::load_or_generate(&dir)
                .with_context(|| format!("reading or writing the demo certificates in {}", dir.display()))?;
            Some((tls_listener, pki, format!("https://{tls_bound}")))
        }
        None => None,
    };
    let tls_origin = tls.as_ref().map(|(_, _, origin)| origin.clone());
    // Poll once so the Ctrl-C and SIGTERM handlers exist before the URLs announce readiness.
    let mut shutdown = Box::pin(serve::shutdown_signal());
    let _ = futures::poll!(&mut shutdown);
    // Command output, like `migrate`'s: one card URL per line on stdout for scripts to read.
    for url in crate::demo_agent::card_urls_with_tls(&format!("http://{bound}"), tls_origin.as_deref()) {
        println!("{url}");
    }
    tracing::info!(url = %format!("http://{bound}"), tls = ?tls_origin, "demo agent is serving");
    crate::demo_agent::serve_with_tls(listener, tls.map(|(l, pki, _)| (l, pki)), shutdown)
        .await
        .context("serving the demo agent")
}

async fn migrate_command(config: Config) -> anyhow::Result<()> {
    let db = db::connect(&config.database)
        .await
        .context("opening the database")?;
    let applied = db::migration::migrate(&db).await.context("running migrations")?;
    println!(
        "{applied} migration(s) applied; the {} database is up to date.",
        config.database.kind()
    );
    db.close().await;
    Ok(())
}

/// `rebuild-projections [--task ID]`: checks every chosen task's ledger first (each event's
/// digest, that it decodes, each archived object), and refuses with one line naming the first
/// problem before anything is replaced; then one line per rebuilt task, and the total.
async fn rebuild_command(config: Config, task: Option<String>) -> anyhow::Result<()> {
    use crate::ingest::verify::{VerifyError, verify};

    let db = serve::open_database(&config).await?;
    let store = crate::ingest::archive::ArtifactStore::new(config.artifact_dir.clone());
    let tasks = match task {
        Some(id) => vec![id],
        None => crate::ingest::task_ids(&db).await.context("listing tasks")?,
    };
    for id in &tasks {
        match verify(&db, &store, id).await {
            Ok(_) => {}
            Err(VerifyError::Problem(problem)) => {
                db.close().await;
                return Err(anyhow::Error::msg(problem.to_string()));
            }
            Err(VerifyError::Db(error)) => {
                db.close().await;
                return Err(anyhow::Error::new(error).context(format!("checking task {id}")));
            }
        }
    }
    for id in &tasks {
        let events = crate::ingest::rebuild(&db, id)
            .await
            .with_context(|| format!("rebuilding task {id}"))?;
        println!("Rebuilt task {id} from {events} ledger event(s).");
    }
    println!("Rebuilt {} task(s).", tasks.len());
    db.close().await;
    Ok(())
}

/// `gc-artifacts [--min-age-secs N]`: one line per removed file, then the total freed.
async fn gc_command(config: Config, min_age_secs: u64) -> anyhow::Result<()> {
    let db = serve::open_database(&config).await?;
    let store = crate::ingest::archive::ArtifactStore::new(config.artifact_dir.clone());
    let min_age = std::time::Duration::from_secs(min_age_secs);
    let collected = crate::ingest::gc::collect(&db, &store, min_age)
        .await
        .context("collecting unreferenced artifacts")?;
    for removed in &collected.removed {
        println!(
            "Removed {}/{} ({} bytes).",
            removed.organization_id, removed.name, removed.size
        );
    }
    println!(
        "Removed {} unreferenced file(s), freed {} bytes; kept {} object(s).",
        collected.removed.len(),
        collected.freed(),
        collected.kept
    );
    db.close().await;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_hosts_are_accepted() {
        assert_eq!(
            loopback_addr("127.0.0.1", 3002).unwrap().to_string(),
            "127.0.0.1:3002"
        );
        assert_eq!(loopback_addr("localhost", 1).unwrap().to_string(), "127.0.0.1:1");
        assert_eq!(loopback_addr("[::1]", 8080).unwrap().to_string(), "[::1]:8080");
        assert!(loopback_addr("127.4.5.6", 80).is_ok());
    }

    #[test]
    fn other_hosts_are_refused_with_a_reason() {
        let err = loopback_addr("0.0.0.0", 3002).unwrap_err();
        assert!(
            err.starts_with("--host 0.0.0.0 is not a loopback address."),
            "{err}"
        );
        assert!(loopback_addr("192.168.1.4", 3002).is_err());
        assert_eq!(
            loopback_addr("example.com", 3002).unwrap_err(),
            "\"example.com\" is not an IP address or localhost."
        );
    }

    #[test]
    fn help_lists_every_variable() {
        let help = env_help();
        for (name, _) in VARIABLES {
            assert!(help.contains(name), "{name} missing from --help");
        }
    }
}
