//! Test harness: isolated databases on every backend and a ready [`AppState`].

use std::collections::HashMap;

use axum::body::Body;
use axum::http::{Request, Response};
use leptos::config::{Env, LeptosOptions};
use sea_orm::{ConnectionTrait, Database};
use server::AppState;
use server::config::Config;
use server::db::{self, Db};
use tempfile::TempDir;
use tower::ServiceExt;

/// Environment variable naming the PostgreSQL server for the store suite.
pub const POSTGRES_ENV: &str = "A2A_TEST_POSTGRES_URL";

/// A database created for one test, removed by [`TestDb::cleanup`].
pub struct TestDb {
    pub name: &'static str,
    pub config: Config,
    /// Keeps the SQLite directory alive for the test.
    _dir: TempDir,
    /// `(admin url, database name)` of a PostgreSQL database to drop afterwards.
    postgres: Option<(String, String)>,
}

impl TestDb {
    /// Opens the database without migrating it.
    pub async fn connect(&self) -> Db {
        db::connect(&self.config.database)
            .await
            .expect("connect to test database")
    }

    /// The PostgreSQL URL of this test database (for the processes a test starts on it).
    pub fn postgres_url(&self) -> String {
        match &self.config.database {
            server::config::DatabaseConfig::Postgres { url, .. } => url.expose().to_owned(),
            server::config::DatabaseConfig::Sqlite { .. } => panic!("a PostgreSQL test database"),
        }
    }

    /// Opens and migrates the database.
    pub async fn migrated(&self) -> Db {
        let db = self.connect().await;
        db::migration::migrate(&db).await.expect("migrate test database");
        db
    }

    /// Drops the PostgreSQL database (the SQLite file goes with the temp dir).
    pub async fn cleanup(self) {
        if let Some((admin, name)) = &self.postgres {
            let conn = Database::connect(admin.as_str())
                .await
                .expect("connect to postgres admin db");
            conn.execute_unprepared(&format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"))
                .await
                .expect("drop test database");
        }
    }
}

/// Configuration as the server would read it from `vars`.
pub fn config_from(vars: &[(&str, &str)]) -> Config {
    let env: HashMap<String, String> = vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    Config::from_lookup(|name| env.get(name).cloned()).expect("valid test configuration")
}

/// An agent registered in the local organization at an address nothing answers on (for tests
/// that ingest events themselves and run no workers); returns `(organization id, agent id)`.
pub async fn local_agent(db: &Db) -> (String, String) {
    let org = server::store::organizations::local(db)
        .await
        .expect("local organization")
        .id;
    let agent = server::store::agents::register(
        db,
        &org,
        "http://127.0.0.1:9/card.json",
        server::store::agents::AgentSource::Managed,
    )
    .await
    .expect("register the agent")
    .id;
    (org, agent)
}

/// An observation of `payload` for a new task of `agent` in `conversation`, as a send's answer
/// brings it; tests change the fields they care about with struct update syntax.
pub fn observation(
    org: &str,
    agent: &str,
    conversation: &str,
    payload: serde_json::Value,
) -> server::ingest::Observation {
    server::ingest::Observation {
        organization_id: org.into(),
        agent_id: agent.into(),
        tenant: String::new(),
        conversation_id: conversation.into(),
        local_task_id: None,
        source: server::ingest::Source::CommandResponse,
        source_key: None,
        payload,
        extensions: vec![],
        protocol_version: Some("1.0".into()),
        skill_id: None,
        fence: None,
        rearm: false,
    }
}

/// The `agent-taskbay` binary with a clean environment: only what each test sets, no `A2A_*`
/// from the developer's shell.
pub fn binary() -> std::process::Command {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_agent-taskbay"));
    command
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default());
    command
}

/// A fresh embedded SQLite database in a temp directory.
pub fn sqlite() -> TestDb {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = config_from(&[("A2A_DATA_DIR", dir.path().to_str().expect("utf-8 temp path"))]);
    TestDb {
        name: "sqlite",
        config,
        _dir: dir,
        postgres: None,
    }
}

/// A fresh PostgreSQL database when `A2A_TEST_POSTGRES_URL` is set.
pub async fn postgres() -> Option<TestDb> {
    let admin = std::env::var(POSTGRES_ENV).ok().filter(|v| !v.is_empty())?;
    let name = format!("taskbay_test_{}", uuid::Uuid::new_v4().simple());
    let conn = Database::connect(admin.as_str())
        .await
        .unwrap_or_else(|e| panic!("{POSTGRES_ENV} is set but PostgreSQL does not answer: {e}"));
    conn.execute_unprepared(&format!("CREATE DATABASE \"{name}\""))
        .await
        .expect("create test database");
    let mut url = url::Url::parse(&admin).expect("A2A_TEST_POSTGRES_URL is a URL");
    url.set_path(&format!("/{name}"));
    let dir = tempfile::tempdir().expect("temp dir");
    let config = config_from(&[
        ("A2A_DATA_DIR", dir.path().to_str().expect("utf-8 temp path")),
        ("A2A_DATABASE_URL", url.as_str()),
    ]);
    Some(TestDb {
        name: "postgresql",
        config,
        _dir: dir,
        postgres: Some((admin, name)),
    })
}

/// SQLite always, plus PostgreSQL when configured: the store suite runs on each.
pub async fn backends() -> Vec<TestDb> {
    let mut all = vec![sqlite()];
    all.extend(postgres().await);
    all
}

/// Leptos options for tests (no built site needed for SSR).
pub fn leptos_options() -> LeptosOptions {
    LeptosOptions::builder()
        .output_name("agent-taskbay")
        .site_root("target/site")
        .env(Env::PROD)
        .build()
}

/// An application over a migrated SQLite database.
pub async fn app() -> (AppState, TestDb) {
    app_with(&[]).await
}

/// An application over a migrated SQLite database, with extra configuration variables.
pub async fn app_with(vars: &[(&str, &str)]) -> (AppState, TestDb) {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut all = vec![("A2A_DATA_DIR", dir.path().to_str().expect("utf-8 temp path"))];
    all.extend_from_slice(vars);
    let test_db = TestDb {
        name: "sqlite",
        config: config_from(&all),
        _dir: dir,
        postgres: None,
    };
    let db = test_db.migrated().await;
    (
        AppState::new(leptos_options(), test_db.config.clone(), db).unwrap(),
        test_db,
    )
}

/// Sends one request through the router, as a client would: with the `Host` a client of the
/// console's bound address sends, unless the test set its own.
pub async fn send(state: &AppState, mut request: Request<Body>) -> Response<Body> {
    if !request.headers().contains_key(axum::http::header::HOST) {
        let host = state.leptos_options.site_addr.to_string();
        request
            .headers_mut()
            .insert(axum::http::header::HOST, host.parse().expect("a valid Host"));
    }
    server::build_router(state.clone())
        .oneshot(request)
        .await
        .expect("router is infallible")
}

/// GET `uri`.
pub async fn get(state: &AppState, uri: &str) -> Response<Body> {
    send(
        state,
        Request::get(uri).body(Body::empty()).expect("valid request"),
    )
    .await
}

/// The whole body as text.
pub async fn text(response: Response<Body>) -> String {
    let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .expect("body");
    String::from_utf8(bytes.to_vec()).expect("utf-8 body")
}

/// Starts the background workers (command dispatch, subscriptions) for `state`, as `serve`
/// does; cancel the token to stop them.
pub fn start_workers(
    state: &AppState,
) -> (tokio_util::task::TaskTracker, tokio_util::sync::CancellationToken) {
    let tracker = tokio_util::task::TaskTracker::new();
    let token = tokio_util::sync::CancellationToken::new();
    server::workers::start(state.worker_deps(), &tracker, token.clone());
    (tracker, token)
}

/// Serves `router` on an ephemeral loopback port; returns its origin (`http://127.0.0.1:<port>`).
pub async fn serve(router: axum::Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind an ephemeral port");
    let origin = format!("http://{}", listener.local_addr().expect("local address"));
    tokio::spawn(async move { axum::serve(listener, router).await.expect("serve") });
    origin
}

/// The card of a test agent speaking A2A 1.0 JSON-RPC at `{origin}/a2a`; `streaming` is what
/// its capabilities say.
pub fn jsonrpc_card(origin: &str, name: &str, streaming: bool) -> serde_json::Value {
    serde_json::json!({
        "name": name, "description": format!("{name} (a test agent)"), "version": "1.0.0",
        "supportedInterfaces": [{"url": format!("{origin}/a2a"), "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "capabilities": {"streaming": streaming},
        "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"], "skills": [],
    })
}

/// The demo agent on an ephemeral loopback port; returns its origin.
pub async fn demo() -> String {
    serve(server::demo_agent::router()).await
}

/// The background workers of one state, stopped like a process that ends.
pub struct Workers {
    tracker: tokio_util::task::TaskTracker,
    stop: tokio_util::sync::CancellationToken,
}

impl Workers {
    pub fn start(state: &AppState) -> Workers {
        let (tracker, stop) = start_workers(state);
        Workers { tracker, stop }
    }

    /// The workers of a process over `deps` (tests shorten its `tuning`).
    pub fn with(deps: server::workers::WorkerDeps) -> Workers {
        let tracker = tokio_util::task::TaskTracker::new();
        let stop = tokio_util::sync::CancellationToken::new();
        server::workers::start(deps, &tracker, stop.clone());
        Workers { tracker, stop }
    }

    /// Stops the loops and waits for their in-flight work.
    pub async fn stop(self) {
        self.stop.cancel();
        self.tracker.close();
        self.tracker.wait().await;
    }
}

/// A child process killed (and reaped) when dropped, so a failed assertion leaves nothing
/// running.
pub struct ChildGuard(pub std::process::Child);

impl Drop for ChildGuard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
