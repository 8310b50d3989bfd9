//! The demo agent over real HTTP: cards, both bindings, streaming, cancel, 0.3, files, flood,
//! and the `demo-agent` command.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};
use server::demo_agent::{self, VARIANTS};
use tokio::sync::oneshot;

use crate::support::ChildGuard;

/// A demo agent on an ephemeral port; stops when dropped.
struct Demo {
    origin: String,
    client: reqwest::Client,
    _stop: oneshot::Sender<()>,
}

async fn start() -> Demo {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(demo_agent::serve(listener, async {
        let _ = stopped.await;
    }));
    // reqwest is built without a default crypto provider (see the workspace manifest).
    let _ = rustls::crypto::ring::default_provider().install_default();
    Demo {
        origin,
        client: reqwest::Client::new(),
        _stop: stop,
    }
}

fn user_message(text: &str) -> Value {
    json!({"messageId": uuid::Uuid::new_v4().to_string(), "role": "ROLE_USER", "parts": [{"text": text}]})
}

fn data_message(task_id: &str, data: Value) -> Value {
    json!({"messageId": uuid::Uuid::new_v4().to_string(), "role": "ROLE_USER", "taskId": task_id,
           "parts": [{"data": data, "mediaType": "application/json"}]})
}

impl Demo {
    fn rpc_request(&self, variant: &str, method: &str, params: Value) -> reqwest::RequestBuilder {
        self.client
            .post(format!("{}/{variant}/a2a", self.origin))
            .header("A2A-Version", "1.0")
            .json(&json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params}))
    }

    /// A unary JSON-RPC call; the whole response object.
    async fn rpc(&self, variant: &str, method: &str, params: Value) -> Value {
        let response = self.rpc_request(variant, method, params).send().await.unwrap();
        assert_eq!(response.status(), 200);
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["jsonrpc"], "2.0");
        assert_eq!(body["id"], 7);
        body
    }

    async fn send(&self, variant: &str, message: Value) -> Value {
        let body = self
            .rpc(variant, "SendMessage", json!({ "message": message }))
            .await;
        body["result"]["task"].clone()
    }

    async fn stream(&self, variant: &str, method: &str, params: Value) -> Sse {
        let response = self.rpc_request(variant, method, params).send().await.unwrap();
        assert_eq!(response.status(), 200);
        let content_type = response.headers()["content-type"].to_str().unwrap().to_owned();
        assert!(content_type.starts_with("text/event-stream"), "{content_type}");
        Sse::new(response)
    }
}

/// Reads an SSE response one `data:` line at a time.
struct Sse {
    response: reqwest::Response,
    buffer: String,
}

impl Sse {
    fn new(response: reqwest::Response) -> Sse {
        Sse {
            response,
            buffer: String::new(),
        }
    }

    /// The next event's JSON, or `None` when the stream ends.
    async fn next(&mut self) -> Option<Value> {
        loop {
            while let Some(end) = self.buffer.find('\n') {
                let line: String = self.buffer.drain(..=end).collect();
                if let Some(data) = line.trim_end().strip_prefix("data:") {
                    return Some(serde_json::from_str(data.trim_start()).unwrap());
                }
            }
            let chunk = tokio::time::timeout(Duration::from_secs(20), self.response.chunk())
                .await
                .expect("an event within 20 s")
                .unwrap()?;
            self.buffer.push_str(std::str::from_utf8(&chunk).unwrap());
        }
    }

    async fn rest(mut self) -> Vec<Value> {
        let mut events = Vec::new();
        while let Some(event) = self.next().await {
            events.push(event);
        }
        events
    }
}

fn state_of(event: &Value) -> Option<&str> {
    event
        .pointer("/result/statusUpdate/status/state")
        .or_else(|| event.pointer("/result/task/status/state"))
        .and_then(Value::as_str)
}

#[tokio::test]
async fn every_card_points_at_the_origin_it_was_fetched_from() {
    // The bare router, as an embedding test would serve it.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, demo_agent::router()).await });
    let mut demo = start().await;
    demo.origin = origin;
    // The TLS-only `mtls` variant (last) is listed only with a TLS origin.
    let urls = demo_agent::card_urls(&demo.origin);
    assert_eq!(urls.len(), VARIANTS.len() - 1);
    assert_eq!(
        demo_agent::card_urls_with_tls(&demo.origin, Some("https://127.0.0.1:1"))
            .last()
            .map(String::as_str),
        Some("https://127.0.0.1:1/mtls/card.json")
    );
    for (variant, url) in VARIANTS.iter().zip(&urls) {
        for url in [
            url.clone(),
            format!("{}/{variant}/.well-known/agent-card.json", demo.origin),
        ] {
            let card: Value = demo.client.get(&url).send().await.unwrap().json().await.unwrap();
            assert_eq!(card["version"], "1.0.0", "{url}");
            assert_eq!(card["capabilities"]["streaming"], true, "{url}");
            if *variant == "legacy" {
                assert_eq!(card["url"], format!("{}/legacy/a2a", demo.origin));
                assert_eq!(card["protocolVersion"], "0.3.0");
                assert_eq!(card["preferredTransport"], "JSONRPC");
                continue;
            }
            let interfaces = card["supportedInterfaces"].as_array().unwrap();
            let find = |binding: &str| {
                interfaces
                    .iter()
                    .find(|i| i["protocolBinding"] == binding)
                    .unwrap()
            };
            assert_eq!(find("JSONRPC")["url"], format!("{}/{variant}/a2a", demo.origin));
            assert_eq!(
                find("HTTP+JSON")["url"],
                format!("{}/{variant}/rest", demo.origin)
            );
            assert!(interfaces.iter().all(|i| i["protocolVersion"] == "1.0"));
        }
    }
    let missing = demo
        .client
        .get(format!("{}/nope/card.json", demo.origin))
        .send()
        .await
        .unwrap();
    assert_eq!(missing.status(), 404);
}

#[tokio::test]
async fn form_asks_for_a_deploy_request_and_completes_the_submission() {
    let demo = start().await;
    let task = demo.send("form", user_message("deploy please")).await;
    assert_eq!(task["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
    assert_eq!(task["id"], "form-task-1");
    let message = &task["status"]["message"];
    assert_eq!(message["role"], "ROLE_AGENT");
    assert_eq!(message["parts"][0]["text"], "Where should I deploy?");
    let form = &message["parts"][1];
    assert_eq!(form["mediaType"], "application/vnd.agent-taskbay.form+json");
    assert_eq!(form["data"]["title"], "Deploy request");
    assert_eq!(form["data"]["submitLabel"], "Request deploy");

    let done = demo
        .send(
            "form",
            data_message(
                "form-task-1",
                json!({"environment": "production", "replicas": 3, "dryRun": false}),
            ),
        )
        .await;
    assert_eq!(done["status"]["state"], "TASK_STATE_COMPLETED");
    assert_eq!(
        done["status"]["message"]["parts"][0]["text"],
        "Deploying 3 replica(s) to production."
    );
    assert!(done["history"].as_array().unwrap().len() >= 4);
}

#[tokio::test]
async fn showcase_a2ui_and_approver_carry_their_extension_payloads() {
    let demo = start().await;
    let task = demo
        .send("showcase", user_message("please approve the deploy"))
        .await;
    let approval = &task["status"]["message"]["parts"][1];
    assert_eq!(
        approval["mediaType"],
        "application/vnd.agent-taskbay.approval-request+json"
    );
    assert_eq!(approval["data"]["title"], "Delete the staging cluster");
    assert_eq!(approval["data"]["risk"], "high");
    assert!(
        approval["data"]["summary"]
            .as_str()
            .unwrap()
            .contains("please approve the deploy")
    );
    let mut reply = user_message("Approved: delete the staging cluster.");
    reply["taskId"] = task["id"].clone();
    reply["metadata"] =
        json!({"approval": {"requestId": "r", "decisionId": "d", "revision": 1, "revisionDigest": "abc123"}});
    let done = demo.send("showcase", reply).await;
    assert_eq!(done["status"]["state"], "TASK_STATE_COMPLETED");
    assert!(
        done["status"]["message"]["parts"][0]["text"]
            .as_str()
            .unwrap()
            .contains("abc123")
    );

    let structured = demo.send("approver", user_message("structured please")).await;
    assert_eq!(
        structured["status"]["message"]["parts"][1]["data"]["action"]["kind"],
        "send_data"
    );

    let task = demo.send("a2ui", user_message("deploy")).await;
    assert_eq!(
        task["status"]["message"]["parts"][0]["text"],
        "Please confirm the deployment."
    );
    let surface = &task["status"]["message"]["parts"][1];
    assert_eq!(surface["mediaType"], "application/a2ui+json");
    assert_eq!(surface["data"][0]["createSurface"]["surfaceId"], "deploy");
    let action = json!({"messageId": "a1", "role": "ROLE_USER", "taskId": task["id"], "parts": [{
        "data": {"version": "v0.9", "action": {"name": "confirm_deploy", "surfaceId": "deploy",
            "sourceComponentId": "confirm", "timestamp": "2026-01-01T00:00:00Z",
            "context": {"reason": "hotfix", "env": ["staging"], "notify": true}}},
        "mediaType": "application/a2ui+json"}]});
    let done = demo.send("a2ui", action).await;
    assert_eq!(
        done["status"]["message"]["parts"][0]["text"],
        "Deploy confirmed: hotfix (staging) notify=true"
    );
}

#[tokio::test]
async fn streaming_yields_the_task_then_updates_until_it_pauses_or_ends() {
    let demo = start().await;
    let events = demo
        .stream(
            "form",
            "SendStreamingMessage",
            json!({"message": user_message("hi")}),
        )
        .await
        .rest()
        .await;
    assert!(events[0]["result"]["task"]["id"].is_string(), "{events:?}");
    assert_eq!(
        state_of(events.last().unwrap()),
        Some("TASK_STATE_INPUT_REQUIRED")
    );
    assert!(events.iter().all(|e| e["id"] == 7 && e["jsonrpc"] == "2.0"));

    let events = demo
        .stream(
            "trace",
            "SendStreamingMessage",
            json!({"message": user_message("check staging")}),
        )
        .await
        .rest()
        .await;
    assert_eq!(state_of(events.last().unwrap()), Some("TASK_STATE_COMPLETED"));
    let trace_types: Vec<&str> = events
        .iter()
        .filter_map(|e| e.pointer("/result/artifactUpdate/artifact"))
        .filter(|a| a["extensions"] == json!(["urn:x-a2a:trace:v1"]))
        .filter_map(|a| a["metadata"]["traceType"].as_str())
        .collect();
    for expected in [
        "trace.lifecycle",
        "trace.mcp.start",
        "trace.mcp",
        "trace.thinking",
        "trace.decision",
        "trace.delegation",
        "trace.usage",
    ] {
        assert!(
            trace_types.contains(&expected),
            "{expected} missing from {trace_types:?}"
        );
    }
    let generic = events.iter().any(|e| {
        e.pointer("/result/statusUpdate/status/message/metadata")
            .and_then(Value::as_object)
            .is_some_and(|m| {
                m.keys()
                    .any(|k| k.starts_with("urn:agent-observability:sideband-events:v1"))
            })
    });
    assert!(generic, "no generic sideband event in {events:?}");
}

#[tokio::test]
async fn get_list_cancel_and_error_codes() {
    let demo = start().await;
    let task = demo.send("form", user_message("one")).await;
    let id = task["id"].as_str().unwrap();
    let got = demo
        .rpc("form", "GetTask", json!({"id": id, "historyLength": 1}))
        .await;
    assert_eq!(got["result"]["id"], id);
    assert_eq!(got["result"]["history"].as_array().unwrap().len(), 1);
    let listed = demo
        .rpc("form", "ListTasks", json!({"includeArtifacts": true}))
        .await;
    assert_eq!(listed["result"]["tasks"][0]["id"], id);
    assert_eq!(listed["result"]["totalSize"], 1);
    assert_eq!(listed["result"]["nextPageToken"], "");

    let canceled = demo.rpc("form", "CancelTask", json!({ "id": id })).await;
    assert_eq!(canceled["result"]["status"]["state"], "TASK_STATE_CANCELED");
    let again = demo.rpc("form", "CancelTask", json!({ "id": id })).await;
    assert_eq!(again["error"]["code"], -32002);
    let missing = demo.rpc("form", "GetTask", json!({"id": "form-task-99"})).await;
    assert_eq!(missing["error"]["code"], -32001);
    assert_eq!(missing["error"]["data"][0]["reason"], "TASK_NOT_FOUND");
    let unknown = demo.rpc("form", "GetExtendedAgentCard", json!({})).await;
    assert_eq!(unknown["error"]["code"], -32601);
}

#[tokio::test]
async fn a_request_without_a2a_version_is_refused_like_the_sdks_do() {
    let demo = start().await;
    let body: Value = demo
        .client
        .post(format!("{}/form/a2a", demo.origin))
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": user_message("x")}}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(body["error"]["code"], -32009, "{body}");
    let response = demo
        .client
        .get(format!("{}/form/rest/tasks", demo.origin))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 400);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"]["details"][0]["reason"], "VERSION_NOT_SUPPORTED");
}

#[tokio::test]
async fn a_slow_task_can_be_resubscribed_and_canceled_mid_stream() {
    let demo = start().await;
    let mut stream = demo
        .stream(
            "slow",
            "SendStreamingMessage",
            json!({"message": user_message("report")}),
        )
        .await;
    let first = stream.next().await.unwrap();
    let id = first["result"]["task"]["id"].as_str().unwrap().to_owned();
    let chunk = loop {
        let event = stream.next().await.unwrap();
        if event.pointer("/result/artifactUpdate").is_some() {
            break event;
        }
    };
    assert_eq!(
        chunk["result"]["artifactUpdate"]["artifact"]["name"],
        "report.txt"
    );

    let mut resubscribed = demo.stream("slow", "SubscribeToTask", json!({ "id": id })).await;
    let snapshot = resubscribed.next().await.unwrap();
    assert_eq!(
        snapshot["result"]["task"]["status"]["state"],
        "TASK_STATE_WORKING"
    );
    assert!(
        !snapshot["result"]["task"]["artifacts"]
            .as_array()
            .unwrap()
            .is_empty()
    );

    let canceled = demo.rpc("slow", "CancelTask", json!({ "id": id })).await;
    assert_eq!(canceled["result"]["status"]["state"], "TASK_STATE_CANCELED");
    for stream in [stream, resubscribed] {
        let rest = stream.rest().await;
        assert_eq!(
            state_of(rest.last().unwrap()),
            Some("TASK_STATE_CANCELED"),
            "{rest:?}"
        );
    }
    let task = demo.rpc("slow", "GetTask", json!({ "id": id })).await;
    let chunks = task["result"]["artifacts"][0]["parts"].as_array().unwrap().len();
    assert!(chunks < 20, "work stopped early, got {chunks} chunks");
    let late = demo.rpc("slow", "SubscribeToTask", json!({ "id": id })).await;
    assert_eq!(late["error"]["code"], -32004);
}

#[tokio::test]
async fn work_stops_when_its_only_client_disconnects() {
    let demo = start().await;
    let mut stream = demo
        .stream(
            "slow",
            "SendStreamingMessage",
            json!({"message": user_message("report")}),
        )
        .await;
    let id = stream.next().await.unwrap()["result"]["task"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    drop(stream);
    tokio::time::sleep(Duration::from_secs(4)).await;
    let task = demo.rpc("slow", "GetTask", json!({ "id": id })).await;
    assert_eq!(task["result"]["status"]["state"], "TASK_STATE_CANCELED", "{task}");
}

#[tokio::test]
async fn legacy_speaks_only_0_3() {
    let demo = start().await;
    let call = |method: &str, params: Value| {
        demo.client
            .post(format!("{}/legacy/a2a", demo.origin))
            .json(&json!({"jsonrpc": "2.0", "id": "x", "method": method, "params": params}))
            .send()
    };
    let message = json!({"kind": "message", "messageId": "m1", "role": "user", "parts": [{"kind": "text", "text": "hello"}]});
    let body: Value = call("message/send", json!({ "message": message }))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let task = &body["result"];
    assert_eq!(task["kind"], "task", "{body}");
    assert_eq!(task["status"]["state"], "completed");
    assert_eq!(task["status"]["message"]["role"], "agent");
    assert_eq!(task["status"]["message"]["parts"][0]["kind"], "text");
    assert_eq!(
        task["artifacts"][0]["parts"][0],
        json!({"kind": "text", "text": "hello", "metadata": {"mimeType": "text/plain"}})
    );
    let got: Value = call("tasks/get", json!({"id": task["id"]}))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(got["result"]["id"], task["id"]);

    let refused: Value = call("SendMessage", json!({ "message": message }))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(refused["error"]["code"], -32601);

    let response = call("message/stream", json!({ "message": message }))
        .await
        .unwrap();
    let events = Sse::new(response).rest().await;
    assert_eq!(events[0]["result"]["kind"], "task");
    let last = &events.last().unwrap()["result"];
    assert_eq!(last["kind"], "status-update");
    assert_eq!(last["final"], true);
    assert_eq!(last["status"]["state"], "completed");
}

#[tokio::test]
async fn the_rest_binding_sends_gets_lists_and_cancels() {
    let demo = start().await;
    let rest = |path: &str| format!("{}/form/rest{path}", demo.origin);
    let response = demo
        .client
        .post(rest("/message:send"))
        .header("A2A-Version", "1.0")
        .json(&json!({"message": user_message("via rest")}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let sent: Value = response.json().await.unwrap();
    let id = sent["task"]["id"].as_str().unwrap();
    assert_eq!(sent["task"]["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
    let get = |path: String| demo.client.get(path).header("A2A-Version", "1.0").send();
    let got: Value = get(rest(&format!("/tasks/{id}")))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(got["id"], id);
    let listed: Value = get(rest("/tasks?pageSize=10"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(listed["tasks"][0]["id"], id);
    let canceled: Value = demo
        .client
        .post(rest(&format!("/tasks/{id}:cancel")))
        .header("A2A-Version", "1.0")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(canceled["status"]["state"], "TASK_STATE_CANCELED");
    let missing = get(rest("/tasks/form-task-42")).await.unwrap();
    assert_eq!(missing.status(), 404);
    let body: Value = missing.json().await.unwrap();
    assert_eq!(body["error"]["status"], "NOT_FOUND");

    let response = demo
        .client
        .post(rest("/message:stream"))
        .header("A2A-Version", "1.0")
        .json(&json!({"message": user_message("stream")}))
        .send()
        .await
        .unwrap();
    let events = Sse::new(response).rest().await;
    assert!(events[0]["task"].is_object(), "bare StreamResponse: {events:?}");
    assert_eq!(
        events.last().unwrap().pointer("/statusUpdate/status/state"),
        Some(&json!("TASK_STATE_INPUT_REQUIRED"))
    );
}

#[tokio::test]
async fn files_are_real_files() {
    let demo = start().await;
    let task = demo.send("files", user_message("files please")).await;
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED");
    let parts: Vec<&Value> = task["artifacts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| &a["parts"][0])
        .collect();
    let by_type = |media: &str| *parts.iter().find(|p| p["mediaType"] == media).unwrap();
    assert!(
        by_type("text/markdown")["text"]
            .as_str()
            .unwrap()
            .starts_with("# ")
    );
    assert!(by_type("application/json")["data"].is_object());
    assert!(
        by_type("text/csv")["text"]
            .as_str()
            .unwrap()
            .starts_with("service,")
    );
    let png = STANDARD
        .decode(by_type("image/png")["raw"].as_str().unwrap())
        .unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    assert_eq!(by_type("image/png")["filename"], "chart.png");
    let pdf = STANDARD
        .decode(by_type("application/pdf")["raw"].as_str().unwrap())
        .unwrap();
    assert!(pdf.starts_with(b"%PDF-") && pdf.ends_with(b"%%EOF\n"));
    let binary = by_type("application/octet-stream");
    assert_eq!(
        STANDARD.decode(binary["raw"].as_str().unwrap()).unwrap().len(),
        256
    );
    assert!(binary["filename"].is_string());
}

#[tokio::test]
async fn flood_emits_the_requested_count() {
    let demo = start().await;
    let events = demo
        .stream(
            "flood",
            "SendStreamingMessage",
            json!({"message": user_message("rate=400 count=120")}),
        )
        .await
        .rest()
        .await;
    let flood: Vec<&Value> = events
        .iter()
        .filter_map(|e| e.pointer("/result/statusUpdate/metadata"))
        .filter(|m| m["seq"].is_u64())
        .collect();
    assert_eq!(flood.len(), 120);
    assert!(flood.iter().all(|m| m["emittedAtMs"].is_i64()));
    assert_eq!(flood.last().unwrap()["seq"], 120);
    assert_eq!(state_of(events.last().unwrap()), Some("TASK_STATE_COMPLETED"));
}

#[tokio::test]
async fn flood_mix_chunks_streams_every_second_event_as_an_artifact_chunk() {
    let demo = start().await;
    let events = demo
        .stream(
            "flood",
            "SendStreamingMessage",
            json!({"message": user_message("rate=1000 count=10 mix=chunks")}),
        )
        .await
        .rest()
        .await;
    let chunks: Vec<&Value> = events
        .iter()
        .filter_map(|e| e.pointer("/result/artifactUpdate"))
        .collect();
    let statuses = events
        .iter()
        .filter_map(|e| e.pointer("/result/statusUpdate/metadata/seq"))
        .count();
    assert_eq!((chunks.len(), statuses), (5, 5));
    assert_eq!(chunks[0]["append"], false, "the first chunk creates the artifact");
    assert!(chunks[1..].iter().all(|c| c["append"] == true));
    assert_eq!(chunks[4]["lastChunk"], true);
    assert!(chunks[..4].iter().all(|c| c["lastChunk"] == false));
    assert_eq!(chunks[4]["artifact"]["parts"][0]["text"], "10 ");
    assert!(chunks.iter().all(|c| c["metadata"]["emittedAtMs"].is_i64()));
    assert_eq!(state_of(events.last().unwrap()), Some("TASK_STATE_COMPLETED"));
}

#[tokio::test]
async fn skills_routes_by_skill_and_refuses_unknown_ones() {
    let demo = start().await;
    let uri = "https://extensions.allsrc.dev/agent-taskbay/skill-routing/v1";
    let card: Value = demo
        .client
        .get(format!("{}/skills/card.json", demo.origin))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(card["skills"].as_array().unwrap().len() >= 3);
    assert_eq!(card["capabilities"]["extensions"][0]["uri"], uri);
    let send = |skill: &str| {
        demo.rpc(
            "skills",
            "SendMessage",
            json!({"message": user_message("go"), "metadata": { uri: {"skillId": skill} }}),
        )
    };
    let ok = send("rollback").await;
    assert_eq!(ok["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED");
    let refused = send("launch-rockets").await;
    assert_eq!(
        refused["result"]["task"]["status"]["state"],
        "TASK_STATE_REJECTED"
    );
}

#[test]
fn the_command_prints_one_card_url_per_variant_and_exits_0_on_sigterm() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut guard = ChildGuard(
        Command::new(env!("CARGO_BIN_EXE_agent-taskbay"))
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .args(["demo-agent", "--port", &port.to_string()])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let mut stdout = BufReader::new(guard.0.stdout.take().unwrap());
    let mut lines = Vec::new();
    // Without --tls-port the `mtls` variant (TLS only) is not listed.
    let expected: Vec<String> = VARIANTS
        .iter()
        .filter(|v| **v != "mtls")
        .map(|v| format!("http://127.0.0.1:{port}/{v}/card.json"))
        .collect();
    for _ in &expected {
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        lines.push(line.trim_end().to_owned());
    }
    assert_eq!(lines, expected);

    // An open stream must not hold up graceful shutdown.
    let mut open_stream = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage",
                      "params": {"message": user_message("report")}})
    .to_string();
    write!(
        open_stream,
        "POST /slow/a2a HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nA2A-Version: 1.0\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut head = [0u8; 512];
    let read = open_stream.read(&mut head).unwrap();
    assert!(
        head[..read].starts_with(b"HTTP/1.1 200"),
        "{}",
        String::from_utf8_lossy(&head[..read])
    );

    let status = Command::new("kill")
        .args(["-TERM", &guard.0.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    // Well under the slow report's ten seconds: shutdown ends the stream instead of waiting.
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    let exit = loop {
        if let Some(exit) = guard.0.try_wait().unwrap() {
            break exit;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "demo agent did not stop on SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(exit.success(), "{exit:?}");
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).unwrap();
    assert_eq!(rest, "", "only the card URLs go to stdout");
}
