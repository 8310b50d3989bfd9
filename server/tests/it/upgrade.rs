//! The upgrade procedure of `docs/guides/backup.md` on a database written by an older release
//! (`server/tests/fixtures/upgrade/`, made by the release at `b03ce17`, before sign-in, the
//! vault, reconciliation cursors and push registrations): back it up, migrate, start, and find
//! every task as it was; rebuild its projections from its ledger; send again.

use std::path::Path;

use serde_json::Value;

use crate::processes::{register, send, serve, task_in_state};
use crate::support::{self, binary};

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/upgrade/b03ce17");

fn run(env: &[(&str, String)], args: &[&str]) -> (bool, String, String) {
    let mut command = binary();
    command.args(args);
    for (name, value) in env {
        command.env(name, value);
    }
    let out = command.output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[tokio::test]
async fn a_database_from_an_older_release_is_backed_up_migrated_and_served_with_every_task() {
    let expected: Value =
        serde_json::from_str(&std::fs::read_to_string(format!("{FIXTURE}.json")).unwrap()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir_all(&data).unwrap();
    std::fs::copy(format!("{FIXTURE}.sqlite3"), data.join("agent-taskbay.sqlite3")).unwrap();
    let env = vec![
        ("A2A_DATA_DIR", data.to_str().unwrap().to_owned()),
        ("A2A_ALLOW_PRIVATE_NETWORKS", "true".to_owned()),
    ];

    // 2. Back up (on the old schema).
    let copy = dir.path().join("before-upgrade.sqlite3");
    let (ok, out, err) = run(&env, &["backup", copy.to_str().unwrap()]);
    assert!(ok, "{out}{err}");
    let tasks = expected["tasks"].as_array().unwrap();
    assert!(out.contains(&format!("{} task(s)", tasks.len())), "{out}");
    assert!(out.contains("schema at migration 7."), "{out}");

    // 5. Migrate: every migration since that release, once.
    let (ok, out, err) = run(&env, &["migrate"]);
    assert!(ok, "{err}");
    assert_eq!(
        out,
        "7 migration(s) applied; the sqlite database is up to date.\n"
    );
    let (_, again, _) = run(&env, &["migrate"]);
    assert_eq!(
        again,
        "0 migration(s) applied; the sqlite database is up to date.\n"
    );
    // Its ledger rebuilds the same projections under the new code.
    let (ok, out, err) = run(&env, &["rebuild-projections"]);
    assert!(ok, "{err}");
    assert!(
        out.ends_with(&format!("Rebuilt {} task(s).\n", tasks.len())),
        "{out}"
    );

    // 6–7. Start: every task as it was; the console works.
    let http = crate::credentials::http();
    let console = serve(&http, &env).await;
    let base = console.base.clone();
    for task in tasks {
        let id = task["id"].as_str().unwrap();
        let view = task_in_state(&http, &base, id, task["state"].as_str().unwrap()).await;
        let messages = view["task"]["messages"].as_array().unwrap();
        assert_eq!(
            messages.len() as u64,
            task["messages"].as_u64().unwrap(),
            "{view}"
        );
        assert_eq!(view["task"]["title"], task["title"], "{view}");
    }
    let demo = support::demo().await;
    let agent = register(&http, &base, &format!("{demo}/trace/card.json")).await;
    let next = send(&http, &base, &agent, "after-upgrade", "check the health").await;
    task_in_state(&http, &base, &next, "TASK_STATE_COMPLETED").await;
    assert!(Path::new(&copy).exists());
}
