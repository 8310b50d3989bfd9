//! `/healthz`, `/readyz` and `/metrics`.

use axum::http::StatusCode;
use server::AppState;

use crate::support::{self, get, text};

#[tokio::test]
async fn healthz_answers_without_the_database() {
    let (state, _db) = support::app().await;
    state.db.clone().close().await;
    let response = get(&state, "/healthz").await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(text(response).await, r#"{"status":"ok"}"#);
}

#[tokio::test]
async fn readyz_is_200_when_migrated() {
    let (state, _db) = support::app().await;
    let response = get(&state, "/readyz").await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(text(response).await, r#"{"status":"ready","database":"sqlite"}"#);
}

#[tokio::test]
async fn readyz_is_503_and_names_pending_migrations() {
    for test_db in support::backends().await {
        let db = test_db.connect().await;
        let state = AppState::new(support::leptos_options(), test_db.config.clone(), db).unwrap();
        let response = get(&state, "/readyz").await;
        assert_eq!(
            response.status(),
            StatusCode::SERVICE_UNAVAILABLE,
            "{}",
            test_db.name
        );
        let body: serde_json::Value = serde_json::from_str(&text(response).await).unwrap();
        assert_eq!(body["reason"], "migrations pending; run `agent-taskbay migrate`");
        assert_eq!(body["pendingMigrations"][0], "m20261129_000001_initial");
        state.db.clone().close().await;
        test_db.cleanup().await;
    }
}

#[tokio::test]
async fn readyz_is_503_when_the_database_is_gone() {
    let (state, _db) = support::app().await;
    state.db.clone().close().await;
    let response = get(&state, "/readyz").await;
    assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
    let body = text(response).await;
    assert!(body.contains(r#""reason":"database unreachable""#), "{body}");
}

#[tokio::test]
async fn metrics_count_requests_by_route_and_report_pools_and_build() {
    let (state, _db) = support::app().await;
    get(&state, "/healthz").await;
    get(&state, "/healthz").await;
    get(&state, "/no/such/file.txt").await;
    let response = get(&state, "/metrics").await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(
        response.headers()["content-type"],
        "text/plain; version=0.0.4; charset=utf-8"
    );
    let body = text(response).await;
    assert!(
        body.contains(r#"taskbay_http_requests_total{method="GET",route="/healthz",status="200"} 2"#),
        "{body}"
    );
    assert!(
        body.contains(r#"taskbay_http_requests_total{method="GET",route="unmatched",status="404"} 1"#),
        "{body}"
    );
    assert!(body.contains(
        r#"taskbay_http_request_duration_seconds_count{method="GET",route="/healthz",status="200"} 2"#
    ));
    assert!(
        body.contains(r#"taskbay_db_pool_max_connections{pool="write"} 1"#),
        "{body}"
    );
    assert!(
        body.contains(r#"taskbay_db_pool_max_connections{pool="read"} 4"#),
        "{body}"
    );
    // Nothing ingested yet: the counters are there, at zero.
    for counter in [
        "taskbay_ingest_events_total 0",
        "taskbay_ingest_group_commits_total 0",
        "taskbay_ingest_grouped_events_total 0",
        "taskbay_ingest_queue_groups_total 0",
        "taskbay_ingest_queue_commits_total 0",
        "taskbay_live_connections 0",
        "taskbay_live_feeds 0",
        "taskbay_live_feed_reads_total 0",
        "taskbay_live_catch_up_reads_total 0",
    ] {
        assert!(body.contains(&format!("{counter}\n")), "{body}");
    }
    assert!(body.contains(&format!(
        r#"taskbay_build_info{{version="{}""#,
        env!("CARGO_PKG_VERSION")
    )));
}

/// ADR 0056: on PostgreSQL the commit queue has a connection of its own, beside the shared pool;
/// `/metrics` shows it as pool `commit` (one at most, opened when the queue first commits), so an
/// operator sizing `max_connections` sees every connection a process holds. SQLite has no such pool.
#[tokio::test]
async fn metrics_show_the_commit_queues_own_postgresql_connection() {
    for test_db in support::backends().await {
        let db = test_db.migrated().await;
        let state = AppState::new(support::leptos_options(), test_db.config.clone(), db).unwrap();
        let postgres = !state.db.is_sqlite();
        // The queue's thread shows its pool as it starts.
        let shown = || state.ingestor.queue.as_ref().and_then(|q| q.own_pool()).is_some();
        if postgres {
            assert!(
                crate::ledger::eventually(std::time::Duration::from_secs(10), || async { shown() }).await
            );
        }
        let body = text(get(&state, "/metrics").await).await;
        let commit = r#"taskbay_db_pool_max_connections{pool="commit"} 1"#;
        assert_eq!(body.contains(commit), postgres, "{}: {body}", test_db.name);
        if postgres {
            assert!(
                body.contains(r#"taskbay_db_pool_connections{pool="commit",state="in_use"} 0"#),
                "{body}"
            );
            assert!(
                body.contains(r#"taskbay_db_pool_max_connections{pool="shared"}"#),
                "{body}"
            );
        }
        test_db.cleanup().await;
    }
}

/// Issue #26 "Unbounded things": an invented method must not mint a new metric series.
#[tokio::test]
async fn an_unknown_method_is_counted_as_other() {
    let (state, _db) = support::app().await;
    let request = axum::http::Request::builder()
        .method(axum::http::Method::from_bytes(b"FOOBAR").unwrap())
        .uri("/healthz")
        .body(axum::body::Body::empty())
        .unwrap();
    support::send(&state, request).await;
    let body = text(get(&state, "/metrics").await).await;
    assert!(
        body.contains(r#"taskbay_http_requests_total{method="other","#),
        "{body}"
    );
    assert!(!body.contains("FOOBAR"), "{body}");
}

/// Issue #26: while PostgreSQL is down, `/readyz` says 503 within about a second instead of
/// waiting out the pool's 5 s acquire timeout.
#[tokio::test]
async fn readyz_answers_503_promptly_when_postgres_is_unreachable() {
    // A port nothing listens on: every connection attempt is refused, and the pool would keep
    // retrying until its acquire timeout.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!(
        "postgres://postgres@127.0.0.1:{}/test",
        closed.local_addr().unwrap().port()
    );
    drop(closed);
    let mut options = sea_orm::ConnectOptions::new(url.clone());
    options
        .acquire_timeout(server::db::connect::ACQUIRE_TIMEOUT)
        .connect_lazy(true)
        .sqlx_logging(false);
    let pool = sea_orm::Database::connect(options).await.unwrap();
    let db = server::db::Db {
        write: pool.clone(),
        read: pool,
    };
    let config = support::config_from(&[("A2A_DATABASE_URL", url.as_str())]);
    let state = AppState::new(support::leptos_options(), config, db).unwrap();
    let started = std::time::Instant::now();
    let response = get(&state, "/readyz").await;
    let elapsed = started.elapsed();
    assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert!(elapsed < std::time::Duration::from_secs(2), "took {elapsed:?}");
    let body = text(response).await;
    assert!(body.contains(r#""reason":"database unreachable""#), "{body}");
    assert!(!body.contains("127.0.0.1"), "{body}");
}
