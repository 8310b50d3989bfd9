//! Approval requests end to end (`shared/spec/reference.md` §1.2, §4.8): opened inside the
//! ingestion of the demo agent's prompt, decided through the HTTP API, and the approved message
//! delivered exactly once, with the agent echoing the revision digest. On SQLite and PostgreSQL.

use std::time::Duration;

use axum::http::StatusCode;
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter};
use serde_json::{Value, json};
use server::AppState;
use server::db::entity::{decision_execution, decision_request, task_command};
use server::services::approvals;
use sha2::{Digest, Sha256};

use crate::client::{Reply, get, post};
use crate::ledger::eventually;
use crate::support::{self, TestDb};

const RATIONALE_REQUIRED: &str = "A rationale is required for this decision.";
const STALE: &str = "A newer revision exists; review it before deciding.";
const KEY_REQUIRED: &str = "An idempotency key of 1–255 characters is required.";

/// An application on `test_db` that may call the loopback demo agent, with its workers.
async fn app_on(test_db: &TestDb) -> (AppState, support::Workers) {
    let mut config = test_db.config.clone();
    config.outbound.allow_private_networks = true;
    let state = AppState::new(support::leptos_options(), config, test_db.migrated().await).unwrap();
    let workers = support::Workers::start(&state);
    (state, workers)
}

/// Registers a demo variant, sends `text` and waits for the agent's prompt; returns the agent
/// id and the local task id.
async fn prompted(state: &AppState, demo: &str, variant: &str, text: &str) -> (String, String) {
    let reply = post(
        state,
        "/api/agents",
        json!({"cardUrl": format!("{demo}/{variant}/card.json")}),
        &[],
    )
    .await;
    let agent = reply.json()["agent"]["id"].as_str().unwrap().to_owned();
    assert_eq!(
        get(state, &format!("/api/agents/{agent}")).await.status,
        StatusCode::OK
    );
    let reply = post(
        state,
        &format!("/api/agents/{agent}/messages"),
        json!({"text": text}),
        &[],
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    let task = reply.json()["localId"].as_str().unwrap().to_owned();
    let paused = eventually(Duration::from_secs(20), || async {
        get(state, &format!("/api/tasks/{task}")).await.json()["task"]["state"] == "TASK_STATE_INPUT_REQUIRED"
    })
    .await;
    assert!(paused, "the agent asked");
    (agent, task)
}

async fn requests(state: &AppState, task: &str) -> Vec<Value> {
    let reply = get(state, &format!("/api/decisions?taskId={task}")).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    reply.json()["requests"].as_array().unwrap().clone()
}

async fn decide(state: &AppState, id: &str, body: Value, key: &str) -> Reply {
    let headers: Vec<(&str, &str)> = if key.is_empty() {
        vec![]
    } else {
        vec![("idempotency-key", key)]
    };
    post(state, &format!("/api/decisions/{id}/decisions"), body, &headers).await
}

fn sha256(text: &str) -> String {
    hex::encode(Sha256::digest(text.as_bytes()))
}

#[tokio::test]
async fn an_approved_message_reaches_the_agent_once_with_its_digest_reference_1_2() {
    let demo = support::demo().await;
    for test_db in support::backends().await {
        let (state, workers) = app_on(&test_db).await;
        let (_, task) = prompted(&state, &demo, "approver", "please approve").await;
        let open = requests(&state, &task).await;
        assert_eq!(open.len(), 1, "{}: one request opened", test_db.name);
        let request = &open[0];
        assert_eq!(
            (
                &request["title"],
                &request["risk"],
                &request["kind"],
                &request["status"],
                &request["currentRevision"]
            ),
            (
                &json!("Delete the staging cluster"),
                &json!("high"),
                &json!("send_message"),
                &json!("pending"),
                &json!(1)
            )
        );
        let id = request["id"].as_str().unwrap().to_owned();
        // Reference §1.2.1: canonical JSON, keys sorted, `data` kept.
        let digest = sha256(
            r#"{"data":{"cluster":"staging","operation":"delete"},"kind":"send_message","text":"Approved: delete the staging cluster."}"#,
        );
        let detail = get(&state, &format!("/api/decisions/{id}")).await.json();
        assert_eq!(detail["revisions"][0]["digest"], json!(digest));
        assert_eq!(detail["revisions"][0]["authorType"], "agent");

        decide(
            &state,
            &id,
            json!({"outcome": "reject", "expectedRevision": 1}),
            "r1",
        )
        .await
        .assert_error(StatusCode::BAD_REQUEST, RATIONALE_REQUIRED);
        decide(
            &state,
            &id,
            json!({"outcome": "approve", "expectedRevision": 2}),
            "a0",
        )
        .await
        .assert_error(StatusCode::CONFLICT, STALE);
        decide(
            &state,
            &id,
            json!({"outcome": "approve", "expectedRevision": 1}),
            "",
        )
        .await
        .assert_error(StatusCode::BAD_REQUEST, KEY_REQUIRED);

        // Two reviewers click at once: one decision, one command.
        let body = json!({"outcome": "approve", "expectedRevision": 1});
        let (a, b) = tokio::join!(
            decide(&state, &id, body.clone(), "a1"),
            decide(&state, &id, body.clone(), "a2")
        );
        let mut statuses = vec![a.status, b.status];
        statuses.sort();
        assert_eq!(
            statuses,
            vec![StatusCode::CREATED, StatusCode::CONFLICT],
            "{}: {} / {}",
            test_db.name,
            a.body,
            b.body
        );
        let winner = if a.status == StatusCode::CREATED {
            ("a1", a)
        } else {
            ("a2", b)
        };
        let decided = winner.1.json();
        assert_eq!(decided["replay"], false);
        assert_eq!(decided["request"]["status"], "approved");
        let decision_id = decided["decision"]["id"].as_str().unwrap().to_owned();
        let replay = decide(&state, &id, body.clone(), winner.0).await;
        assert_eq!(
            (replay.status, replay.json()["replay"].clone()),
            (StatusCode::OK, json!(true))
        );
        assert_eq!(
            decision_execution::Entity::find()
                .count(&state.db.read)
                .await
                .unwrap(),
            1
        );
        let command = task_command::Entity::find()
            .filter(task_command::Column::IdempotencyKey.eq(format!("decision:{decision_id}")))
            .one(&state.db.read)
            .await
            .unwrap()
            .expect("one command per decision");
        assert_eq!(command.message_id, format!("decision-{decision_id}"));

        let echoed = eventually(Duration::from_secs(20), || async {
            get(&state, &format!("/api/tasks/{task}"))
                .await
                .body
                .contains(&format!("revisionDigest {digest}"))
        })
        .await;
        assert!(
            echoed,
            "{}: the agent received the approved message and echoed the digest",
            test_db.name
        );
        workers.stop().await;
        test_db.cleanup().await;
    }
}

/// Reference §1.0 counts a card only once the catalog stored it, and its `POST /api/agents`
/// stores none. The console stores the card it fetches at registration and before every send,
/// so an agent sent to right after registration, before any list or page loaded it, is already
/// known: its prompt opens an approval request (a chosen divergence, ADR 0024,
/// docs/reference/extensions.md "Where the console differs from the reference").
#[tokio::test]
async fn an_agent_sent_to_right_after_registration_counts_as_known_adr_0024() {
    let demo = support::demo().await;
    for test_db in support::backends().await {
        let (state, workers) = app_on(&test_db).await;
        let reply = post(
            &state,
            "/api/agents",
            json!({"cardUrl": format!("{demo}/approver/card.json")}),
            &[],
        )
        .await;
        assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.body);
        let agent = reply.json()["agent"]["id"].as_str().unwrap().to_owned();
        let reply = post(
            &state,
            &format!("/api/agents/{agent}/messages"),
            json!({"text": "please approve"}),
            &[],
        )
        .await;
        assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
        let task = reply.json()["localId"].as_str().unwrap().to_owned();
        let opened = eventually(Duration::from_secs(20), || async {
            requests(&state, &task).await.len() == 1
        })
        .await;
        assert!(
            opened,
            "{}: the approval request opened without a catalog load",
            test_db.name
        );
        workers.stop().await;
        test_db.cleanup().await;
    }
}

#[tokio::test]
async fn an_edit_approves_a_new_revision_of_the_values_only_reference_4_8() {
    let demo = support::demo().await;
    let test_db = support::sqlite();
    let (state, workers) = app_on(&test_db).await;
    let (_, task) = prompted(&state, &demo, "approver", "structured deploy").await;
    let id = requests(&state, &task).await[0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let detail = get(&state, &format!("/api/decisions/{id}")).await.json();
    let action = detail["revisions"][0]["action"].clone();
    assert_eq!(action["kind"], "send_data");
    let with_rationale = |edit: Value| json!({"outcome": "edit", "expectedRevision": 1, "rationale": "fewer replicas", "edit": edit});
    decide(&state, &id, with_rationale(action.clone()), "e0")
        .await
        .assert_error(
            StatusCode::UNPROCESSABLE_ENTITY,
            "The edit does not change the proposal.",
        );
    let mut other_form = action.clone();
    other_form["form"]["title"] = json!("Another form");
    decide(&state, &id, with_rationale(other_form), "e1")
        .await
        .assert_error(
            StatusCode::UNPROCESSABLE_ENTITY,
            "An edit can change the values but not the form they answer.",
        );
    let mut edited = action.clone();
    edited["values"]["replicas"] = json!(2);
    let reply = decide(&state, &id, with_rationale(edited), "e2").await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.body);
    let detail = get(&state, &format!("/api/decisions/{id}")).await.json();
    assert_eq!(detail["request"]["currentRevision"], 2);
    assert_eq!(detail["revisions"][1]["authorType"], "user");
    assert_eq!(detail["revisions"][1]["action"]["values"]["replicas"], 2);
    assert_ne!(detail["revisions"][0]["digest"], detail["revisions"][1]["digest"]);
    let echoed = eventually(Duration::from_secs(20), || async {
        get(&state, &format!("/api/tasks/{task}")).await.json()["task"]["state"] == "TASK_STATE_COMPLETED"
    })
    .await;
    assert!(echoed, "the edited values went out");
    workers.stop().await;
}

#[tokio::test]
async fn requests_from_unadvertising_or_malformed_prompts_never_open_reference_1_2() {
    let demo = support::demo().await;
    let test_db = support::sqlite();
    let (state, workers) = app_on(&test_db).await;
    let (_, rogue) = prompted(&state, &demo, "rogue", "please approve").await;
    assert!(
        requests(&state, &rogue).await.is_empty(),
        "rogue does not advertise the extension"
    );
    let (_, invalid) = prompted(&state, &demo, "approver", "invalid please").await;
    assert!(
        requests(&state, &invalid).await.is_empty(),
        "a malformed request stays ordinary data"
    );
    let reply = get(&state, "/api/decisions?status=open").await;
    reply.assert_error(StatusCode::BAD_REQUEST, "Unknown status.");
    get(&state, "/api/decisions/not-a-uuid")
        .await
        .assert_error(StatusCode::NOT_FOUND, "Decision request not found.");
    workers.stop().await;
}

#[tokio::test]
async fn the_sweep_expires_overdue_requests_which_then_refuse_decisions_reference_4_8() {
    let demo = support::demo().await;
    let test_db = support::sqlite();
    let (state, workers) = app_on(&test_db).await;
    let (_, task) = prompted(&state, &demo, "approver", "please approve").await;
    let id = requests(&state, &task).await[0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    decision_request::Entity::update_many()
        .col_expr(
            decision_request::Column::ExpiresAt,
            Expr::value(chrono::Utc::now() - chrono::Duration::minutes(1)),
        )
        .exec(&state.db.write)
        .await
        .unwrap();
    let swept = approvals::sweep(&state.db, chrono::Utc::now()).await.unwrap();
    assert_eq!(swept.expired, 1);
    assert_eq!(requests(&state, &task).await[0]["status"], "expired");
    decide(
        &state,
        &id,
        json!({"outcome": "approve", "expectedRevision": 1}),
        "late",
    )
    .await
    .assert_error(
        StatusCode::CONFLICT,
        "This request is expired and can no longer authorize an action.",
    );
    workers.stop().await;
}

/// Issue #26: two reviewers editing the same revision at once make one new revision; the other
/// answers 409 with the reason (never a unique-index error), and two clicks with the same key
/// answer the one decision twice. On SQLite and PostgreSQL (reference §4.8, security §4.1).
#[tokio::test]
async fn concurrent_edits_answer_409_and_a_concurrent_replay_answers_the_original_reference_4_8() {
    let demo = support::demo().await;
    for test_db in support::backends().await {
        let name = test_db.name;
        let (state, workers) = app_on(&test_db).await;
        let (_, task) = prompted(&state, &demo, "approver", "structured deploy").await;
        let id = requests(&state, &task).await[0]["id"]
            .as_str()
            .unwrap()
            .to_owned();
        let action =
            get(&state, &format!("/api/decisions/{id}")).await.json()["revisions"][0]["action"].clone();
        let edit = |replicas: i64| {
            let mut edited = action.clone();
            edited["values"]["replicas"] = json!(replicas);
            json!({"outcome": "edit", "expectedRevision": 1, "rationale": "fewer", "edit": edited})
        };
        let (a, b) = tokio::join!(
            decide(&state, &id, edit(2), "edit-a"),
            decide(&state, &id, edit(4), "edit-b")
        );
        let (won, lost) = if a.status == StatusCode::CREATED {
            (a, b)
        } else {
            (b, a)
        };
        assert_eq!(won.status, StatusCode::CREATED, "{name}: {}", won.body);
        lost.assert_error(
            StatusCode::CONFLICT,
            "This request is approved and can no longer authorize an action.",
        );
        let detail = get(&state, &format!("/api/decisions/{id}")).await.json();
        assert_eq!(
            detail["revisions"].as_array().unwrap().len(),
            2,
            "{name}: one new revision"
        );
        assert_eq!(detail["decisions"].as_array().unwrap().len(), 1, "{name}");

        // The same key, twice at once, on a fresh request: one decision, answered twice.
        let (_, task) = prompted(&state, &demo, "approver", "please approve").await;
        let id = requests(&state, &task).await[0]["id"]
            .as_str()
            .unwrap()
            .to_owned();
        let body = json!({"outcome": "approve", "expectedRevision": 1});
        let (a, b) = tokio::join!(
            decide(&state, &id, body.clone(), "same"),
            decide(&state, &id, body.clone(), "same")
        );
        let mut statuses = vec![a.status, b.status];
        statuses.sort();
        assert_eq!(
            statuses,
            vec![StatusCode::OK, StatusCode::CREATED],
            "{name}: {} / {}",
            a.body,
            b.body
        );
        let (a, b) = (a.json(), b.json());
        assert_eq!(
            a["decision"]["id"], b["decision"]["id"],
            "{name}: the original decision"
        );
        assert_ne!(a["replay"], b["replay"], "{name}");
        assert_eq!(
            decision_execution::Entity::find()
                .filter(decision_execution::Column::RequestId.eq(&id))
                .count(&state.db.read)
                .await
                .unwrap(),
            1,
            "{name}: one execution"
        );
        workers.stop().await;
        test_db.cleanup().await;
    }
}
