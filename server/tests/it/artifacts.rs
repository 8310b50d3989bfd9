//! The archive's bounds (issue #26): a per-organization quota with a clear error on the task,
//! and `gc-artifacts`, which removes only unreferenced objects past an age threshold.

use std::time::{Duration, SystemTime};

use base64::Engine as _;
use serde_json::{Value, json};
use server::ingest::Observation;
use server::ingest::archive::{ARCHIVE_METADATA_KEY, digest};

use crate::support::{self, get, text};

fn base64_of(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
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
        source_key: Some(remote.into()),
        ..support::observation(
            org,
            agent,
            "00000000-0000-4000-8000-00000000a26e",
            json!({"task": {"id": remote, "status": {"state": "TASK_STATE_COMPLETED"}, "artifacts": artifacts}}),
        )
    }
}

/// Issue #26: `A2A_ARTIFACT_QUOTA_BYTES`. A file that would pass the organization's quota is
/// not written, and the task shows why in place of the file.
#[tokio::test]
async fn a_file_past_the_quota_is_not_archived_and_the_task_says_why() {
    let (state, _db) = support::app_with(&[("A2A_ARTIFACT_QUOTA_BYTES", "32")]).await;
    let (org, agent) = support::local_agent(&state.db).await;
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
    // Past the quota the event's original is not archived either; the rebuild check still
    // accepts the event as stored, and checks the object it does reference.
    server::ingest::verify::verify(&state.db, store, &done.task_id)
        .await
        .unwrap();
    std::fs::remove_file(store.path(&org, &digest(&fits)).unwrap()).unwrap();
    let missing = server::ingest::verify::verify(&state.db, store, &done.task_id)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        missing.starts_with(&format!("Archived object {} ", digest(&fits))),
        "{missing}"
    );
}

use crate::support::binary;

fn age(path: &std::path::Path, by: Duration) {
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(SystemTime::now() - by)
        .unwrap();
}

/// Issue #26: `gc-artifacts` removes unreferenced objects older than the threshold (one hour
/// by default), and never a referenced one or a recent one (it may be about to be referenced).
#[tokio::test]
async fn gc_artifacts_removes_only_old_unreferenced_objects() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap().to_owned();
    let config = support::config_from(&[("A2A_DATA_DIR", &data)]);
    let db = server::db::connect(&config.database).await.unwrap();
    server::db::migration::migrate(&db).await.unwrap();
    let (org, agent) = support::local_agent(&db).await;
    let store = server::ingest::archive::ArtifactStore::new(config.artifact_dir.clone());
    let ingestor = server::ingest::Ingestor::new(db.clone(), store.clone(), Default::default());
    let referenced = b"kept: a task references me".as_slice();
    ingestor
        .ingest(&task_with_files(&org, &agent, "r-1", &[("kept", referenced)]))
        .await
        .unwrap();
    db.close().await;
    let orphan = b"nobody references me".as_slice();
    let fresh = b"written, not yet referenced".as_slice();
    for bytes in [orphan, fresh] {
        store.put(&org, bytes).unwrap();
    }
    let old = Duration::from_secs(2 * 60 * 60);
    age(&store.path(&org, &digest(referenced)).unwrap(), old);
    age(&store.path(&org, &digest(orphan)).unwrap(), old);
    let unfinished =
        config
            .artifact_dir
            .join(&org)
            .join(format!(".{}.{}", digest(b"cut"), uuid::Uuid::new_v4()));
    std::fs::write(&unfinished, b"cut").unwrap();
    age(&unfinished, old);

    let output = binary()
        .env("A2A_DATA_DIR", &data)
        .arg("gc-artifacts")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let name = unfinished.file_name().unwrap().to_str().unwrap();
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        format!(
            "Removed {org}/{} ({} bytes).\nRemoved {org}/{name} (3 bytes).\n\
             Removed 2 unreferenced file(s), freed {} bytes; kept 3 object(s).\n",
            digest(orphan),
            orphan.len(),
            orphan.len() + 3
        )
    );
    assert!(!store.path(&org, &digest(orphan)).unwrap().exists());
    assert!(!unfinished.exists());
    assert!(
        store.path(&org, &digest(referenced)).unwrap().exists(),
        "referenced: kept"
    );
    assert!(store.path(&org, &digest(fresh)).unwrap().exists(), "recent: kept");

    // With no threshold the recent orphan goes too; the referenced object still stays.
    let output = binary()
        .env("A2A_DATA_DIR", &data)
        .args(["gc-artifacts", "--min-age-secs", "0"])
        .output()
        .unwrap();
    assert!(output.status.success());
    assert!(String::from_utf8(output.stdout).unwrap().ends_with(&format!(
        "Removed 1 unreferenced file(s), freed {} bytes; kept 2 object(s).\n",
        fresh.len()
    )));
    assert!(!store.path(&org, &digest(fresh)).unwrap().exists());
    assert!(store.path(&org, &digest(referenced)).unwrap().exists());
    // The event's archived original (its payload digest) is a reference too: a rebuild after
    // the collection still finds everything it checks.
    let rebuilt = binary()
        .env("A2A_DATA_DIR", &data)
        .arg("rebuild-projections")
        .output()
        .unwrap();
    assert!(
        rebuilt.status.success(),
        "{}",
        String::from_utf8_lossy(&rebuilt.stderr)
    );
}

/// Re-using a stored object renews its age, so a collection running meanwhile keeps it.
#[test]
fn storing_an_existing_object_again_makes_it_recent() {
    let dir = tempfile::tempdir().unwrap();
    let store = server::ingest::archive::ArtifactStore::new(dir.path());
    store.put("org-1", b"again").unwrap();
    let path = store.path("org-1", &digest(b"again")).unwrap();
    age(&path, Duration::from_secs(7200));
    store.put("org-1", b"again").unwrap();
    let modified = std::fs::metadata(&path).unwrap().modified().unwrap();
    assert!(SystemTime::now().duration_since(modified).unwrap() < Duration::from_secs(60));
}
