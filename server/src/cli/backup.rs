//! `agent-taskbay backup FILE`: a consistent copy of the embedded SQLite database, taken while
//! the console keeps serving (docs/guides/backup.md, ADR 0042).
//!
//! The copy is written beside `FILE` under a hidden temporary name, checked by SQLite
//! (`PRAGMA quick_check`) and read back, flushed to disk, made readable by its owner only (it
//! holds sessions and sealed credentials), and only then given its name, which is never
//! overwritten: a failed or interrupted backup leaves no file called `FILE`.

use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};

use crate::config::{Config, DatabaseConfig};
use crate::db::{self, connect::sqlite_pool};
use crate::store::backup::{self, Contents};

pub async fn run(file: PathBuf, config: Config) -> anyhow::Result<()> {
    let DatabaseConfig::Sqlite { path } = &config.database else {
        bail!(
            "agent-taskbay backup copies the embedded SQLite database; this console uses PostgreSQL: back it up \
             with pg_dump --format=custom (docs/guides/backup.md)."
        );
    };
    if !path.is_file() {
        bail!(
            "There is no SQLite database at {}: nothing to back up.",
            path.display()
        );
    }
    if file.exists() {
        bail!("{} already exists; back up into a new file.", file.display());
    }
    let dir = match file.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if !dir.is_dir() {
        bail!("The directory {} does not exist.", dir.display());
    }
    let name = file
        .file_name()
        .with_context(|| format!("{} does not name a file", file.display()))?;
    let partial = dir.join(format!(
        ".{}.partial-{}",
        name.to_string_lossy(),
        std::process::id()
    ));
    let result = copy_and_check(path, &partial).await;
    let contents = match result.and_then(|contents| finish(&partial, &file).map(|()| contents)) {
        Ok(contents) => contents,
        Err(error) => {
            remove_copy(&partial);
            return Err(error);
        }
    };
    remove_copy(&partial);
    let size = std::fs::metadata(&file).map(|m| m.len()).unwrap_or(0);
    println!(
        "Backed up {} to {} ({size} bytes): {} organization(s), {} task(s), {} ledger event(s), schema at migration {}.",
        path.display(),
        file.display(),
        contents.organizations,
        contents.tasks,
        contents.ledger_events,
        contents.migrations,
    );
    println!(
        "Now copy the artifact directory {} (a copy newer than the database is harmless, an older one is not), \
         and keep the vault keys (A2A_VAULT_KEYS) apart from this file.",
        config.artifact_dir.display()
    );
    Ok(())
}

async fn copy_and_check(database: &Path, partial: &Path) -> anyhow::Result<Contents> {
    remove_copy(partial);
    // Readable by its owner only from its first byte (it holds sessions and sealed
    // credentials); `VACUUM INTO` writes into an empty file.
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(partial).context("creating the copy")?;
    let db = db::connect(&DatabaseConfig::Sqlite {
        path: database.to_path_buf(),
    })
    .await
    .context("opening the database")?;
    let copied = backup::vacuum_into(&db.write, partial).await;
    db.close().await;
    copied.context("copying the database")?;
    let copy = sqlite_pool(partial, 1, false).await.context("opening the copy")?;
    let checked = backup::check(&copy).await;
    copy.close().await.context("closing the copy")?;
    checked.context("checking the copy")
}

/// Flushes the copy, restricts it to its owner and links it under its name (never replacing a
/// file that appeared meanwhile).
fn finish(partial: &Path, file: &Path) -> anyhow::Result<()> {
    let copy = std::fs::File::open(partial).context("reopening the copy")?;
    copy.sync_all().context("flushing the copy to disk")?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(partial, std::fs::Permissions::from_mode(0o600))
            .context("making the copy readable by its owner only")?;
    }
    std::fs::hard_link(partial, file).with_context(|| format!("naming the copy {}", file.display()))?;
    Ok(())
}

/// Removes the temporary copy and what SQLite may have left beside it.
fn remove_copy(partial: &Path) {
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let mut name = partial.as_os_str().to_owned();
        name.push(suffix);
        let _ = std::fs::remove_file(PathBuf::from(name));
    }
}
