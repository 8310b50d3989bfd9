//! The ledger's sequence (issue #33, ADR 0048): each organization's counter is locked once per
//! transaction, reserving a sequence for every event the transaction expects to append, and
//! written back before commit only when fewer (or more) were used. A duplicate uses no sequence,
//! so an organization's ledger has no gaps, and the stored counter is always the last sequence
//! used.

use sea_orm::EntityTrait;
use serde_json::json;
use server::db::Db;
use server::db::entity::ledger_counter;
use server::ingest::IngestError;
use server::store::access::Access;

use crate::ledger::{observation, script, setup};
use crate::support;

async fn counter(db: &Db, org: &str) -> i64 {
    ledger_counter::Entity::find_by_id(org.to_owned())
        .one(&db.read)
        .await
        .unwrap()
        .expect("the organization has a counter")
        .value
}

#[tokio::test]
async fn a_duplicate_uses_no_sequence_and_the_counter_keeps_the_last_one() {
    for test_db in support::backends().await {
        let (db, ingestor, org, agent, _dir) = setup(&test_db).await;
        let script = script();
        let (source, key, payload) = script[0].clone();
        let first_event = observation(&org, &agent, source, key.as_deref(), payload);
        let first = ingestor.ingest(&first_event).await.unwrap();
        let first_sequence = first.sequence.expect("stored");
        assert_eq!(counter(&db, &org).await, first_sequence, "{}", test_db.name);

        // The same event again (a replay): nothing stored, the counter unchanged.
        assert_eq!(ingestor.ingest(&first_event).await.unwrap().sequence, None);
        assert_eq!(counter(&db, &org).await, first_sequence, "{}", test_db.name);

        // A group with a duplicate in the middle: the new events take the next sequences, no gap.
        let mut group = Vec::new();
        for (source, key, payload) in script[1..4].iter().cloned() {
            let mut obs = observation(&org, &agent, source, key.as_deref(), payload);
            obs.local_task_id = Some(first.task_id.clone());
            group.push(obs);
        }
        group.insert(1, group[0].clone());
        let done = ingestor.ingest_group(&group).await.unwrap();
        let sequences: Vec<Option<i64>> = done.iter().map(|d| d.sequence).collect();
        assert_eq!(
            sequences,
            [
                Some(first_sequence + 1),
                None,
                Some(first_sequence + 2),
                Some(first_sequence + 3)
            ],
            "{}",
            test_db.name
        );
        assert_eq!(counter(&db, &org).await, first_sequence + 3, "{}", test_db.name);

        // A group of stream events (de-duplicated together, appended in one statement): one the
        // ledger has, one given twice; the new ones take the next sequences.
        let stream = |n: usize| {
            let (source, key, payload) = script[n].clone();
            let mut obs = observation(&org, &agent, source, key.as_deref(), payload);
            obs.local_task_id = Some(first.task_id.clone());
            obs
        };
        let group = [stream(3), stream(4), stream(4), stream(5)];
        let done = ingestor.ingest_group(&group).await.unwrap();
        let sequences: Vec<Option<i64>> = done.iter().map(|d| d.sequence).collect();
        assert_eq!(
            sequences,
            [None, Some(first_sequence + 4), None, Some(first_sequence + 5)],
            "{}",
            test_db.name
        );
        assert_eq!(counter(&db, &org).await, first_sequence + 5, "{}", test_db.name);
        let view = server::store::tasks::view(&db.read, &Access::everything(org.as_str()), &first.task_id)
            .await
            .unwrap();
        assert_eq!(view.last_sequence, first_sequence + 5, "{}", test_db.name);

        // A group that fails commits nothing: the counter stays where it was.
        let (source, key, payload) = script[6].clone();
        let mut good = observation(&org, &agent, source, key.as_deref(), payload);
        good.local_task_id = Some(first.task_id.clone());
        let mut hostile = good.clone();
        hostile.source_key = Some("hostile:1".into());
        hostile.payload = json!({"statusUpdate": {"taskId": "remote-2", "contextId": "ctx-1",
            "status": {"state": "TASK_STATE_WORKING"}}});
        assert!(matches!(
            ingestor.ingest_group(&[good.clone(), hostile]).await,
            Err(IngestError::Identity(_))
        ));
        assert_eq!(counter(&db, &org).await, first_sequence + 5, "{}", test_db.name);
        assert_eq!(
            ingestor.ingest(&good).await.unwrap().sequence,
            Some(first_sequence + 6),
            "{}: the failed group used no sequence",
            test_db.name
        );

        // An unknown local task (its row and the counter are read together on SQLite): refused,
        // and the reservation made with the read is not kept.
        let mut stranger = good.clone();
        stranger.local_task_id = Some("00000000-0000-4000-8000-000000000000".into());
        stranger.source_key = Some("stranger:1".into());
        assert!(matches!(
            ingestor.ingest(&stranger).await,
            Err(IngestError::Identity("Unknown local task."))
        ));
        assert_eq!(counter(&db, &org).await, first_sequence + 6, "{}", test_db.name);
        test_db.cleanup().await;
    }
}
