//! Real `agent-taskbay` processes for the deployment tests (replicas, backups): a console on
//! a port it holds, a started command, readiness, and a send followed to its end over the HTTP API.

use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::ports::{Bound, listens, on_a_free_port};
use crate::support::{ChildGuard, binary};

/// Starts `agent-taskbay <args>` with only `env` set (output discarded); a console: [`serve`].
pub fn start(args: &[&str], env: &[(&str, String)]) -> ChildGuard {
    let mut command = binary();
    command.args(args).stdout(Stdio::null()).stderr(Stdio::null());
    for (name, value) in env {
        command.env(name, value);
    }
    ChildGuard(command.spawn().unwrap())
}

/// A console started by [`serve`]; killed when dropped.
pub struct Console {
    _process: ChildGuard,
    /// `http://127.0.0.1:<its port>`.
    pub base: String,
}

/// Starts `agent-taskbay serve` on a free port with only `env` set and waits until it answers
/// `/readyz`. A port found free may be taken by another test's process before the console binds
/// it: the console is ready only once it holds its port itself, and one that found its port
/// taken is started again on another.
pub async fn serve(http: &reqwest::Client, env: &[(&str, String)]) -> Console {
    let (child, port) = on_a_free_port("the console", async |port| {
        let (mut child, log) = start_serving(port, env);
        (bound(&mut child, port, &log).await, (child, port))
    })
    .await;
    let base = format!("http://127.0.0.1:{port}");
    ready(http, &base).await;
    Console {
        _process: child,
        base,
    }
}

/// `agent-taskbay serve --port <port>`, its standard error in the file given back.
fn start_serving(port: u16, env: &[(&str, String)]) -> (ChildGuard, tempfile::NamedTempFile) {
    let log = tempfile::NamedTempFile::new().unwrap();
    let mut command = binary();
    command
        .args(["serve", "--port", &port.to_string()])
        .stdout(Stdio::null())
        .stderr(log.reopen().unwrap());
    for (name, value) in env {
        command.env(name, value);
    }
    (ChildGuard(command.spawn().unwrap()), log)
}

/// Waits (at most 30 s) until the console holds its port, or has exited because it could not.
async fn bound(child: &mut ChildGuard, port: u16, log: &tempfile::NamedTempFile) -> Bound {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if listens(child.0.id(), port) {
            return Bound::Yes;
        }
        if let Some(status) = child.0.try_wait().unwrap() {
            let log = std::fs::read_to_string(log.path()).unwrap_or_default();
            assert!(
                log.contains("Address already in use"),
                "the console exited ({status}):\n{log}"
            );
            return Bound::PortTaken;
        }
        assert!(
            Instant::now() < deadline,
            "the console did not listen within 30 s"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A console that finds its port held by another process is told apart (and started again on
/// another port by `serve`), not taken for ready: a `/readyz` answering there may be another
/// console's.
#[tokio::test]
async fn a_console_whose_port_is_taken_is_not_taken_for_ready() {
    let held = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = held.local_addr().unwrap().port();
    let dir = tempfile::tempdir().unwrap();
    let env = [("A2A_DATA_DIR", dir.path().to_str().unwrap().to_owned())];
    let (mut child, log) = start_serving(port, &env);
    assert!(matches!(bound(&mut child, port, &log).await, Bound::PortTaken));
    drop(held);
    let console = serve(&crate::credentials::http(), &env).await;
    assert!(console.base.starts_with("http://127.0.0.1:"));
}

/// Waits (at most 30 s) until `base` answers `/readyz` with success.
async fn ready(http: &reqwest::Client, base: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if http
            .get(format!("{base}/readyz"))
            .send()
            .await
            .is_ok_and(|r| r.status().is_success())
        {
            return;
        }
        assert!(Instant::now() < deadline, "{base} not ready within 30 s");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The JSON answer of `GET url`.
pub async fn get_json(http: &reqwest::Client, url: &str) -> Value {
    http.get(url).send().await.unwrap().json().await.unwrap()
}

/// Registers the agent at `card_url` through the API; its id.
pub async fn register(http: &reqwest::Client, base: &str, card_url: &str) -> String {
    let registered: Value = http
        .post(format!("{base}/api/agents"))
        .json(&json!({ "cardUrl": card_url }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    registered["agent"]["id"]
        .as_str()
        .unwrap_or_else(|| panic!("registered: {registered}"))
        .to_owned()
}

/// Posts the command `text` to `agent` (idempotency key `key`), accepted with 202; its location.
pub async fn command(http: &reqwest::Client, base: &str, agent: &str, key: &str, text: &str) -> String {
    let accepted = http
        .post(format!("{base}/api/agents/{agent}/commands"))
        .header("idempotency-key", key)
        .json(&json!({ "text": text }))
        .send()
        .await
        .unwrap();
    assert_eq!(accepted.status(), 202);
    accepted.headers()["location"].to_str().unwrap().to_owned()
}

/// Waits (at most 30 s) until the command at `location` has made a task; the task's local id.
pub async fn task_of(http: &reqwest::Client, base: &str, location: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let command = get_json(http, &format!("{base}{location}")).await;
        if let Some(task) = command["command"]["result"]["localId"].as_str() {
            return task.to_owned();
        }
        assert!(Instant::now() < deadline, "the command made no task: {command}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Sends `text` to `agent` and waits until the command has made a task; the task's local id.
pub async fn send(http: &reqwest::Client, base: &str, agent: &str, key: &str, text: &str) -> String {
    let location = command(http, base, agent, key, text).await;
    task_of(http, base, &location).await
}

/// The task's view from `GET /api/tasks/{task}` once its state is `state` (at most 30 s).
pub async fn task_in_state(http: &reqwest::Client, base: &str, task: &str, state: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let view = get_json(http, &format!("{base}/api/tasks/{task}")).await;
        if view["task"]["state"] == state {
            return view;
        }
        assert!(
            Instant::now() < deadline,
            "task {task} never reached {state}: {view}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
