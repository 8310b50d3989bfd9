//! The archive's bounds (issue #26): a per-organization quota with a clear error on the task.

use base64::Engine as _;
use serde_json::{Value, json};
use server::ingest::archive::{ARCHIVE_METADATA_KEY, digest};
use server::ingest::{Observation, Source};
use server::store::organizations;

use crate::support::{self, get, text};

fn base64_of(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

async fn agent(db: &server::db::Db) -> (String, String) {
    let org = organizations::local(db).await.unwrap();
    let agent = server::store::agents::register(
        db,
        &org.id,
        "http://127.0.0.1:9/card.json",
        server::store::agents::AgentSource::Managed,
    )
    .await
    .unwrap();
    (org.id, agent.id)
}

/// A completed task carrying one inline file per `(artifact id, bytes)`.
fn task_with_files(org: &str, agent: &str, remote: &str, files: &[(&str, &[u8])]) -> Observation {
    let artifacts: Vec<Value> = files
        .iter()
        .map(|(id, bytes)| {
            json!({"artifactId": id, "parts": [
                {"raw": base64_of(bytes), "mediaType": "application/octet-stream", "filename": format!("{id}.bin")}
            ]})
        })
        .collect();
    Observation {
        organization_id: org.into(),
        agent_id: agent.into(),
        tenant: String::new(),
        conversation_id: "00000000-0000-4000-8000-00000000a26e".into(),
        local_task_id: None,
        source: Source::CommandResponse,
        source_key: Some(remote.into()),
        payload: json!({"task": {"id": remote, "status": {"state": "TASK_STATE_COMPLETED"}, "artifacts": artifacts}}),
        extensions: vec![],
        protocol_version: Some("1.0".into()),
        skill_id: None,
        fence: None,
        rearm: false,
    }
}

/// Issue #26: `A2A_ARTIFACT_QUOTA_BYTES`. A file that would pass the organization's quota is
/// not written, and the task shows why in place of the file.
#[tokio::test]
async fn a_file_past_the_quota_is_not_archived_and_the_task_says_why() {
    let (state, _db) = support::app_with(&[("A2A_ARTIFACT_QUOTA_BYTES", "32")]).await;
    let (org, agent) = agent(&state.db).await;
    let fits = [7u8; 20];
    let too_much = [9u8; 20];
    let done = state
        .ingestor
        .ingest(&task_with_files(
            &org,
            &agent,
            "r-1",
            &[("first", &fits), ("second", &too_much)],
        ))
        .await
        .unwrap();
    let store = &state.ingestor.store;
    assert!(store.path(&org, &digest(&fits)).unwrap().exists());
    assert!(
        !store.path(&org, &digest(&too_much)).unwrap().exists(),
        "nothing past the quota is written"
    );

    let response = get(&state, &format!("/api/tasks/{}", done.task_id)).await;
    assert_eq!(response.status(), 200);
    let task: Value = serde_json::from_str(&text(response).await).unwrap();
    let artifacts = task["task"]["artifacts"].as_array().unwrap();
    assert_eq!(
        artifacts[0]["parts"][0]["content"]["url"],
        format!("/api/artifacts/{}", digest(&fits))
    );
    let refused = &artifacts[1]["parts"][0];
    let message = "Artifact not archived: the organization's archive quota (32 bytes) is full.";
    assert_eq!(refused["content"]["text"], message, "{refused}");
    assert_eq!(refused["metadata"][ARCHIVE_METADATA_KEY]["refused"], message);
    let download = get(&state, &format!("/api/artifacts/{}", digest(&too_much))).await;
    assert_eq!(download.status(), 404);
}
