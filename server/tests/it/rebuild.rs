//! `agent-taskbay rebuild-projections` checks the ledger before it replaces anything
//! (`shared/spec/security-and-durability.md` §3.3 "Rebuild" step 2; docs/reference/cli.md): an
//! edited event, a missing or altered archived object, or an event that no longer decodes stops
//! it with one line and exit code 1, and the previous projection stays as it was.

use app::ext::canonical::ledger_json;
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter};
use serde_json::{Value, json};
use server::db::Db;
use server::db::entity::task_event;
use server::ingest::archive::{ArtifactStore, digest};
use server::ingest::bus::Bus;
use server::ingest::{Ingestor, Observation, Source};
use server::store::access::Access;
use server::store::tasks as task_store;

use crate::support;

const PNG: &[u8] = b"\x89PNG fake image bytes";

/// A data directory whose ledger holds one task: a completed reply "hello" with an image
/// artifact whose bytes were archived.
struct Ledger {
    dir: tempfile::TempDir,
    org: String,
    task: String,
}

impl Ledger {
    async fn new() -> Ledger {
        use base64::Engine as _;
        let dir = tempfile::tempdir().unwrap();
        let db = self::open(dir.path()).await;
        server::db::migration::migrate(&db).await.unwrap();
        let org = server::store::organizations::local(&db).await.unwrap().id;
        let agent = server::store::agents::register(
            &db,
            &org,
            "http://127.0.0.1:9/c.json",
            server::store::agents::AgentSource::Managed,
        )
        .await
        .unwrap()
        .id;
        let ingestor = Ingestor::new(
            db.clone(),
            ArtifactStore::new(dir.path().join("artifacts")),
            Bus::default(),
        );
        let png = base64::engine::general_purpose::STANDARD.encode(PNG);
        let task = ingestor
            .ingest(&Observation {
                organization_id: org.clone(),
                agent_id: agent,
                tenant: String::new(),
                conversation_id: "00000000-0000-4000-8000-0000000000aa".into(),
                local_task_id: None,
                source: Source::CommandResponse,
                source_key: Some("c".into()),
                payload: json!({"task": {"id": "r", "status": {"state": "TASK_STATE_COMPLETED",
                    "message": {"messageId": "m1", "role": "ROLE_AGENT", "parts": [{"text": "hello"}]}},
                    "artifacts": [{"artifactId": "img", "parts": [{"raw": png, "mediaType": "image/png"}]}]}}),
                extensions: vec![],
                protocol_version: None,
                skill_id: None,
                fence: None,
                rearm: false,
            })
            .await
            .unwrap()
            .task_id;
        db.close().await;
        Ledger { dir, org, task }
    }

    async fn db(&self) -> Db {
        open(self.dir.path()).await
    }

    /// Runs the command; returns `(exit code, stdout, stderr)`.
    fn rebuild(&self) -> (Option<i32>, String, String) {
        let output = crate::support::binary()
            .env("A2A_DATA_DIR", self.dir.path())
            .arg("rebuild-projections")
            .output()
            .unwrap();
        (
            output.status.code(),
            String::from_utf8(output.stdout).unwrap(),
            String::from_utf8(output.stderr).unwrap(),
        )
    }

    /// The projection as the task page reads it.
    async fn projection(&self) -> String {
        let db = self.db().await;
        let view = task_store::view(&db.read, &Access::everything(self.org.as_str()), &self.task)
            .await
            .unwrap();
        db.close().await;
        serde_json::to_string(&view).unwrap()
    }

    /// Writes to the ledger as someone with the database file in hand would: around the
    /// append-only trigger.
    async fn tamper(&self, payload: Value, digest: Option<String>) {
        let db = self.db().await;
        db.write
            .execute_unprepared("DROP TRIGGER task_events_no_update")
            .await
            .unwrap();
        let mut update = task_event::Entity::update_many()
            .col_expr(task_event::Column::PayloadJson, Expr::value(payload))
            .filter(task_event::Column::TaskId.eq(&self.task));
        if let Some(digest) = digest {
            update = update.col_expr(task_event::Column::PayloadDigest, Expr::value(digest));
        }
        update.exec(&db.write).await.unwrap();
        db.close().await;
    }

    async fn stored_payload(&self) -> Value {
        let db = self.db().await;
        let ledger = task_store::ledger(&db.read, &self.task).await.unwrap();
        db.close().await;
        ledger[0].payload_json.clone()
    }

    fn object(&self, digest: &str) -> std::path::PathBuf {
        self.dir.path().join("artifacts").join(&self.org).join(digest)
    }
}

async fn open(dir: &std::path::Path) -> Db {
    let config = support::config_from(&[("A2A_DATA_DIR", dir.to_str().unwrap())]);
    server::db::connect(&config.database).await.unwrap()
}

#[tokio::test]
async fn an_intact_ledger_with_archived_bytes_rebuilds_security_3_3() {
    let ledger = Ledger::new().await;
    let before = ledger.projection().await;
    assert!(before.contains("hello"), "{before}");
    let (code, stdout, stderr) = ledger.rebuild();
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(
        stdout,
        format!(
            "Rebuilt task {} from 1 ledger event(s).\nRebuilt 1 task(s).\n",
            ledger.task
        )
    );
}

#[tokio::test]
async fn an_edited_event_is_refused_and_the_projection_kept_security_3_3() {
    let ledger = Ledger::new().await;
    let before = ledger.projection().await;
    let edited: Value = serde_json::from_str(
        &ledger
            .stored_payload()
            .await
            .to_string()
            .replace("hello", "tampered"),
    )
    .unwrap();
    ledger.tamper(edited, None).await;
    let (code, stdout, stderr) = ledger.rebuild();
    assert_eq!(code, Some(1));
    assert_eq!(stdout, "");
    assert_eq!(
        stderr,
        format!(
            "agent-taskbay: Ledger event 1 of task {} does not match its digest; projections left unchanged.\n",
            ledger.task
        )
    );
    assert_eq!(
        ledger.projection().await,
        before,
        "the tampered text is not served"
    );
}

/// An edit dressed as the console's own rewrite (an archive note saying a part was refused)
/// is refused all the same: only a marker written at ingestion vouches for a stored version
/// whose original is not archived (issue #26 review).
#[tokio::test]
async fn an_edit_with_a_forged_refusal_note_is_refused() {
    fn forge(value: &mut Value) -> bool {
        match value {
            Value::Object(map) => {
                if let Some(Value::Array(parts)) = map.get_mut("parts")
                    && let Some(Value::Object(part)) = parts.first_mut()
                {
                    part.insert(
                        "metadata".into(),
                        serde_json::json!({"agentTaskbayArchive": {"refused": "quota full", "quota": true}}),
                    );
                    return true;
                }
                map.values_mut().any(forge)
            }
            Value::Array(items) => items.iter_mut().any(forge),
            _ => false,
        }
    }
    let ledger = Ledger::new().await;
    let before = ledger.projection().await;
    let text = ledger
        .stored_payload()
        .await
        .to_string()
        .replace("hello", "tampered");
    let mut edited: Value = serde_json::from_str(&text).unwrap();
    assert!(forge(&mut edited), "the event has parts");
    ledger.tamper(edited, None).await;
    let (code, _, stderr) = ledger.rebuild();
    assert_eq!(code, Some(1));
    assert!(
        stderr.ends_with("does not match its digest; projections left unchanged.\n"),
        "{stderr}"
    );
    assert_eq!(ledger.projection().await, before);
}

#[tokio::test]
async fn a_missing_or_altered_archived_object_is_refused_security_3_3() {
    let ledger = Ledger::new().await;
    let before = ledger.projection().await;
    let image = digest(PNG);
    std::fs::remove_file(ledger.object(&image)).unwrap();
    let (code, _, stderr) = ledger.rebuild();
    assert_eq!(code, Some(1));
    assert_eq!(
        stderr,
        format!(
            "agent-taskbay: Archived object {image} of ledger event 1 of task {} is missing; projections left \
             unchanged.\n",
            ledger.task
        )
    );
    std::fs::write(ledger.object(&image), b"other bytes").unwrap();
    let (code, _, stderr) = ledger.rebuild();
    assert_eq!(code, Some(1));
    assert_eq!(
        stderr,
        format!(
            "agent-taskbay: Archived object {image} of ledger event 1 of task {} does not match its digest; \
             projections left unchanged.\n",
            ledger.task
        )
    );
    std::fs::write(ledger.object(&image), PNG).unwrap();
    // The archived original of the event is what its digest is checked against.
    let db = ledger.db().await;
    let event_digest = task_store::ledger(&db.read, &ledger.task).await.unwrap()[0]
        .payload_digest
        .clone();
    db.close().await;
    std::fs::remove_file(ledger.object(&event_digest)).unwrap();
    let (code, _, stderr) = ledger.rebuild();
    assert_eq!(code, Some(1));
    assert_eq!(
        stderr,
        format!(
            "agent-taskbay: Ledger event 1 of task {} does not match its digest; projections left unchanged.\n",
            ledger.task
        )
    );
    assert_eq!(ledger.projection().await, before);
}

#[tokio::test]
async fn an_undecodable_event_is_one_clear_line_security_3_3() {
    let ledger = Ledger::new().await;
    let before = ledger.projection().await;
    let garbage = json!({"task": {"id": 7}});
    ledger
        .tamper(garbage.clone(), Some(digest(ledger_json(&garbage).as_bytes())))
        .await;
    let (code, stdout, stderr) = ledger.rebuild();
    assert_eq!((code, stdout.as_str()), (Some(1), ""));
    assert_eq!(
        stderr,
        format!(
            "agent-taskbay: Ledger event 1 of task {} cannot be read; projections left unchanged.\n",
            ledger.task
        )
    );
    assert_eq!(ledger.projection().await, before);
}
