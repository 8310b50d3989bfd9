//! Issue #32 "Find and move": the task list is searched by words (title or remote task id, any
//! case, `%` and `_` taken literally) and narrowed to one agent, in SQL, on SQLite and
//! PostgreSQL; the grants still filter first.

use serde_json::json;
use server::store::access::Access;
use server::store::agents::{self, AgentSource};
use server::store::tasks::{self as task_store, Narrow};

use crate::support;

/// A completed task `remote` of `agent` in a conversation of its own, titled by its first
/// message `title`.
async fn finished_task(
    ingestor: &server::ingest::Ingestor,
    org: &str,
    agent: &str,
    remote: &str,
    title: &str,
) {
    ingestor
        .ingest(&support::observation(
            org,
            agent,
            &uuid::Uuid::now_v7().to_string(),
            json!({"task": {"id": remote, "contextId": format!("ctx-{remote}"),
                "status": {"state": "TASK_STATE_COMPLETED"},
                "history": [{"messageId": format!("m-{remote}"), "role": "ROLE_USER",
                             "parts": [{"text": title}]}]}}),
        ))
        .await
        .unwrap();
}

#[tokio::test]
async fn tasks_are_found_by_every_word_of_the_title_or_remote_id_and_by_agent() {
    for test_db in support::backends().await {
        let db = test_db.migrated().await;
        let (org, agent) = support::local_agent(&db).await;
        let other = agents::register(&db, &org, "http://127.0.0.1:9/other.json", AgentSource::Managed)
            .await
            .unwrap()
            .id;
        let dir = tempfile::tempdir().unwrap();
        let ingestor = server::ingest::Ingestor::new(
            db.clone(),
            server::ingest::archive::ArtifactStore::new(dir.path()),
            Default::default(),
        );
        for (agent_id, remote, title) in [
            (&agent, "r-deploy", "Deploy Billing to production"),
            (&agent, "r-rollback", "Roll back billing"),
            (&other, "r-report", "Quarterly report: 100% done_now"),
            (&other, "r-x", "Deploy payroll"),
        ] {
            finished_task(&ingestor, &org, agent_id, remote, title).await;
        }
        let access = Access::everything(&org);
        let found = |words: &[&str], agent_id: &str| {
            let words: Vec<String> = words.iter().map(|w| w.to_lowercase()).collect();
            let access = access.clone();
            let db = db.clone();
            let agent_id = agent_id.to_owned();
            async move {
                let narrow = Narrow {
                    words: &words,
                    agent_id: &agent_id,
                };
                let page =
                    task_store::list(&db.read, &access, app::api::tasks::TaskFilter::All, narrow, 0, 50)
                        .await
                        .unwrap();
                let mut remote: Vec<String> =
                    page.tasks.into_iter().filter_map(|t| t.remote_task_id).collect();
                remote.sort();
                remote
            }
        };
        let name = &test_db.name;
        assert_eq!(
            found(&["BILLING"], "").await,
            ["r-deploy", "r-rollback"],
            "{name}"
        );
        assert_eq!(found(&["deploy", "billing"], "").await, ["r-deploy"], "{name}");
        assert_eq!(found(&["deploy"], &other).await, ["r-x"], "{name}");
        assert_eq!(found(&[], &agent).await, ["r-deploy", "r-rollback"], "{name}");
        // The remote task id is searched too.
        assert_eq!(found(&["r-roll"], "").await, ["r-rollback"], "{name}");
        // `%` and `_` are literal: "100%" finds the report, "%" alone only titles with one.
        assert_eq!(found(&["100%"], "").await, ["r-report"], "{name}");
        assert_eq!(found(&["%"], "").await, ["r-report"], "{name}");
        assert_eq!(found(&["e_n"], "").await, ["r-report"], "{name}");
        assert!(
            found(&["d_ploy"], "").await.is_empty(),
            "{name}: _ is not a wildcard"
        );
        assert!(found(&["nothing-like-it"], "").await.is_empty(), "{name}");
        db.close().await;
        test_db.cleanup().await;
    }
}

/// The search box's limit, as the server function answers it.
#[test]
fn a_search_longer_than_the_limit_is_refused_with_its_message() {
    use app::api::tasks::{MAX_SEARCH_CHARS, SEARCH_TOO_LONG, TaskSearch};
    let long = TaskSearch {
        text: "x".repeat(MAX_SEARCH_CHARS + 1),
        agent_id: String::new(),
    };
    assert_eq!(long.words(), Err(SEARCH_TOO_LONG));
    let fine = TaskSearch {
        text: "  Deploy   BILLING ".into(),
        agent_id: String::new(),
    };
    assert_eq!(fine.words(), Ok(vec!["deploy".to_owned(), "billing".to_owned()]));
}

/// `GET /api/tasks?q=&agentId=` narrows the list as the Tasks screen does; a search over the
/// limit is a 400 with its message.
#[tokio::test]
async fn the_http_task_list_takes_q_and_agent_id() {
    let (state, _db) = support::app().await;
    let (org, agent) = support::local_agent(&state.db).await;
    for (remote, title) in [("r-1", "Deploy billing"), ("r-2", "Roll back payroll")] {
        finished_task(&state.ingestor, &org, &agent, remote, title).await;
    }
    let remote_ids = |reply: crate::client::Reply| -> Vec<String> {
        assert_eq!(reply.status, axum::http::StatusCode::OK, "{}", reply.body);
        reply.json()["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["taskId"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(
        remote_ids(crate::client::get(&state, "/api/tasks?q=BILLING").await),
        ["r-1"]
    );
    assert_eq!(
        remote_ids(crate::client::get(&state, &format!("/api/tasks?agentId={agent}&q=payroll")).await),
        ["r-2"]
    );
    assert!(remote_ids(crate::client::get(&state, "/api/tasks?agentId=someone-else").await).is_empty());
    crate::client::get(&state, &format!("/api/tasks?q={}", "x".repeat(201)))
        .await
        .assert_error(
            axum::http::StatusCode::BAD_REQUEST,
            app::api::tasks::SEARCH_TOO_LONG,
        );
}
