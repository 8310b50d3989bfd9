//! The `agent-taskbay` binary: help, configuration errors, `migrate`, `serve` and shutdown.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use server::config::VARIABLES;

use crate::ports::{free_port, listens};
use crate::support::{ChildGuard, binary};

#[test]
fn help_lists_subcommands_and_every_variable() {
    let output = binary().arg("--help").output().unwrap();
    assert!(output.status.success());
    let help = String::from_utf8(output.stdout).unwrap();
    for command in ["serve", "migrate"] {
        assert!(help.contains(command), "{command} missing from --help");
    }
    for (name, _) in VARIABLES {
        assert!(help.contains(name), "{name} missing from --help");
    }
    let serve = String::from_utf8(binary().args(["serve", "--help"]).output().unwrap().stdout).unwrap();
    assert!(
        serve.contains("-H, --host") && serve.contains("-p, --port") && serve.contains("[env: PORT=]"),
        "{serve}"
    );
}

#[test]
fn configuration_reference_documents_every_variable() {
    let docs = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../docs/reference/configuration.md"
    ))
    .unwrap();
    for (name, _) in VARIABLES {
        assert!(
            docs.contains(&format!("| `{name}` |")),
            "{name} missing from docs/reference/configuration.md"
        );
    }
}

#[test]
fn the_run_script_waits_for_every_demo_variant() {
    let script = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../scripts/run")).unwrap();
    let expected = format!("variants={}", server::demo_agent::VARIANTS.len());
    assert!(
        script.contains(&expected),
        "scripts/run must wait for {expected} card URLs"
    );
}

#[test]
fn a_bad_variable_stops_the_process_with_one_line_naming_it() {
    let output = binary()
        .env("A2A_ALLOW_PRIVATE_NETWORKS", "maybe")
        .arg("migrate")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(
        stderr,
        "agent-taskbay: invalid configuration: A2A_ALLOW_PRIVATE_NETWORKS: must be true or false, not \"maybe\"\n"
    );
}

#[test]
fn invalid_ports_and_remote_hosts_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let output = binary()
        .env("A2A_DATA_DIR", dir.path())
        .args(["serve", "--port", "0"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let output = binary()
        .env("A2A_DATA_DIR", dir.path())
        .args(["serve", "-H", "0.0.0.0", "-p", "3999"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(
        String::from_utf8(output.stderr)
            .unwrap()
            .contains("--host 0.0.0.0 is not a loopback address.")
    );
}

#[test]
fn migrate_creates_the_embedded_database() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("nested/data");
    let output = binary()
        .env("A2A_DATA_DIR", &data)
        .arg("migrate")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        "14 migration(s) applied; the sqlite database is up to date.\n"
    );
    assert!(data.join("agent-taskbay.sqlite3").exists());
    let output = binary()
        .env("A2A_DATA_DIR", &data)
        .arg("migrate")
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        "0 migration(s) applied; the sqlite database is up to date.\n"
    );
}

fn http_get(port: u16, path: &str) -> Option<String> {
    http_get_as(port, path, &format!("127.0.0.1:{port}"))
}

fn http_get_as(port: u16, path: &str, host: &str) -> Option<String> {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut response = String::new();
    stream.read_to_string(&mut response).ok()?;
    Some(response)
}

#[test]
fn serve_answers_and_stops_gracefully_on_sigterm() {
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let mut guard = ChildGuard(
        binary()
            .env("A2A_DATA_DIR", dir.path())
            .env("A2A_LOG_FORMAT", "json")
            .env("PORT", port.to_string())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let child = &mut guard.0;
    let deadline = Instant::now() + Duration::from_secs(30);
    let ready = loop {
        // Its own answer: another process may have taken the port it was given.
        if let Some(response) = http_get(port, "/readyz").filter(|_| listens(child.id(), port)) {
            break response;
        }
        assert!(Instant::now() < deadline, "server did not answer within 30 s");
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(ready.starts_with("HTTP/1.1 200"), "{ready}");
    // The request guard knows the port the process really bound (issue #26).
    let rebound = http_get_as(port, "/api/tasks", &format!("evil.example:{port}")).unwrap();
    assert!(rebound.starts_with("HTTP/1.1 421"), "{rebound}");

    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let deadline = Instant::now() + Duration::from_secs(15);
    let exit = loop {
        if let Some(exit) = child.try_wait().unwrap() {
            break exit;
        }
        assert!(
            Instant::now() < deadline,
            "server did not stop within 15 s of SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(exit.success(), "graceful shutdown exits 0, got {exit:?}");
    let logs: Vec<serde_json::Value> = BufReader::new(child.stderr.take().unwrap())
        .lines()
        .map(|line| serde_json::from_str(&line.unwrap()).expect("A2A_LOG_FORMAT=json writes JSON lines"))
        .collect();
    let messages: Vec<&str> = logs.iter().filter_map(|l| l["message"].as_str()).collect();
    assert!(messages.contains(&"Agent Taskbay is serving"), "{messages:?}");
    assert!(messages.contains(&"stopped"), "{messages:?}");
}

/// `rebuild-projections` folds every task's ledger again (reference: docs/reference/cli.md); an
/// unknown task stops it with exit code 1 and one line naming the task.
#[tokio::test]
async fn rebuild_projections_reports_each_task_and_the_total() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap().to_owned();
    let config = crate::support::config_from(&[("A2A_DATA_DIR", &data)]);
    let db = server::db::connect(&config.database).await.unwrap();
    server::db::migration::migrate(&db).await.unwrap();
    let org = server::store::organizations::local(&db).await.unwrap();
    let agent = server::store::agents::register(
        &db,
        &org.id,
        "http://127.0.0.1:9/c.json",
        server::store::agents::AgentSource::Managed,
    )
    .await
    .unwrap();
    let ingestor = server::ingest::Ingestor::new(
        db.clone(),
        server::ingest::archive::ArtifactStore::new(dir.path().join("artifacts")),
        server::ingest::bus::Bus::default(),
    );
    let done = ingestor
        .ingest(&server::ingest::Observation {
            organization_id: org.id.clone(),
            agent_id: agent.id.clone(),
            tenant: String::new(),
            conversation_id: "00000000-0000-4000-8000-0000000000aa".into(),
            local_task_id: None,
            source: server::ingest::Source::CommandResponse,
            source_key: Some("c".into()),
            payload: serde_json::json!({"task": {"id": "r", "status": {"state": "TASK_STATE_COMPLETED"}}}),
            extensions: vec![],
            protocol_version: None,
            skill_id: None,
            fence: None,
            rearm: false,
        })
        .await
        .unwrap();
    db.close().await;
    let output = binary()
        .env("A2A_DATA_DIR", &data)
        .arg("rebuild-projections")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        format!(
            "Rebuilt task {} from 1 ledger event(s).\nRebuilt 1 task(s).\n",
            done.task_id
        )
    );
    let output = binary()
        .env("A2A_DATA_DIR", &data)
        .args([
            "rebuild-projections",
            "--task",
            "00000000-0000-4000-8000-000000000404",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(output.stderr).unwrap(),
        "agent-taskbay: Task 00000000-0000-4000-8000-000000000404 does not exist; projections left unchanged.\n"
    );
}

/// `agent-taskbay worker` needs PostgreSQL (§6.1): on the embedded SQLite file it stops with
/// one line and exit code 1.
#[test]
fn the_worker_refuses_the_embedded_database() {
    let dir = tempfile::tempdir().unwrap();
    let output = binary()
        .env("A2A_DATA_DIR", dir.path())
        .arg("worker")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(output.stderr).unwrap(),
        "agent-taskbay: The separate worker requires PostgreSQL; the embedded SQLite database uses embedded dispatch.\n"
    );
}
