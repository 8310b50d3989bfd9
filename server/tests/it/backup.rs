//! Backups and restores as the runbook does them (docs/guides/backup.md,
//! `shared/spec/security-and-durability.md` §6.4), on real processes: `agent-taskbay backup FILE`
//! while the console serves the embedded SQLite file, then a restore into a fresh data
//! directory; `pg_dump --format=custom` and `pg_restore` into an empty PostgreSQL database. In
//! both, the restored console shows what was committed before the backup and nothing after it.

use std::path::Path;

use crate::processes::{get_json, register, send, serve, task_in_state};
use crate::support::{self, binary};

const DONE: &str = "TASK_STATE_COMPLETED";

fn backup(env: &[(&str, String)], file: &Path) -> std::process::Output {
    let mut command = binary();
    command.arg("backup").arg(file);
    for (name, value) in env {
        command.env(name, value);
    }
    command.output().unwrap()
}

async fn task_ids(http: &reqwest::Client, base: &str) -> Vec<String> {
    let list = get_json(http, &format!("{base}/api/tasks")).await;
    let mut ids: Vec<String> = list["tasks"]
        .as_array()
        .unwrap_or_else(|| panic!("{list}"))
        .iter()
        .map(|t| t["localId"].as_str().unwrap().to_owned())
        .collect();
    ids.sort();
    ids
}

#[tokio::test]
async fn a_sqlite_backup_taken_while_serving_restores_into_a_fresh_data_directory() {
    let demo = support::demo().await;
    let dir = tempfile::tempdir().unwrap();
    let data = |name: &str| dir.path().join(name).to_str().unwrap().to_owned();
    let env = |name: &str| {
        vec![
            ("A2A_DATA_DIR", data(name)),
            ("A2A_ALLOW_PRIVATE_NETWORKS", "true".to_owned()),
        ]
    };
    let http = crate::credentials::http();
    let live = serve(&http, &env("live")).await;
    let base = live.base.clone();
    let agent = register(&http, &base, &format!("{demo}/trace/card.json")).await;
    let before = send(&http, &base, &agent, "backup-1", "check the health").await;
    task_in_state(&http, &base, &before, DONE).await;

    // Taken while the console serves.
    let file = dir.path().join("taskbay-backup.sqlite3");
    let out = backup(&env("live"), &file);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("1 organization(s), 1 task(s)"), "{stdout}");
    assert!(stdout.contains("Now copy the artifact directory"), "{stdout}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "the copy holds sessions and sealed credentials");
    }
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains("partial"))
        .collect();
    assert!(leftovers.is_empty(), "no temporary copy is left: {leftovers:?}");

    // A backup never replaces a file.
    let again = backup(&env("live"), &file);
    assert!(!again.status.success());
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("already exists; back up into a new file."),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );

    // Work after the backup is not in it.
    let after = send(&http, &base, &agent, "backup-2", "check again").await;
    task_in_state(&http, &base, &after, DONE).await;
    drop(live);

    // Restore: the copy becomes the database of a fresh data directory.
    std::fs::create_dir_all(data("restored")).unwrap();
    std::fs::copy(&file, Path::new(&data("restored")).join("agent-taskbay.sqlite3")).unwrap();
    let restored = serve(&http, &env("restored")).await;
    let base = restored.base.clone();
    assert_eq!(task_ids(&http, &base).await, vec![before.clone()]);
    let view = task_in_state(&http, &base, &before, DONE).await;
    assert!(!view["task"]["messages"].as_array().unwrap().is_empty(), "{view}");
    // The restored console goes on working.
    let next = send(&http, &base, &agent, "backup-3", "and once more").await;
    task_in_state(&http, &base, &next, DONE).await;
}

#[tokio::test]
async fn backup_refuses_what_it_cannot_copy_with_one_clear_line() {
    let dir = tempfile::tempdir().unwrap();
    let missing = backup(
        &[(
            "A2A_DATA_DIR",
            dir.path().join("none").to_str().unwrap().to_owned(),
        )],
        &dir.path().join("copy.sqlite3"),
    );
    assert!(!missing.status.success());
    let stderr = String::from_utf8_lossy(&missing.stderr);
    assert!(stderr.contains("There is no SQLite database at"), "{stderr}");
    assert!(!dir.path().join("none").exists(), "nothing is created");

    let postgres = backup(
        &[(
            "A2A_DATABASE_URL",
            "postgres://nobody@127.0.0.1:1/none".to_owned(),
        )],
        &dir.path().join("copy.sqlite3"),
    );
    assert!(!postgres.status.success());
    let stderr = String::from_utf8_lossy(&postgres.stderr);
    assert!(
        stderr.contains("back it up with pg_dump --format=custom"),
        "{stderr}"
    );
    assert!(!dir.path().join("copy.sqlite3").exists());
}

fn run_tool(program: &str, args: &[&str]) {
    let out = std::process::Command::new(program)
        .args(args)
        .output()
        .unwrap_or_else(|e| {
            panic!("{program} is needed for the PostgreSQL runbook test (Debian: postgresql-client): {e}")
        });
    assert!(
        out.status.success(),
        "{program} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[tokio::test]
async fn a_pg_dump_restores_into_an_empty_database_as_the_runbook_says() {
    let (Some(source), Some(target)) = (support::postgres().await, support::postgres().await) else {
        return;
    };
    source.migrated().await.close().await;
    let demo = support::demo().await;
    let dir = tempfile::tempdir().unwrap();
    let env = |url: String, name: &str| {
        vec![
            ("A2A_DATABASE_URL", url),
            ("A2A_ALLOW_PRIVATE_NETWORKS", "true".to_owned()),
            ("A2A_DATA_DIR", dir.path().join(name).to_str().unwrap().to_owned()),
            (
                "A2A_ARTIFACT_DATA_DIR",
                dir.path().join("artifacts").to_str().unwrap().to_owned(),
            ),
        ]
    };
    let http = crate::credentials::http();
    let live = serve(&http, &env(source.postgres_url(), "a")).await;
    let base = live.base.clone();
    let agent = register(&http, &base, &format!("{demo}/trace/card.json")).await;
    let task = send(&http, &base, &agent, "dump-1", "check the health").await;
    task_in_state(&http, &base, &task, DONE).await;

    let dump = dir.path().join("taskbay.dump");
    run_tool(
        "pg_dump",
        &[
            "--format=custom",
            "--file",
            dump.to_str().unwrap(),
            &source.postgres_url(),
        ],
    );
    drop(live);
    run_tool(
        "pg_restore",
        &[
            "--no-owner",
            "--exit-on-error",
            "--dbname",
            &target.postgres_url(),
            dump.to_str().unwrap(),
        ],
    );

    // Nothing pending after a restore into the same version; the console serves what was dumped.
    let mut migrate = binary();
    migrate.arg("migrate");
    for (name, value) in env(target.postgres_url(), "b") {
        migrate.env(name, value);
    }
    let out = migrate.output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("0 migration(s) applied"));
    let restored = serve(&http, &env(target.postgres_url(), "b")).await;
    let base = restored.base.clone();
    assert_eq!(task_ids(&http, &base).await, vec![task.clone()]);
    task_in_state(&http, &base, &task, DONE).await;
    let next = send(&http, &base, &agent, "dump-2", "and again").await;
    task_in_state(&http, &base, &next, DONE).await;
    source.cleanup().await;
    target.cleanup().await;
}
