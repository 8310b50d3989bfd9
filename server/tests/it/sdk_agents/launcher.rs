//! Starts one of the SDK agents of `server/tests/sdk_agents/` as a process on a free loopback
//! port and waits until its card answers. The process is killed when the handle drops; its
//! output goes to a log file that is printed when the test fails.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::ports::{Bound, listens, on_a_free_port};

/// Where `scripts/test` (`ensure_sdk_agents`) puts the agents' venvs.
pub const AGENTS_ENV: &str = "A2A_TEST_SDK_AGENTS";

/// The official SDK an agent is built on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sdk {
    /// Python `a2a-sdk` 1.3.0.
    PythonV1,
    /// Python `a2a-sdk` 0.3.26 (protocol 0.3 only).
    PythonV03,
    /// `@a2a-js/sdk` 1.3.0.
    Js,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transport {
    JsonRpc,
    Rest,
}

/// How an agent is started: its SDK, transport, streaming capability and protocol version
/// (its card advertises just this one interface).
#[derive(Clone, Copy, Debug)]
pub struct Spec {
    pub sdk: Sdk,
    pub transport: Transport,
    pub streaming: bool,
    /// `"1.0"` or `"0.3"`.
    pub protocol: &'static str,
}

/// A running agent; killed on drop.
pub struct Agent {
    child: Child,
    log: tempfile::NamedTempFile,
    /// The port the agent listens on.
    pub port: u16,
    /// The origin its card advertises (the agent's own, or a proxy's in front of it).
    pub public_origin: String,
}

impl Agent {
    /// The card's URL at the advertised origin.
    pub fn card_url(&self) -> String {
        format!("{}/.well-known/agent-card.json", self.public_origin)
    }

    /// Everything the agent logged so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.log.path()).unwrap_or_default()
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if std::thread::panicking() {
            eprintln!("--- agent log (port {}) ---\n{}", self.port, self.log());
        }
    }
}

fn agents_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/sdk_agents")
}

fn not_installed(what: &str) -> ! {
    panic!(
        "{what}: the SDK agents are not installed. Run scripts/test (it installs them with \
         ensure_sdk_agents from scripts/lib.sh and exports {AGENTS_ENV}), or `source scripts/lib.sh \
         && ensure_sdk_agents` before `cargo test`."
    )
}

/// The program and arguments that start `sdk`'s agent.
fn program(sdk: Sdk) -> (PathBuf, PathBuf) {
    let cache = std::env::var_os(AGENTS_ENV)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| not_installed(&format!("{AGENTS_ENV} is not set")));
    let python = |name: &str| {
        let bin = cache.join(name).join("bin/python");
        if !bin.exists() {
            not_installed(&format!("{} is missing", bin.display()));
        }
        (bin, agents_dir().join(name).join("agent.py"))
    };
    match sdk {
        Sdk::PythonV1 => python("python_v1"),
        Sdk::PythonV03 => python("python_v03"),
        Sdk::Js => {
            let js = agents_dir().join("js");
            if !js.join("node_modules/@a2a-js/sdk/package.json").exists() {
                not_installed(&format!("{} has no node_modules", js.display()));
            }
            (PathBuf::from("node"), js.join("agent.mjs"))
        }
    }
}

/// Starts the agent of `spec`, advertising `public_origin` (its own origin when `None`), and
/// waits until its card answers. The port is free when chosen, not when the agent binds it:
/// another test's process may take it first (CI saw an agent fail with "address already in use"
/// while another process's card answered on its port), so a launch whose agent did not get its
/// port is tried again on another.
pub async fn launch(spec: Spec, public_origin: Option<String>) -> Agent {
    on_a_free_port("the agent", async |port| {
        let mut agent = start(spec, port, public_origin.clone());
        (wait_for_card(&mut agent).await, agent)
    })
    .await
}

fn start(spec: Spec, port: u16, public_origin: Option<String>) -> Agent {
    let (bin, script) = program(spec.sdk);
    let public_origin = public_origin.unwrap_or_else(|| format!("http://127.0.0.1:{port}"));
    let log = tempfile::NamedTempFile::new().expect("an agent log file");
    let transport = match spec.transport {
        Transport::JsonRpc => "jsonrpc",
        Transport::Rest => "rest",
    };
    let mut command = Command::new(&bin);
    command
        .arg(&script)
        .args(["--port", &port.to_string(), "--transport", transport])
        .args(["--streaming", if spec.streaming { "true" } else { "false" }])
        .args(["--protocol", spec.protocol, "--public-origin", &public_origin])
        .stdin(Stdio::null())
        .stdout(log.reopen().expect("log file"))
        .stderr(log.reopen().expect("log file"));
    let child = command
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {} {}: {e}", bin.display(), script.display()));
    Agent {
        child,
        log,
        port,
        public_origin,
    }
}

/// Polls until the agent itself listens on its port and its card answers 200 (20 s at most):
/// a card answering on the port alone may be another process's.
async fn wait_for_card(agent: &mut Agent) -> Bound {
    let url = format!("http://127.0.0.1:{}/.well-known/agent-card.json", agent.port);
    let until = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        if let Ok(Some(status)) = agent.child.try_wait() {
            let log = agent.log();
            if log.contains("address already in use") || log.contains("EADDRINUSE") {
                return Bound::PortTaken;
            }
            panic!("the agent exited ({status}) before its card answered:\n{log}");
        }
        if listens(agent.child.id(), agent.port) && card_answers(agent.port).await {
            return Bound::Yes;
        }
        assert!(
            tokio::time::Instant::now() < until,
            "the agent's card at {url} did not answer within 20 s:\n{}",
            agent.log()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// One plain HTTP/1.0 GET of the card on loopback: does it answer 200?
async fn card_answers(port: u16) -> bool {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let attempt = async {
        let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port)).await?;
        stream
            .write_all(b"GET /.well-known/agent-card.json HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
            .await?;
        let mut head = [0u8; 12];
        stream.read_exact(&mut head).await?;
        std::io::Result::Ok(head.starts_with(b"HTTP/1.") && &head[9..12] == b"200")
    };
    tokio::time::timeout(Duration::from_secs(2), attempt)
        .await
        .is_ok_and(|r| r.unwrap_or(false))
}

/// An agent that finds its port held by another process is told apart (and launched again on
/// another port by `launch`), not taken for ready: the race CI met.
#[tokio::test]
async fn an_agent_whose_port_is_taken_is_not_taken_for_ready() {
    let held = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = held.local_addr().unwrap().port();
    let spec = Spec {
        sdk: Sdk::PythonV1,
        transport: Transport::JsonRpc,
        streaming: true,
        protocol: "1.0",
    };
    let mut agent = start(spec, port, None);
    let ready = wait_for_card(&mut agent).await;
    assert!(matches!(ready, Bound::PortTaken), "{}", agent.log());
}
