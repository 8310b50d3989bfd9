//! The store suite: every repository function on SQLite and, when `A2A_TEST_POSTGRES_URL`
//! is set, on PostgreSQL.

use chrono::{Duration, Utc};
use serde_json::json;
use server::db::migration;
use server::store::access::Access;
use server::store::agents::{self, AgentSource};
use server::store::card_snapshots::{self, NewSnapshot};
use server::store::{StoreError, organizations};

use crate::support;

#[tokio::test]
async fn migrations_create_the_local_organization_and_are_idempotent() {
    for test_db in support::backends().await {
        let db = test_db.connect().await;
        assert_eq!(
            migration::pending(&db).await.unwrap(),
            vec![
                "m20261129_000001_initial",
                "m20261129_000002_agent_interface_pin",
                "m20261130_000003_ledger",
                "m20261130_000004_approvals",
                "m20261203_000005_immutable_history",
                "m20261203_000006_follow_waiting_tasks",
                "m20261204_000007_long_task_pages",
                "m20261205_000008_identity",
                "m20261205_000009_access",
                "m20261205_000010_decision_people",
                "m20261205_000011_agent_credentials",
                "m20261205_000012_sync_cursors",
                "m20261205_000013_push_registrations",
                "m20261205_000014_wire_exchanges"
            ],
            "{}",
            test_db.name
        );
        assert_eq!(migration::migrate(&db).await.unwrap(), 14, "{}", test_db.name);
        assert_eq!(migration::migrate(&db).await.unwrap(), 0, "{}", test_db.name);
        assert!(migration::pending(&db).await.unwrap().is_empty());
        let local = organizations::local(&db).await.unwrap();
        assert_eq!((local.slug.as_str(), local.name.as_str()), ("local", "Local"));
        assert!(matches!(
            organizations::by_slug(&db, "nope").await,
            Err(StoreError::NotFound)
        ));
        db.close().await;
        test_db.cleanup().await;
    }
}

#[tokio::test]
async fn agents_register_list_and_remove_keeping_history() {
    for test_db in support::backends().await {
        let db = test_db.migrated().await;
        let org = organizations::local(&db).await.unwrap().id;
        let a = agents::register(
            &db,
            &org,
            "http://127.0.0.1:4010/a/card.json",
            AgentSource::Managed,
        )
        .await
        .unwrap();
        let b = agents::register(
            &db,
            &org,
            "http://127.0.0.1:4010/b/card.json",
            AgentSource::Managed,
        )
        .await
        .unwrap();
        let again = agents::register(
            &db,
            &org,
            "http://127.0.0.1:4010/a/card.json",
            AgentSource::Managed,
        )
        .await
        .unwrap();
        assert_eq!(
            again.id, a.id,
            "{}: registering twice keeps one agent",
            test_db.name
        );

        let listed: Vec<_> = agents::list(&db, &Access::everything(org.as_str()))
            .await
            .unwrap()
            .into_iter()
            .map(|x| x.id)
            .collect();
        assert_eq!(listed, vec![a.id.clone(), b.id.clone()], "{}", test_db.name);

        agents::remove(&db, &org, &a.id).await.unwrap();
        let listed: Vec<_> = agents::list(&db, &Access::everything(org.as_str()))
            .await
            .unwrap()
            .into_iter()
            .map(|x| x.id)
            .collect();
        assert_eq!(listed, vec![b.id.clone()], "{}", test_db.name);
        let kept = agents::find_by_url(&db, &org, "http://127.0.0.1:4010/a/card.json")
            .await
            .unwrap();
        assert!(
            kept.removed_at.is_some(),
            "{}: the removed row is kept",
            test_db.name
        );
        assert!(matches!(
            agents::remove(&db, &org, &a.id).await,
            Err(StoreError::NotFound)
        ));

        let back = agents::register(
            &db,
            &org,
            "http://127.0.0.1:4010/a/card.json",
            AgentSource::Managed,
        )
        .await
        .unwrap();
        assert_eq!(
            (back.id.as_str(), back.removed_at),
            (a.id.as_str(), None),
            "{}: re-registering restores",
            test_db.name
        );
        db.close().await;
        test_db.cleanup().await;
    }
}

#[tokio::test]
async fn env_seeded_agents_cannot_be_removed() {
    for test_db in support::backends().await {
        let db = test_db.migrated().await;
        let org = organizations::local(&db).await.unwrap().id;
        let url = "https://agents.example/.well-known/agent-card.json";
        agents::register(&db, &org, url, AgentSource::Managed)
            .await
            .unwrap();
        let seeded = agents::register(&db, &org, url, AgentSource::Env).await.unwrap();
        assert_eq!(
            seeded.source, "env",
            "{}: env seeding claims an existing registration",
            test_db.name
        );
        match agents::remove(&db, &org, &seeded.id).await {
            Err(StoreError::Conflict(message)) => {
                assert_eq!(
                    message,
                    "This agent comes from A2A_REGISTERED_AGENTS and can't be removed from the UI."
                )
            }
            other => panic!("{}: expected a conflict, got {other:?}", test_db.name),
        }
        assert_eq!(
            agents::list(&db, &Access::everything(org.as_str()))
                .await
                .unwrap()
                .len(),
            1
        );
        db.close().await;
        test_db.cleanup().await;
    }
}

#[tokio::test]
async fn card_snapshots_keep_json_exactly_and_the_latest_wins() {
    for test_db in support::backends().await {
        let db = test_db.migrated().await;
        let org = organizations::local(&db).await.unwrap().id;
        let agent = agents::register(
            &db,
            &org,
            "http://127.0.0.1:4010/x/card.json",
            AgentSource::Managed,
        )
        .await
        .unwrap();
        assert!(card_snapshots::latest(&db, &agent.id).await.unwrap().is_none());

        let raw = json!({"name": "Ünïcode agent ✓", "skills": [{"id": "s1", "tags": ["a", "b"]}], "n": 2.5, "nested": {"x": null}});
        let snapshot = |version: &str, at| NewSnapshot {
            raw_card: raw.clone(),
            normalized_card: json!({"version": version}),
            compliance: json!({"score": 100, "issues": []}),
            signature_status: "unsigned".into(),
            digest: "0".repeat(64),
            resolved_card_url: "http://127.0.0.1:4010/x/card.json".into(),
            fetched_at: at,
        };
        let now = Utc::now();
        card_snapshots::record(&db, &org, &agent.id, snapshot("old", now - Duration::seconds(60)))
            .await
            .unwrap();
        card_snapshots::record(&db, &org, &agent.id, snapshot("new", now))
            .await
            .unwrap();
        let latest = card_snapshots::latest(&db, &agent.id)
            .await
            .unwrap()
            .expect("a snapshot");
        assert_eq!(
            latest.normalized_card_json,
            json!({"version": "new"}),
            "{}",
            test_db.name
        );
        assert_eq!(
            latest.raw_card_json, raw,
            "{}: JSON round-trips exactly",
            test_db.name
        );
        db.close().await;
        test_db.cleanup().await;
    }
}

#[tokio::test]
async fn sqlite_serialises_concurrent_writers_without_busy_errors() {
    // One writer connection (shared/spec/crates.md §2): concurrent registrations all land.
    let test_db = support::sqlite();
    let db = test_db.migrated().await;
    let org = organizations::local(&db).await.unwrap().id;
    let mut handles = Vec::new();
    for i in 0..32 {
        let (db, org) = (db.clone(), org.clone());
        handles.push(tokio::spawn(async move {
            agents::register(
                &db,
                &org,
                &format!("http://127.0.0.1:4010/a{i}/card.json"),
                AgentSource::Managed,
            )
            .await
        }));
    }
    for handle in handles {
        handle
            .await
            .unwrap()
            .expect("no SQLITE_BUSY under concurrent writes");
    }
    assert_eq!(
        agents::list(&db, &Access::everything(org.as_str()))
            .await
            .unwrap()
            .len(),
        32
    );
    db.close().await;
}

/// ADR 0050: gathered writes go as one statement (SQLite: one SQL text; PostgreSQL: `WITH`
/// parts with their parameters renumbered, a quoted `$2` left alone), split only to stay under
/// the parameter limit (70,000 parameters in all: more than PostgreSQL takes in one statement,
/// 65,535, so sending them unsplit fails there), and all of them land.
#[tokio::test]
async fn deferred_writes_land_together_and_split_past_the_parameter_limit() {
    use sea_orm::{ConnectionTrait, DatabaseBackend, Statement, TransactionTrait};
    use server::store::deferred::Deferred;

    for test_db in support::backends().await {
        let db = test_db.migrated().await;
        let backend = db.write.get_database_backend();
        let p = |n: usize| {
            if backend == DatabaseBackend::Postgres {
                format!("${n}")
            } else {
                "?".to_owned()
            }
        };
        for table in ["deferred_a", "deferred_b"] {
            db.write
                .execute_unprepared(&format!(
                    "CREATE TABLE {table} (id TEXT PRIMARY KEY, note TEXT NOT NULL, n BIGINT NOT NULL)"
                ))
                .await
                .unwrap();
        }
        db.write
            .execute_unprepared("INSERT INTO deferred_b (id, note, n) VALUES ('kept', 'old', 0)")
            .await
            .unwrap();
        let tx = db.write.begin().await.unwrap();
        let mut writes = Deferred::default();
        writes.push(Statement::from_sql_and_values(
            backend,
            format!(
                "INSERT INTO deferred_a (id, note, n) VALUES ({}, 'costs $2', {})",
                p(1),
                p(2)
            ),
            ["first".into(), 1i64.into()],
        ));
        writes.push(Statement::from_sql_and_values(
            backend,
            format!(
                "UPDATE deferred_b SET note = {}, n = {} WHERE id = {}",
                p(1),
                p(2),
                p(3)
            ),
            ["new".into(), 7i64.into(), "kept".into()],
        ));
        // 35 statements of 2,000 parameters each.
        for batch in 0..35 {
            let rows: Vec<String> = (0..1000)
                .map(|n| format!("({}, 'bulk', {})", p(2 * n + 1), p(2 * n + 2)))
                .collect();
            let values: Vec<sea_orm::Value> = (0..1000)
                .flat_map(|n| [format!("b{batch}-{n}").into(), (n as i64).into()])
                .collect();
            writes.push(Statement::from_sql_and_values(
                backend,
                format!("INSERT INTO deferred_a (id, note, n) VALUES {}", rows.join(", ")),
                values,
            ));
        }
        assert_eq!(writes.len(), 37);
        writes.flush(&tx).await.unwrap();
        assert!(writes.is_empty());
        tx.commit().await.unwrap();
        let count = |sql: &'static str| {
            let db = db.clone();
            async move {
                let row = db
                    .read
                    .query_one_raw(Statement::from_string(backend, sql))
                    .await
                    .unwrap()
                    .unwrap();
                row.try_get_by_index::<i64>(0).unwrap()
            }
        };
        assert_eq!(
            count("SELECT COUNT(*) FROM deferred_a WHERE note = 'bulk'").await,
            35_000,
            "{}",
            test_db.name
        );
        assert_eq!(
            count("SELECT n FROM deferred_a WHERE id = 'first' AND note = 'costs $2'").await,
            1,
            "{}",
            test_db.name
        );
        assert_eq!(
            count("SELECT n FROM deferred_b WHERE id = 'kept' AND note = 'new'").await,
            7,
            "{}",
            test_db.name
        );
        db.close().await;
        test_db.cleanup().await;
    }
}
