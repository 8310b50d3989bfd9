//! `gc-artifacts` (issue #26): removes archived objects that no task references.
//!
//! Safe while the console serves: a file is written before the event that references it
//! commits, and re-using a stored object renews its modification time
//! ([`ArtifactStore::put`]), so only an object unreferenced *and* untouched for at least the
//! threshold ([`DEFAULT_MIN_AGE`]) is removed; its age is read again just before removal.
//! Temporary files of writes that never finished are removed after the same threshold.

use std::time::{Duration, SystemTime};

use super::archive::ArtifactStore;
use crate::db::Db;
use crate::store::{StoreError, artifacts};

/// Default age an unreferenced object must reach before it is removed: one hour, far longer
/// than any ingestion transaction.
pub const DEFAULT_MIN_AGE: Duration = Duration::from_secs(60 * 60);

/// One removed file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Removed {
    pub organization_id: String,
    /// The digest, or the name of an unfinished write's temporary file.
    pub name: String,
    pub size: u64,
}

/// What a collection did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Collected {
    pub removed: Vec<Removed>,
    /// Objects left in place (referenced, or younger than the threshold).
    pub kept: usize,
}

impl Collected {
    /// Bytes freed.
    pub fn freed(&self) -> u64 {
        self.removed.iter().map(|removed| removed.size).sum()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum GcError {
    #[error("reading the artifact store: {0}")]
    Io(#[from] std::io::Error),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Removes every object of every organization directory that no task references and that is
/// older than `min_age`.
pub async fn collect(db: &Db, store: &ArtifactStore, min_age: Duration) -> Result<Collected, GcError> {
    let mut collected = Collected::default();
    let organizations = match std::fs::read_dir(store.root()) {
        Ok(entries) => entries,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(collected),
        Err(error) => return Err(error.into()),
    };
    let mut names = Vec::new();
    for entry in organizations {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        // Only directories named like an organization id hold objects.
        if entry.file_type()?.is_dir() && store.path(&name, &"0".repeat(64)).is_some() {
            names.push(name);
        }
    }
    names.sort();
    for org in names {
        collect_organization(db, store, &org, min_age, &mut collected).await?;
    }
    Ok(collected)
}

async fn collect_organization(
    db: &Db,
    store: &ArtifactStore,
    org: &str,
    min_age: Duration,
    collected: &mut Collected,
) -> Result<(), GcError> {
    // The files first, then the references: an object referenced after this query was
    // touched by its write, so its age check below keeps it.
    let mut objects = store.objects(org)?;
    objects.sort_by(|a, b| a.digest.cmp(&b.digest));
    let referenced = artifacts::referenced_digests(db, org).await?;
    for object in objects {
        let Some(path) = store.path(org, &object.digest) else {
            continue;
        };
        if referenced.contains(&object.digest)
            || !old_enough(&path, min_age)?
            || is_marker(&path, object.size)?
        {
            collected.kept += 1;
            continue;
        }
        // Set aside, look at the references once more, then remove or put back: an event that
        // re-used the object in between is not left pointing at nothing (issue #26 review).
        let aside = path.with_file_name(format!(".gc.{}.{}", object.digest, uuid::Uuid::new_v4()));
        match std::fs::rename(&path, &aside) {
            Ok(()) => {}
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => continue,
            Err(error) => return Err(error.into()),
        }
        if artifacts::is_referenced(db, org, &object.digest).await? {
            if path.exists() {
                std::fs::remove_file(&aside)?;
            } else {
                std::fs::rename(&aside, &path)?;
            }
            collected.kept += 1;
            continue;
        }
        remove(&aside, org, object.digest, object.size, collected)?;
    }
    for (name, path, size) in unfinished_writes(store, org)? {
        if old_enough(&path, min_age)? {
            remove(&path, org, name, size, collected)?;
        }
    }
    Ok(())
}

/// Whether the object at `path` is the marker of an event whose original is not archived
/// ([`super::archive::stored_marker`]): the rebuild check needs it for as long as the ledger
/// lasts.
fn is_marker(path: &std::path::Path, size: u64) -> std::io::Result<bool> {
    if size > 512 {
        return Ok(false);
    }
    match std::fs::read(path) {
        Ok(bytes) => Ok(bytes.starts_with(super::archive::MARKER_HEADER.as_bytes())),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(error) => Err(error),
    }
}

/// Whether the file at `path` was last modified at least `min_age` ago (a file gone meanwhile
/// is not).
fn old_enough(path: &std::path::Path, min_age: Duration) -> std::io::Result<bool> {
    let modified = match std::fs::metadata(path) {
        Ok(meta) => meta.modified()?,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(error) => return Err(error),
    };
    Ok(SystemTime::now()
        .duration_since(modified)
        .is_ok_and(|age| age >= min_age))
}

fn remove(
    path: &std::path::Path,
    org: &str,
    name: String,
    size: u64,
    collected: &mut Collected,
) -> std::io::Result<()> {
    match std::fs::remove_file(path) {
        Ok(()) => {
            collected.removed.push(Removed {
                organization_id: org.to_owned(),
                name,
                size,
            });
            Ok(())
        }
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(error) => Err(error),
    }
}

/// Temporary files (`.<digest>.<uuid>`) of writes that did not finish.
fn unfinished_writes(
    store: &ArtifactStore,
    org: &str,
) -> std::io::Result<Vec<(String, std::path::PathBuf, u64)>> {
    let dir = store.root().join(org);
    let mut found = Vec::new();
    for entry in std::fs::read_dir(&dir)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let is_temporary = name
            .strip_prefix('.')
            .and_then(|rest| rest.split_once('.'))
            .is_some_and(|(digest, id)| {
                store.path(org, digest).is_some() && uuid::Uuid::parse_str(id).is_ok()
            });
        let meta = entry.metadata()?;
        if is_temporary && meta.is_file() {
            found.push((name, entry.path(), meta.len()));
        }
    }
    Ok(found)
}
