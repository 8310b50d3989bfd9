//! The artifact store: inline bytes from agents, on disk, addressed by SHA-256
//! (`<A2A_ARTIFACT_DATA_DIR>/<organization>/<digest>`; `shared/spec/security-and-durability.md`
//! §3.2 "Binary handling", §6.3). Files are written before the database commits; a failed
//! transaction can leave an unreferenced file, which is harmless.
//!
//! Each organization may keep at most its quota of archived bytes (`A2A_ARTIFACT_QUOTA_BYTES`,
//! issue #26): a new object that would pass it is not written, and its part carries the
//! refusal instead. An object already stored costs nothing again.
//!
//! Ingestion replaces every inline `raw` part (1.0) or `file.bytes` (0.3) in a stored event by
//! a part that points at the archive (`/api/artifacts/<digest>`), so the ledger, projections
//! and the browser never carry the bytes.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use sha2::{Digest, Sha256};

/// Largest archived object.
pub const MAX_OBJECT_BYTES: usize = 16 * 1024 * 1024;

/// Metadata key under which an archived part records what it was.
pub const ARCHIVE_METADATA_KEY: &str = "agentTaskbayArchive";

/// How long a measured usage is trusted before a full quota is measured again (another
/// process, such as `gc-artifacts`, may have freed space).
const USAGE_RECHECK: Duration = Duration::from_secs(30);

mod parts;
pub use parts::archive_notes;

/// Where archived bytes live.
#[derive(Clone, Debug)]
pub struct ArtifactStore {
    root: PathBuf,
    /// Bytes one organization may keep; `None`: no quota.
    quota: Option<u64>,
    /// Per organization: bytes stored as last measured plus what this process wrote since,
    /// and when it was measured.
    usage: Arc<Mutex<HashMap<String, (u64, Instant)>>>,
}

/// Why an object was not stored.
#[derive(Debug, thiserror::Error)]
pub enum PutError {
    /// Storing it would pass the organization's quota (bytes).
    #[error("Artifact not archived: the organization's archive quota ({0} bytes) is full.")]
    QuotaFull(u64),
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// One archived object referenced by an event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Archived {
    pub digest: String,
    pub size: u64,
    pub media_type: Option<String>,
    pub filename: Option<String>,
}

/// The first line of a marker object.
pub const MARKER_HEADER: &str = "agent-taskbay stored event";

/// The marker of an event whose complete original is not archived (a part was refused, or the
/// original would pass the quota): it names the event's digest and its stored version's, so a
/// rebuild can tell the console's own rewrite from an edit of the ledger. It is found by its
/// own digest, which the check computes from the stored event.
pub fn stored_marker(payload_digest: &str, stored_digest: &str) -> Vec<u8> {
    format!("{MARKER_HEADER}\noriginal {payload_digest}\nstored {stored_digest}\n").into_bytes()
}

/// The SHA-256 of `bytes`, lowercase hex.
pub fn digest(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

impl ArtifactStore {
    /// A store without a quota.
    pub fn new(root: impl Into<PathBuf>) -> ArtifactStore {
        ArtifactStore {
            root: root.into(),
            quota: None,
            usage: Arc::default(),
        }
    }

    /// The same store with a per-organization quota in bytes (`None`: no quota).
    pub fn with_quota(mut self, quota: Option<u64>) -> ArtifactStore {
        self.quota = quota;
        self
    }

    /// The directory holding every organization's objects.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The file of `digest` for the organization (the digest is checked to be 64 hex).
    pub fn path(&self, organization_id: &str, digest: &str) -> Option<PathBuf> {
        let valid = digest.len() == 64
            && digest
                .bytes()
                .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase());
        let org_valid = !organization_id.is_empty()
            && organization_id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-');
        (valid && org_valid).then(|| self.root.join(organization_id).join(digest))
    }

    /// Stores `bytes` (once per digest) and returns the digest. An object already stored has
    /// its modification time renewed, so `gc-artifacts` sees it as recent until the event that
    /// references it commits. A new object that would pass the quota is refused.
    pub fn put(&self, organization_id: &str, bytes: &[u8]) -> Result<String, PutError> {
        self.write(organization_id, bytes, true)
    }

    /// Stores the marker of an event whose original is not archived ([`stored_marker`]): a
    /// few hundred bytes, outside the quota.
    pub fn put_marker(&self, organization_id: &str, marker: &[u8]) -> std::io::Result<String> {
        self.write(organization_id, marker, false)
            .map_err(|error| match error {
                PutError::Io(error) => error,
                full @ PutError::QuotaFull(_) => std::io::Error::other(full.to_string()),
            })
    }

    fn write(&self, organization_id: &str, bytes: &[u8], metered: bool) -> Result<String, PutError> {
        let digest = digest(bytes);
        let path = self
            .path(organization_id, &digest)
            .ok_or_else(|| std::io::Error::other("invalid organization id"))?;
        match std::fs::File::options().write(true).open(&path) {
            Ok(file) => {
                file.set_modified(SystemTime::now())?;
                return Ok(digest);
            }
            // Not there (or just collected by `gc-artifacts`): written anew below.
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
            Err(error) => return Err(error.into()),
        }
        let size = bytes.len() as u64;
        if metered {
            self.reserve(organization_id, size)?;
        }
        let written = (|| {
            let dir = path.parent().unwrap_or(Path::new("."));
            std::fs::create_dir_all(dir)?;
            let tmp = dir.join(format!(".{digest}.{}", uuid::Uuid::new_v4()));
            std::fs::write(&tmp, bytes)?;
            std::fs::rename(&tmp, &path)
        })();
        if let Err(error) = written {
            if metered {
                self.release(organization_id, size);
            }
            return Err(error.into());
        }
        Ok(digest)
    }

    /// Counts `size` new bytes against the organization's quota, or refuses them.
    fn reserve(&self, org: &str, size: u64) -> Result<(), PutError> {
        let Some(quota) = self.quota else { return Ok(()) };
        let mut usage = self
            .usage
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let fits = |used: u64| used.checked_add(size).is_some_and(|total| total <= quota);
        let (used, measured) = match usage.get(org) {
            Some(&(used, at)) if fits(used) || at.elapsed() < USAGE_RECHECK => (used, at),
            _ => (self.measure(org)?, Instant::now()),
        };
        if !fits(used) {
            usage.insert(org.to_owned(), (used, measured));
            return Err(PutError::QuotaFull(quota));
        }
        usage.insert(org.to_owned(), (used + size, measured));
        Ok(())
    }

    fn release(&self, org: &str, size: u64) {
        let mut usage = self
            .usage
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some((used, _)) = usage.get_mut(org) {
            *used = used.saturating_sub(size);
        }
    }

    /// Bytes of the organization's stored objects, read from the disk.
    pub fn measure(&self, org: &str) -> std::io::Result<u64> {
        Ok(self.objects(org)?.iter().map(|object| object.size).sum())
    }

    /// The organization's stored objects (temporary files of unfinished writes excluded).
    pub fn objects(&self, org: &str) -> std::io::Result<Vec<StoredObject>> {
        let dir = self.root.join(org);
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(error) => return Err(error),
        };
        let mut objects = Vec::new();
        for entry in entries {
            let entry = entry?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if self.path(org, &name).is_none() {
                continue;
            }
            let meta = entry.metadata()?;
            if meta.is_file() {
                objects.push(StoredObject {
                    digest: name,
                    size: meta.len(),
                    modified: meta.modified()?,
                });
            }
        }
        Ok(objects)
    }

    /// The object's bytes, when it exists and its content still has its digest.
    pub fn verified(&self, organization_id: &str, digest: &str) -> Result<Vec<u8>, ObjectProblem> {
        let path = self.path(organization_id, digest).ok_or(ObjectProblem::Missing)?;
        let bytes = std::fs::read(path).map_err(|_| ObjectProblem::Missing)?;
        if self::digest(&bytes) == digest {
            Ok(bytes)
        } else {
            Err(ObjectProblem::Corrupt)
        }
    }
}

/// Why an archived object cannot be used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObjectProblem {
    Missing,
    Corrupt,
}

/// One object on disk.
#[derive(Clone, Debug)]
pub struct StoredObject {
    pub digest: String,
    pub size: u64,
    pub modified: SystemTime,
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use base64::Engine as _;
    use serde_json::json;

    #[test]
    fn inline_bytes_become_archive_references_in_both_versions() {
        let dir = tempfile::tempdir().unwrap();
        let store = ArtifactStore::new(dir.path());
        let b64 = base64::engine::general_purpose::STANDARD.encode(b"hello");
        let payload = json!({"artifactUpdate": {"artifact": {"artifactId": "a", "parts": [
            {"raw": b64, "mediaType": "text/plain", "filename": "h.txt"},
            {"kind": "file", "file": {"bytes": b64, "mimeType": "text/plain"}},
            {"data": {"parts": [{"raw": "bm90IG1l"}]}}
        ]}}});
        let (out, archived) = store.archive_parts("org-1", &payload).unwrap();
        let d = digest(b"hello");
        assert_eq!(archived.len(), 2);
        assert_eq!(
            out["artifactUpdate"]["artifact"]["parts"][0]["url"],
            format!("/api/artifacts/{d}")
        );
        assert!(out["artifactUpdate"]["artifact"]["parts"][0].get("raw").is_none());
        assert_eq!(
            out["artifactUpdate"]["artifact"]["parts"][1]["file"]["uri"],
            format!("/api/artifacts/{d}")
        );
        assert_eq!(
            out["artifactUpdate"]["artifact"]["parts"][2]["data"]["parts"][0]["raw"], "bm90IG1l",
            "data is never rewritten"
        );
        assert_eq!(std::fs::read(store.path("org-1", &d).unwrap()).unwrap(), b"hello");
    }

    #[test]
    fn oversized_or_broken_bytes_are_refused_not_stored() {
        let dir = tempfile::tempdir().unwrap();
        let store = ArtifactStore::new(dir.path());
        let payload = json!({"message": {"parts": [{"raw": "%%% not base64"}]}});
        let (out, archived) = store.archive_parts("org-1", &payload).unwrap();
        assert!(archived.is_empty());
        assert_eq!(
            out["message"]["parts"][0]["metadata"][ARCHIVE_METADATA_KEY]["refused"],
            "The inline bytes are not valid base64."
        );
    }

    /// Issue #26: a per-organization archive quota; a new object that would pass it is not
    /// written and its part says so.
    #[test]
    fn the_quota_refuses_new_objects_once_full_issue_26() {
        let dir = tempfile::tempdir().unwrap();
        let store = ArtifactStore::new(dir.path()).with_quota(Some(10));
        store.put("org-1", b"hello").unwrap();
        let full = store.put("org-1", b"world!").unwrap_err();
        assert_eq!(
            full.to_string(),
            "Artifact not archived: the organization's archive quota (10 bytes) is full."
        );
        assert!(!store.path("org-1", &digest(b"world!")).unwrap().exists());
        store
            .put("org-1", b"hello")
            .expect("an object already stored costs nothing");
        store.put("org-1", b"fives").expect("exactly the quota fits");
        store
            .put("org-2", b"other")
            .expect("each organization has its own quota");
        assert_eq!(store.measure("org-1").unwrap(), 10);

        let b64 = base64::engine::general_purpose::STANDARD.encode(b"x");
        let payload = json!({"message": {"parts": [
            {"raw": b64, "mediaType": "image/png", "filename": "x.png"},
            {"kind": "file", "file": {"bytes": b64, "mimeType": "image/png"}}
        ]}});
        let (out, archived) = store.archive_parts("org-1", &payload).unwrap();
        assert!(archived.is_empty());
        let message = "Artifact not archived: the organization's archive quota (10 bytes) is full.";
        let raw = &out["message"]["parts"][0];
        assert_eq!(raw["text"], message);
        assert_eq!(raw["mediaType"], "text/plain");
        assert_eq!(raw["metadata"][ARCHIVE_METADATA_KEY]["refused"], message);
        assert_eq!(raw["metadata"][ARCHIVE_METADATA_KEY]["filename"], "x.png");
        let legacy = &out["message"]["parts"][1];
        assert_eq!(
            (&legacy["kind"], &legacy["text"]),
            (&json!("text"), &json!(message))
        );
        assert!(legacy.get("file").is_none());
        assert!(!store.path("org-1", &digest(b"x")).unwrap().exists());
    }

    #[test]
    fn paths_refuse_anything_but_a_digest() {
        let store = ArtifactStore::new("/tmp/x");
        assert!(store.path("org", "../etc/passwd").is_none());
        assert!(store.path("../org", &"a".repeat(64)).is_none());
        assert!(store.path("org", &"A".repeat(64)).is_none());
        assert!(store.path("org", &"a".repeat(64)).is_some());
    }
}
