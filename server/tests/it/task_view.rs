//! Issue #26 "Unbounded things": a task's view is bounded. `GET /api/tasks/{id}` (and the task
//! page) hold the latest messages, artifacts and transitions up to a limit and count the rest.

use axum::http::StatusCode;
use serde_json::{Value, json};
use server::AppState;
use server::http::api::tasks::INVALID_VIEW_LIMIT;
use server::ingest::{Observation, Source};
use server::store::access::Access;
use server::store::organizations;
use server::store::tasks::TASK_VIEW_ITEMS;

use crate::client::get;
use crate::support;

/// A task with `n` agent messages (alternating states, so each adds a transition) and `n`
/// artifacts; returns its local id.
async fn long_task(state: &AppState, n: usize) -> String {
    let org = organizations::local(&state.db).await.unwrap();
    let agent = server::store::agents::register(
        &state.db,
        &org.id,
        "http://127.0.0.1:9/c.json",
        server::store::agents::AgentSource::Managed,
    )
    .await
    .unwrap();
    let mut payloads =
        vec![json!({"task": {"id": "r1", "contextId": "c1", "status": {"state": "TASK_STATE_WORKING"}}})];
    for i in 1..=n {
        let state = if i % 2 == 1 {
            "TASK_STATE_INPUT_REQUIRED"
        } else {
            "TASK_STATE_WORKING"
        };
        payloads.push(
            json!({"statusUpdate": {"taskId": "r1", "status": {"state": state, "message": {
            "messageId": format!("m{i}"), "role": "ROLE_AGENT", "parts": [{"text": format!("step {i}")}]}}}}),
        );
        payloads.push(json!({"artifactUpdate": {"taskId": "r1", "artifact": {
            "artifactId": format!("a{i}"), "parts": [{"text": format!("artifact {i}")}]}}}));
    }
    let mut task_id = None;
    for (i, payload) in payloads.into_iter().enumerate() {
        let done = state
            .ingestor
            .ingest(&Observation {
                organization_id: org.id.clone(),
                agent_id: agent.id.clone(),
                tenant: String::new(),
                conversation_id: "00000000-0000-4000-8000-0000000000c2".into(),
                local_task_id: task_id.clone(),
                source: Source::Stream,
                source_key: Some(format!("k{i}")),
                payload,
                extensions: vec![],
                protocol_version: Some("1.0".into()),
                skill_id: None,
                fence: None,
                rearm: false,
            })
            .await
            .unwrap();
        task_id = Some(done.task_id);
    }
    task_id.unwrap()
}

fn texts(items: &Value, field: &str) -> Vec<String> {
    items[field]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| {
            item["parts"][0]["content"]["text"]
                .as_str()
                .unwrap_or_default()
                .to_owned()
        })
        .collect()
}

#[tokio::test]
async fn a_task_view_holds_the_latest_items_up_to_the_limit_and_counts_the_rest() {
    let (state, _db) = support::app().await;
    let task_id = long_task(&state, 5).await;

    let whole = get(&state, &format!("/api/tasks/{task_id}")).await;
    assert_eq!(whole.status, StatusCode::OK);
    let whole = whole.json()["task"].clone();
    assert_eq!(texts(&whole, "messages").len(), 5);
    assert_eq!(texts(&whole, "artifacts").len(), 5);
    assert!(whole.get("omitted").is_none(), "nothing left out: {whole}");
    let transitions = whole["transitions"].as_array().unwrap().len() as u64;
    assert!(transitions > 2, "{whole}");

    let page = get(&state, &format!("/api/tasks/{task_id}?limit=2")).await;
    assert_eq!(page.status, StatusCode::OK);
    let page = page.json()["task"].clone();
    assert_eq!(texts(&page, "messages"), ["step 4", "step 5"]);
    assert_eq!(texts(&page, "artifacts"), ["artifact 4", "artifact 5"]);
    assert_eq!(page["transitions"].as_array().unwrap().len(), 2);
    assert_eq!(
        page["transitions"][1],
        whole["transitions"][transitions as usize - 1]
    );
    assert_eq!(
        page["omitted"],
        json!({"messages": 3, "artifacts": 3, "transitions": transitions - 2, "chunks": 0})
    );

    for bad in ["0", "501", "-1", "all"] {
        get(&state, &format!("/api/tasks/{task_id}?limit={bad}"))
            .await
            .assert_error(StatusCode::BAD_REQUEST, INVALID_VIEW_LIMIT);
    }
}

#[tokio::test]
async fn the_default_task_view_is_bounded() {
    let (state, _db) = support::app().await;
    let n = TASK_VIEW_ITEMS as usize + 3;
    let task_id = long_task(&state, n).await;
    let org = organizations::local(&state.db).await.unwrap();
    let view = server::store::tasks::view(&state.db.read, &Access::everything(org.id.as_str()), &task_id)
        .await
        .unwrap();
    assert_eq!(view.messages.len() as u64, TASK_VIEW_ITEMS);
    assert_eq!(view.artifacts.len() as u64, TASK_VIEW_ITEMS);
    assert_eq!(view.omitted.messages, 3);
    assert_eq!(view.omitted.artifacts, 3);
    assert_eq!(
        view.messages.last().unwrap().message_id,
        format!("m{n}"),
        "the latest are kept"
    );
}

/// Issue #33: the page's counts come from the task row, which ingestion keeps equal to the
/// projection's rows (a repeated message counts once), a rebuild recounts, and the upgrade
/// counts the tasks that existed before.
#[tokio::test]
async fn the_task_row_counts_its_messages_and_transitions_through_ingest_rebuild_and_upgrade() {
    use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter};
    use server::db::entity::{task, task_message, task_transition};
    use server::db::migration::m20261204_000007_long_task_pages::BACKFILL;

    let (state, _db) = support::app().await;
    let task_id = long_task(&state, 6).await;
    let counted = |task_id: String| {
        let db = state.db.clone();
        async move {
            let messages = task_message::Entity::find()
                .filter(task_message::Column::TaskId.eq(&task_id))
                .count(&db.read)
                .await
                .unwrap();
            let transitions = task_transition::Entity::find()
                .filter(task_transition::Column::TaskId.eq(&task_id))
                .count(&db.read)
                .await
                .unwrap();
            let row = task::Entity::find_by_id(task_id)
                .one(&db.read)
                .await
                .unwrap()
                .unwrap();
            (
                (row.message_count as u64, row.transition_count as u64),
                (messages, transitions),
            )
        }
    };
    let (kept, rows) = counted(task_id.clone()).await;
    assert_eq!(kept, rows);
    assert_eq!(rows.0, 6, "six messages");

    // The same message again (another event with its id) is not a new one.
    let org = organizations::local(&state.db).await.unwrap();
    let row = server::store::tasks::find(&state.db.read, &Access::everything(org.id.as_str()), &task_id)
        .await
        .unwrap();
    state
        .ingestor
        .ingest(&Observation {
            local_task_id: Some(task_id.clone()),
            source: Source::Stream,
            source_key: Some("again".into()),
            ..support::observation(
                &org.id,
                &row.agent_id,
                &row.conversation_id,
                json!({"statusUpdate": {"taskId": "r1", "status": {"state": "TASK_STATE_WORKING", "message": {
                    "messageId": "m6", "role": "ROLE_AGENT", "parts": [{"text": "step 6"}]}}}}),
            )
        })
        .await
        .unwrap();
    let (kept, rows) = counted(task_id.clone()).await;
    assert_eq!(kept, rows);
    assert_eq!(rows.0, 6, "still six messages");

    server::ingest::rebuild(&state.db, &task_id).await.unwrap();
    assert_eq!(
        counted(task_id.clone()).await.0,
        rows,
        "a rebuild counts the same"
    );

    state
        .db
        .write
        .execute_unprepared("UPDATE tasks SET message_count = 0, transition_count = 0")
        .await
        .unwrap();
    state.db.write.execute_unprepared(BACKFILL).await.unwrap();
    assert_eq!(
        counted(task_id).await.0,
        rows,
        "the upgrade counts existing tasks"
    );
}
