//! The committed-event source the live readers share (`server::ingest::committed`), on each
//! database: it reads a scope's events in order from its cursor and wakes on the bus long before
//! its re-read interval, but not for other tasks' commits.

use std::time::Duration;

use serde_json::json;
use server::ingest::archive::ArtifactStore;
use server::ingest::bus::Bus;
use server::ingest::committed::{CommittedEvents, Wake};
use server::ingest::{Ingestor, Observation, Source};
use server::store::tasks::EventScope;

use crate::support;

const CONVERSATION: &str = "00000000-0000-4000-8000-00000000c0de";
/// Far longer than any wait here: a wake-up within the test's time came from the bus.
const REREAD: Duration = Duration::from_secs(60);

fn status(org: &str, agent: &str, remote: &str, state: &str, key: &str) -> Observation {
    Observation {
        source: Source::Stream,
        source_key: Some(key.into()),
        ..support::observation(
            org,
            agent,
            CONVERSATION,
            json!({"statusUpdate": {"taskId": remote, "contextId": "c", "status": {"state": state}}}),
        )
    }
}

#[tokio::test]
async fn reads_in_order_and_wakes_on_the_bus_for_its_task_only() {
    for test_db in support::backends().await {
        let db = test_db.migrated().await;
        let dir = tempfile::tempdir().unwrap();
        let bus = Bus::default();
        let ingestor = Ingestor::new(db.clone(), ArtifactStore::new(dir.path()), bus.clone());
        let (org, agent) = support::local_agent(&db).await;
        let first = ingestor
            .ingest(&Observation {
                source: Source::CommandResponse,
                ..support::observation(
                    &org,
                    &agent,
                    CONVERSATION,
                    json!({"task": {"id": "r1", "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}}}),
                )
            })
            .await
            .unwrap();
        let mut events = CommittedEvents::new(
            &bus,
            db.clone(),
            org.clone(),
            Some(EventScope::Task(first.task_id.clone())),
            0,
            REREAD,
        );
        let batch = events.read().await.unwrap();
        assert_eq!(batch.events.len(), 1, "{}", test_db.name);
        assert!(!batch.full);
        assert_eq!(events.after(), first.sequence.unwrap());

        // Another task's commit does not wake the reader.
        ingestor
            .ingest(&Observation {
                source: Source::CommandResponse,
                ..support::observation(
                    &org,
                    &agent,
                    CONVERSATION,
                    json!({"task": {"id": "r2", "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}}}),
                )
            })
            .await
            .unwrap();
        assert!(
            tokio::time::timeout(Duration::from_millis(300), events.wait())
                .await
                .is_err(),
            "{}: woken by another task",
            test_db.name
        );

        // Its own task's commit does, long before the re-read interval.
        let next = ingestor
            .ingest(&status(&org, &agent, "r1", "TASK_STATE_COMPLETED", "s1"))
            .await
            .unwrap();
        let wake = tokio::time::timeout(Duration::from_secs(5), events.wait())
            .await
            .expect("woken by the bus");
        let Wake::Notice(notice) = wake else {
            panic!("{}: expected a notice, got {wake:?}", test_db.name);
        };
        assert!(events.advances(&notice));
        let batch = events.read().await.unwrap();
        let sequences: Vec<i64> = batch.events.iter().map(|e| e.sequence).collect();
        assert_eq!(sequences, vec![next.sequence.unwrap()], "{}", test_db.name);
        assert!(!events.advances(&notice), "an event already read wakes nothing");
        test_db.cleanup().await;
    }
}
