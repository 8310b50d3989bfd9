//! `agent-taskbay credentials` and the secrets of a running console, as real processes
//! (`shared/spec/security-and-durability.md` §2.2 "Operations", §2.3 step 7): the CLI stores,
//! revokes and re-encrypts without echoing anything and prints one fixed line on any failure;
//! the key rotation procedure works end to end; and a console that calls a protected agent and
//! receives its echoed secret writes the secret to no log line, metric or answer.

use std::io::{Read as _, Write as _};
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

use server::cli::credentials::FAILED;
use server::demo_agent::locked::{API_KEY, BEARER_TOKEN, OAUTH_CLIENT_SECRET};
use server::store::{agents as agent_store, credentials as credential_store, organizations};
use server::vault::{KeyRing, Vault};

use crate::ports::{free_port, listens};
use crate::support::{self, binary};

const K1: &str = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
const K2: &str = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
const SECRET: &str = "cli-secret-value-9f3b";

fn ring(keys: &[(&str, &str)]) -> String {
    let map: std::collections::BTreeMap<_, _> = keys.iter().copied().collect();
    serde_json::to_string(&map).unwrap()
}

/// Runs `agent-taskbay credentials <args>` on the data directory `data` with the key ring
/// `keys` (active `active`), `stdin` on standard input.
fn credentials(data: &str, keys: &str, active: &str, args: &[&str], stdin: &str) -> Output {
    let mut child = binary()
        .env("A2A_DATA_DIR", data)
        .env("A2A_VAULT_KEYS", keys)
        .env("A2A_VAULT_ACTIVE_KEY", active)
        .arg("credentials")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

fn lines(output: &Output) -> (Option<i32>, String, String) {
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[tokio::test]
async fn the_cli_stores_revokes_and_reencrypts_and_fails_with_one_fixed_line() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap().to_owned();
    let config = support::config_from(&[("A2A_DATA_DIR", &data)]);
    let db = server::db::connect(&config.database).await.unwrap();
    server::db::migration::migrate(&db).await.unwrap();
    let org = organizations::local(&db).await.unwrap();
    let agent = agent_store::register(
        &db,
        &org.id,
        "https://agent.example/card.json",
        agent_store::AgentSource::Managed,
    )
    .await
    .unwrap();
    db.close().await;
    let k1 = ring(&[("k1", K1)]);
    let binding = format!(
        r#"{{"origins":["https://agent.example"],"credential":{{"type":"bearer","token":"{SECRET}"}}}}"#
    );
    let target = ["--organization", "local", "--agent", agent.id.as_str()];
    let store: Vec<&str> = [&["store"][..], &target].concat();
    assert_eq!(
        lines(&credentials(&data, &k1, "k1", &store, &binding)),
        (Some(0), "Agent credential stored.\n".into(), String::new())
    );
    let failed = (Some(1), String::new(), format!("agent-taskbay: {FAILED}\n"));
    // Malformed input, an unknown field, an unknown agent or organization: the same line, and
    // nothing of the input.
    let unknown_field = binding.replace(r#""token""#, r#""extra":1,"token""#);
    for (args, stdin) in [
        (store.clone(), format!("{{not json {SECRET}")),
        (store.clone(), unknown_field),
        (
            vec!["store", "--organization", "local", "--agent", "no-such-agent"],
            binding.clone(),
        ),
        (
            vec!["store", "--organization", "nowhere", "--agent", agent.id.as_str()],
            binding.clone(),
        ),
        (store.clone(), "x".repeat(256_001)),
    ] {
        let output = credentials(&data, &k1, "k1", &args, &stdin);
        assert_eq!(lines(&output), failed, "{args:?}");
    }
    // A key ring that is not one, an active key it lacks, an unknown argument: the same line.
    for (keys, active, args) in [
        (format!("{{\"k1\":\"{SECRET}\"}}"), "k1", store.clone()),
        (k1.clone(), "k7", store.clone()),
        (k1.clone(), "k1", [&store[..], &["--echo", SECRET]].concat()),
    ] {
        let output = credentials(&data, &keys, active, &args, &binding);
        assert_eq!(lines(&output), failed, "{args:?}");
    }
    // The rotation procedure: add k2, make it active, re-encrypt everything, drop k1.
    let both = ring(&[("k1", K1), ("k2", K2)]);
    assert_eq!(
        lines(&credentials(&data, &both, "k2", &["reencrypt", "--all"], "")),
        (
            Some(0),
            "Re-encrypted 1 of 1 agent credentials with the active key.\n".into(),
            String::new()
        )
    );
    let db = server::db::connect(&config.database).await.unwrap();
    let row = credential_store::find(&db.read, &org.id, &agent.id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!((row.key_id.as_str(), row.revision), ("k2", 2));
    let k2_only = Vault::new(KeyRing::from_vars(Some(&ring(&[("k2", K2)])), Some("k2")).unwrap());
    let opened = k2_only
        .open(&org.id, &agent.id, &row.key_id, &row.ciphertext)
        .unwrap();
    assert_eq!(opened.secrets(), vec![SECRET]);
    db.close().await;
    let revoke: Vec<&str> = [&["revoke"][..], &target].concat();
    assert_eq!(
        lines(&credentials(&data, &both, "k2", &revoke, "")),
        (Some(0), "Agent credential revoked.\n".into(), String::new())
    );
    let reencrypt: Vec<&str> = [&["reencrypt"][..], &target].concat();
    assert_eq!(
        lines(&credentials(&data, &both, "k2", &reencrypt, "")),
        failed,
        "a revoked binding stays revoked"
    );
    // Without keys the vault is unavailable: the same line.
    let output = binary()
        .env("A2A_DATA_DIR", &data)
        .arg("credentials")
        .args(&store)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(lines(&output), failed);
}

/// One HTTP/1.1 request to the console on `port`; the whole answer.
fn http(port: u16, method: &str, path: &str, body: &str) -> String {
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nOrigin: http://127.0.0.1:{port}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    answer
}

fn body_json(answer: &str) -> serde_json::Value {
    let body = answer.split("\r\n\r\n").nth(1).unwrap_or_default();
    serde_json::from_str(body).unwrap_or_else(|_| panic!("not JSON: {answer}"))
}

#[tokio::test]
async fn a_secret_reaches_no_log_line_metric_or_answer_section_2_3() {
    let demo = support::demo().await;
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let mut child = binary()
        .env("A2A_DATA_DIR", dir.path())
        .env("A2A_ALLOW_PRIVATE_NETWORKS", "true")
        .env("A2A_VAULT_KEYS", ring(&[("k1", K1)]))
        .env("A2A_VAULT_ACTIVE_KEY", "k1")
        // Everything the console and its libraries log, at the most verbose level.
        .env("RUST_LOG", "trace")
        .env("PORT", port.to_string())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    // The console itself: another process may have taken the port it was given.
    while !listens(child.id(), port) {
        assert!(
            Instant::now() < deadline,
            "the console did not listen within 30 s"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // Every kind whose secret the console holds: a bearer token, an API key, an OAuth client
    // secret (and the token it is exchanged for, which the agent echoes when asked to leak).
    let kinds = [
        (
            "bearer",
            format!(r#"{{"type":"bearer","token":"{BEARER_TOKEN}"}}"#),
        ),
        (
            "apikey",
            format!(r#"{{"type":"apiKey","name":"X-API-Key","value":"{API_KEY}"}}"#),
        ),
        (
            "oauth",
            format!(
                r#"{{"type":"oauthClient","issuer":"{demo}","tokenEndpoint":"{demo}/oauth/token","clientId":"taskbay-demo","clientSecret":"{OAUTH_CLIENT_SECRET}","scope":"a2a"}}"#
            ),
        ),
    ];
    let registered = tokio::task::spawn_blocking(move || {
        let mut answers = Vec::new();
        for (variant, credential) in kinds {
            let answer = http(
                port,
                "POST",
                "/api/agents",
                &format!(r#"{{"cardUrl":"{demo}/{variant}/card.json"}}"#),
            );
            let agent = body_json(&answer)["agent"]["id"].as_str().unwrap().to_owned();
            let binding = format!(r#"{{"origins":["{demo}"],"credential":{credential}}}"#);
            let stored = http(port, "PUT", &format!("/api/agents/{agent}/credential"), &binding);
            let sent = http(
                port,
                "POST",
                &format!("/api/agents/{agent}/messages"),
                r#"{"text":"leak it please","config":{"returnImmediately":false}}"#,
            );
            assert!(sent.starts_with("HTTP/1.1 200"), "{variant}: {sent}");
            let local = body_json(&sent)["localId"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            let task = http(port, "GET", &format!("/api/tasks/{local}"), "");
            assert!(task.contains("[redacted]"), "{variant}: {task}");
            let credential = http(port, "GET", &format!("/api/agents/{agent}/credential"), "");
            answers.extend([stored, sent, task, credential]);
        }
        answers.push(http(port, "GET", "/metrics", ""));
        answers
    })
    .await
    .unwrap();
    let _ = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let mut logs = String::new();
    child.stderr.take().unwrap().read_to_string(&mut logs).unwrap();
    child.stdout.take().unwrap().read_to_string(&mut logs).unwrap();
    child.wait().unwrap();
    assert!(
        logs.contains("TRACE") && logs.contains("DEBUG"),
        "trace logging was on:\n{logs}"
    );
    use base64::Engine as _;
    for secret in [BEARER_TOKEN, API_KEY, OAUTH_CLIENT_SECRET] {
        let b64 = base64::engine::general_purpose::STANDARD.encode(secret);
        for (what, text) in [("logs", &logs), ("answers", &registered.join("\n"))] {
            assert!(
                !text.contains(secret) && !text.contains(&b64),
                "{secret} is in the {what}"
            );
        }
    }
}

/// `demo-agent --tls-port --tls-dir`: the `mtls` card URL comes last, over https; the
/// certificates are written once and found again by the next start, so a client certificate
/// stored in a console stays valid.
#[test]
fn the_demo_agent_serves_mtls_over_tls_and_keeps_its_certificates() {
    use std::io::BufRead as _;
    let dir = tempfile::tempdir().unwrap();
    let tls_dir = dir.path().join("demo-tls");
    let start = || {
        let (port, tls_port) = (free_port(), free_port());
        let mut child = binary()
            .args([
                "demo-agent",
                "--port",
                &port.to_string(),
                "--tls-port",
                &tls_port.to_string(),
            ])
            .arg("--tls-dir")
            .arg(&tls_dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
        let mut last = String::new();
        for _ in server::demo_agent::VARIANTS {
            last.clear();
            stdout.read_line(&mut last).unwrap();
        }
        let _ = std::process::Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status();
        child.wait().unwrap();
        (last.trim_end().to_owned(), tls_port)
    };
    let (url, tls_port) = start();
    assert_eq!(url, format!("https://127.0.0.1:{tls_port}/mtls/card.json"));
    let client = std::fs::read_to_string(tls_dir.join("client.pem")).unwrap();
    assert!(client.starts_with("-----BEGIN CERTIFICATE-----"));
    use std::os::unix::fs::PermissionsExt as _;
    let mode = std::fs::metadata(tls_dir.join("client-key.pem"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
    start();
    assert_eq!(
        std::fs::read_to_string(tls_dir.join("client.pem")).unwrap(),
        client,
        "kept across starts"
    );
}
