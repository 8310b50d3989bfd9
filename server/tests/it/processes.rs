//! Real `agent-taskbay` processes for the deployment tests (replicas, backups): a free port,
//! a started command, readiness, and a send followed to its end over the HTTP API.

use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::{ChildGuard, binary};

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Starts `agent-taskbay <args>` with only `env` set (output discarded).
pub fn start(args: &[&str], env: &[(&str, String)]) -> ChildGuard {
    let mut command = binary();
    command.args(args).stdout(Stdio::null()).stderr(Stdio::null());
    for (name, value) in env {
        command.env(name, value);
    }
    ChildGuard(command.spawn().unwrap())
}

/// Waits (at most 30 s) until `base` answers `/readyz` with success.
pub async fn ready(http: &reqwest::Client, base: &str) {
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
