//! Immutable history on both databases (`shared/spec/security-and-durability.md` §3.2, §4.1
//! "Database triggers", threat 24): the ledger, revisions and decisions refuse every update and
//! delete, a decision request's core and an execution's correlation never change, and what the
//! application itself changes (request status and expiry, execution status, projection
//! rebuilds) still works.

use chrono::{Duration, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::{ActiveValue::Set, ColumnTrait, DbErr, EntityTrait, QueryFilter};
use serde_json::json;
use server::db::Db;
use server::db::entity::{decision, decision_execution, decision_request, decision_revision, task_event};
use server::db::migration::m20261203_000005_immutable_history::{APPEND_ONLY, EXECUTION_CORE, REQUEST_CORE};
use server::ingest::archive::ArtifactStore;
use server::ingest::bus::Bus;
use server::ingest::{Ingestor, Observation};
use server::services::approvals;
use server::store::approvals::{DecisionOutcome, RequestStatus, RevisionAuthor};
use server::store::commands::CommandStatus;
use server::store::new_id;

use crate::support;

fn refused<T: std::fmt::Debug>(result: Result<T, DbErr>, message: &str, what: &str) {
    let error = result.expect_err(&format!("{what} must be refused"));
    assert!(error.to_string().contains(message), "{what}: {error}");
}

/// A task with one ledger event, and an open request with a revision, a decision and an
/// execution; returns `(task id, request id)`.
async fn history(db: &Db, dir: &std::path::Path) -> (String, String) {
    let (org, agent) = support::local_agent(db).await;
    let ingestor = Ingestor::new(db.clone(), ArtifactStore::new(dir), Bus::default());
    let task = ingestor
        .ingest(&Observation {
            source_key: Some("k".into()),
            protocol_version: None,
            ..support::observation(
                &org,
                &agent,
                "00000000-0000-4000-8000-00000000c0de",
                json!({"task": {"id": "r1", "status": {"state": "TASK_STATE_INPUT_REQUIRED"}}}),
            )
        })
        .await
        .unwrap()
        .task_id;
    let now = Utc::now();
    let request = new_id();
    decision_request::Entity::insert(decision_request::ActiveModel {
        id: Set(request.clone()),
        organization_id: Set(org),
        task_id: Set(task.clone()),
        agent_id: Set(agent),
        tenant: Set(String::new()),
        skill_id: Set(None),
        request_key: Set(format!("agent:{task}:m1:d")),
        source_message_id: Set(Some("m1".into())),
        kind: Set(app::ext::approval::ActionKind::SendMessage),
        status: Set(RequestStatus::Pending),
        title: Set("Delete the staging cluster".into()),
        summary: Set(String::new()),
        risk: Set("high".into()),
        policy_json: Set(json!({"separationOfDuties": true})),
        requester_user_id: Set(None),
        assigned_membership_id: Set(None),
        current_revision: Set(1),
        expires_at: Set(now + Duration::hours(1)),
        created_at: Set(now),
        updated_at: Set(now),
    })
    .exec_without_returning(&db.write)
    .await
    .unwrap();
    decision_revision::Entity::insert(decision_revision::ActiveModel {
        id: Set(new_id()),
        request_id: Set(request.clone()),
        revision: Set(1),
        action_json: Set(json!({"kind": "send_message", "text": "Delete it."})),
        digest: Set("0".repeat(64)),
        author_type: Set(RevisionAuthor::Agent),
        author_user_id: Set(None),
        created_at: Set(now),
    })
    .exec_without_returning(&db.write)
    .await
    .unwrap();
    let decision_id = new_id();
    decision::Entity::insert(decision::ActiveModel {
        id: Set(decision_id.clone()),
        request_id: Set(request.clone()),
        revision: Set(1),
        outcome: Set(DecisionOutcome::Approve),
        rationale: Set(None),
        actor_user_id: Set(None),
        reviewer_membership_id: Set(None),
        delegate_membership_id: Set(None),
        idempotency_key: Set("k1".into()),
        payload_digest: Set("1".repeat(64)),
        created_at: Set(now),
    })
    .exec_without_returning(&db.write)
    .await
    .unwrap();
    decision_execution::Entity::insert(decision_execution::ActiveModel {
        id: Set(new_id()),
        decision_id: Set(decision_id),
        request_id: Set(request.clone()),
        command_id: Set(new_id()),
        status: Set(CommandStatus::Pending),
        task_state: Set(None),
        created_at: Set(now),
        updated_at: Set(now),
    })
    .exec_without_returning(&db.write)
    .await
    .unwrap();
    (task, request)
}

#[tokio::test]
async fn the_ledger_revisions_and_decisions_are_append_only_security_3_2_and_4_1() {
    for test_db in support::backends().await {
        let db = test_db.migrated().await;
        let dir = tempfile::tempdir().unwrap();
        let (task, _) = history(&db, dir.path()).await;
        let name = test_db.name;
        refused(
            task_event::Entity::update_many()
                .col_expr(task_event::Column::PayloadJson, Expr::value(json!({"task": {}})))
                .filter(task_event::Column::TaskId.eq(&task))
                .exec(&db.write)
                .await,
            APPEND_ONLY,
            &format!("{name}: editing a ledger event"),
        );
        refused(
            task_event::Entity::delete_many().exec(&db.write).await,
            APPEND_ONLY,
            &format!("{name}: deleting ledger events"),
        );
        refused(
            decision_revision::Entity::update_many()
                .col_expr(
                    decision_revision::Column::ActionJson,
                    Expr::value(json!({"text": "x"})),
                )
                .exec(&db.write)
                .await,
            APPEND_ONLY,
            &format!("{name}: editing a revision"),
        );
        refused(
            decision_revision::Entity::delete_many().exec(&db.write).await,
            APPEND_ONLY,
            &format!("{name}: deleting a revision"),
        );
        refused(
            decision::Entity::update_many()
                .col_expr(decision::Column::Outcome, Expr::value("reject"))
                .exec(&db.write)
                .await,
            APPEND_ONLY,
            &format!("{name}: editing a decision"),
        );
        refused(
            decision::Entity::delete_many().exec(&db.write).await,
            APPEND_ONLY,
            &format!("{name}: deleting a decision"),
        );
        let events = task_event::Entity::find()
            .filter(task_event::Column::TaskId.eq(&task))
            .all(&db.read)
            .await
            .unwrap();
        assert_eq!(events.len(), 1, "{name}: the event is still there");
        assert_eq!(
            events[0].payload_json["task"]["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
            "{name}: unchanged"
        );
        // What the application does with the ledger still works: a rebuild reads it again.
        assert_eq!(server::ingest::rebuild(&db, &task).await.unwrap(), 1, "{name}");
        db.close().await;
        test_db.cleanup().await;
    }
}

#[tokio::test]
async fn a_decision_request_core_is_immutable_but_its_state_changes_security_4_1() {
    for test_db in support::backends().await {
        let db = test_db.migrated().await;
        let dir = tempfile::tempdir().unwrap();
        let (_, request) = history(&db, dir.path()).await;
        let name = test_db.name;
        let by_id =
            || decision_request::Entity::update_many().filter(decision_request::Column::Id.eq(&request));
        for (column, value) in [
            (decision_request::Column::Title, Expr::value("Keep the cluster")),
            (decision_request::Column::TaskId, Expr::value(new_id())),
            (decision_request::Column::RequestKey, Expr::value("other")),
            (decision_request::Column::PolicyJson, Expr::value(json!({}))),
            (decision_request::Column::Risk, Expr::value("low")),
        ] {
            refused(
                by_id().col_expr(column, value).exec(&db.write).await,
                REQUEST_CORE,
                &format!("{name}: changing {column:?}"),
            );
        }
        refused(
            decision_request::Entity::delete_many().exec(&db.write).await,
            REQUEST_CORE,
            &format!("{name}: deleting a request"),
        );
        refused(
            decision_execution::Entity::update_many()
                .col_expr(decision_execution::Column::CommandId, Expr::value(new_id()))
                .exec(&db.write)
                .await,
            EXECUTION_CORE,
            &format!("{name}: re-pointing an execution"),
        );
        refused(
            decision_execution::Entity::delete_many().exec(&db.write).await,
            EXECUTION_CORE,
            &format!("{name}: deleting an execution"),
        );
        // The state the application changes: status, revision, expiry, execution outcome.
        let updated = by_id()
            .col_expr(decision_request::Column::CurrentRevision, Expr::value(2))
            .col_expr(
                decision_request::Column::ExpiresAt,
                Expr::value(Utc::now() - Duration::minutes(1)),
            )
            .exec(&db.write)
            .await
            .unwrap();
        assert_eq!(updated.rows_affected, 1, "{name}");
        let swept = approvals::sweep(&db, Utc::now()).await.unwrap();
        assert_eq!(swept.expired, 1, "{name}: the sweep expires it");
        decision_execution::Entity::update_many()
            .col_expr(decision_execution::Column::Status, Expr::value("delivered"))
            .col_expr(
                decision_execution::Column::TaskState,
                Expr::value("TASK_STATE_COMPLETED"),
            )
            .exec(&db.write)
            .await
            .unwrap();
        let row = decision_request::Entity::find_by_id(request.clone())
            .one(&db.read)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            (row.status.as_str(), row.title.as_str(), row.current_revision),
            ("expired", "Delete the staging cluster", 2),
            "{name}"
        );
        db.close().await;
        test_db.cleanup().await;
    }
}
