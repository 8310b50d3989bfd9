//! The gateway against small in-process fake agents on 127.0.0.1: network policy (redirects,
//! size caps, private addresses, allowlist), discovery order, headers, both bindings and both
//! versions, JSON-RPC errors and SSE streams.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use app::a2a::{ErrorCode, Operation, ProtocolVersion, Transport};
use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use serde_json::{Value, json};
use server::config::OutboundConfig;
use server::gateway::{Endpoint, Gateway, GatewayError, MAX_CARD_BYTES, MAX_RESPONSE_BYTES, Rule};
use sha2::{Digest, Sha256};
use url::Url;

/// One request as the fake agent saw it.
#[derive(Clone, Debug)]
pub(crate) struct Hit {
    pub(crate) method: String,
    pub(crate) path: String,
    pub(crate) query: Option<String>,
    pub(crate) headers: HeaderMap,
    pub(crate) body: Value,
}

impl Hit {
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}

/// A fake agent: every request is recorded, then answered by `respond`.
pub(crate) struct FakeAgent {
    addr: SocketAddr,
    hits: Arc<Mutex<Vec<Hit>>>,
}

impl FakeAgent {
    pub(crate) async fn start<F>(respond: F) -> FakeAgent
    where
        F: Fn(&Hit) -> Response + Clone + Send + Sync + 'static,
    {
        let hits: Arc<Mutex<Vec<Hit>>> = Arc::default();
        let recorded = hits.clone();
        let app = Router::new().fallback(move |request: Request| {
            let respond = respond.clone();
            let recorded = recorded.clone();
            async move {
                let (parts, body) = request.into_parts();
                let bytes = axum::body::to_bytes(body, 1 << 20).await.unwrap();
                let hit = Hit {
                    method: parts.method.to_string(),
                    path: parts.uri.path().to_owned(),
                    query: parts.uri.query().map(str::to_owned),
                    headers: parts.headers,
                    body: serde_json::from_slice(&bytes).unwrap_or(Value::Null),
                };
                recorded.lock().unwrap().push(hit.clone());
                respond(&hit)
            }
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        FakeAgent { addr, hits }
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    pub(crate) fn endpoint(&self, path: &str, transport: Transport, version: ProtocolVersion) -> Endpoint {
        Endpoint {
            url: Url::parse(&self.url(path)).unwrap(),
            transport,
            version,
            tenant: None,
        }
    }

    pub(crate) fn hits(&self) -> Vec<Hit> {
        self.hits.lock().unwrap().clone()
    }

    fn paths(&self) -> Vec<String> {
        self.hits().into_iter().map(|h| h.path).collect()
    }
}

fn gateway(allow_private_networks: bool, allowed_origins: &[String]) -> Gateway {
    Gateway::new(&OutboundConfig {
        allow_private_networks,
        allowed_origins: allowed_origins.to_vec(),
        ..OutboundConfig::default()
    })
    .unwrap()
}

pub(crate) fn local_gateway() -> Gateway {
    gateway(true, &[])
}

pub(crate) fn json_response(value: Value) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], value.to_string()).into_response()
}

/// A JSON-RPC answer echoing the request id.
fn rpc_result(hit: &Hit, result: Value) -> Response {
    json_response(json!({"jsonrpc": "2.0", "id": hit.body["id"], "result": result}))
}

pub(crate) fn sse_response(chunks: Vec<String>) -> Response {
    let body = Body::from_stream(futures::stream::iter(
        chunks.into_iter().map(|c| Ok::<_, Infallible>(Bytes::from(c))),
    ));
    ([(header::CONTENT_TYPE, "text/event-stream")], body).into_response()
}

fn message_params() -> Value {
    json!({"message": {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}})
}

#[tokio::test]
async fn a_redirect_is_refused_and_its_target_never_contacted() {
    let agent = FakeAgent::start(|hit| match hit.path.as_str() {
        "/target" => json_response(json!({"jsonrpc": "2.0", "id": hit.body["id"], "result": {}})),
        _ => (StatusCode::FOUND, [(header::LOCATION, "/target")]).into_response(),
    })
    .await;
    let gw = local_gateway();
    let endpoint = agent.endpoint("/a2a", Transport::JsonRpc, ProtocolVersion::V1_0);

    let err = gw
        .send_message(&endpoint, message_params(), &[])
        .await
        .unwrap_err();
    assert!(matches!(err, GatewayError::Redirect { status: 302 }), "{err:?}");
    assert_eq!(err.to_string(), "Agent redirects are not permitted.");

    let err = gw.discover_card(&agent.url("/agent")).await.unwrap_err();
    assert!(matches!(err, GatewayError::Redirect { .. }), "{err:?}");

    let stream = gw.send_streaming_message(&endpoint, message_params(), &[]).await;
    assert!(matches!(stream, Err(GatewayError::Redirect { .. })));
    assert!(
        !agent.paths().contains(&"/target".to_owned()),
        "{:?}",
        agent.paths()
    );
}

#[tokio::test]
async fn a_96_mib_chunked_response_is_aborted_soon_after_the_cap() {
    // Well past the 25 MiB cap, so a client that read on would be seen pulling all of it.
    const CHUNKS: usize = 96;
    // How many 1 MiB chunks the server's body stream handed to hyper: it asks for the next
    // one only once the previous one is written, so this bounds what reached the socket.
    let pulled = Arc::new(AtomicUsize::new(0));
    let counter = pulled.clone();
    let agent = FakeAgent::start(move |_| {
        let chunk = Bytes::from(vec![b' '; 1 << 20]);
        let counter = counter.clone();
        let body = Body::from_stream(futures::stream::iter(0..CHUNKS).map(move |_| {
            counter.fetch_add(1, Ordering::SeqCst);
            Ok::<_, Infallible>(chunk.clone())
        }));
        ([(header::CONTENT_TYPE, "application/json")], body).into_response()
    })
    .await;
    let endpoint = agent.endpoint("/", Transport::JsonRpc, ProtocolVersion::V1_0);
    let err = local_gateway()
        .get_task(&endpoint, json!({"id": "t1"}), &[])
        .await
        .unwrap_err();
    assert!(
        matches!(err, GatewayError::TooLarge { limit } if limit == MAX_RESPONSE_BYTES),
        "{err:?}"
    );
    // Give the server time to notice the hang-up (and to keep writing, were it not cut).
    tokio::time::sleep(Duration::from_millis(500)).await;
    let pulled = pulled.load(Ordering::SeqCst);
    // The client stops on the 26th chunk, the one that passes the cap; after that only what
    // fits in the loopback socket buffers (autotuned up to ~10 MiB each way, 13 MiB seen
    // under load) and hyper's chunk in flight is written.
    let cap_chunks = MAX_RESPONSE_BYTES / (1 << 20) + 1;
    assert!(
        (cap_chunks..=cap_chunks + 24).contains(&pulled),
        "{pulled} of {CHUNKS} chunks sent; the client should hang up after {cap_chunks}"
    );
}

#[tokio::test]
async fn an_endless_event_stream_is_cut_at_the_cap_not_buffered() {
    let agent = FakeAgent::start(|_| {
        let event = Bytes::from(format!(
            "data: {{\"statusUpdate\":{{\"taskId\":\"t1\",\"pad\":\"{}\"}}}}\n\n",
            "x".repeat(1 << 20)
        ));
        let body = Body::from_stream(futures::stream::repeat_with(move || {
            Ok::<_, Infallible>(event.clone())
        }));
        ([(header::CONTENT_TYPE, "text/event-stream")], body).into_response()
    })
    .await;
    let endpoint = agent.endpoint("/", Transport::HttpJson, ProtocolVersion::V1_0);
    let mut events = local_gateway()
        .subscribe_to_task(&endpoint, json!({"id": "t1"}), &[])
        .await
        .unwrap();
    let mut delivered = 0;
    let err = loop {
        match events
            .next()
            .await
            .expect("the stream ends with an error, not silently")
        {
            Ok(event) => {
                assert_eq!(event["statusUpdate"]["taskId"], "t1");
                delivered += 1;
            }
            Err(err) => break err,
        }
    };
    assert!(matches!(err, GatewayError::TooLarge { .. }), "{err:?}");
    assert!(
        (20..=25).contains(&delivered),
        "{delivered} events before the cap"
    );
    assert!(events.next().await.is_none(), "nothing after the error");
}

#[tokio::test]
async fn a_card_over_2_mib_is_refused_with_or_without_content_length() {
    let big = format!("{{\"name\":\"{}\"}}", "n".repeat(MAX_CARD_BYTES));
    let agent = FakeAgent::start(move |hit| match hit.path.as_str() {
        "/sized.json" => json_response(serde_json::from_str(&big).unwrap()),
        _ => {
            let chunk = Bytes::from(vec![b' '; 512 * 1024]);
            let body = Body::from_stream(futures::stream::iter(
                (0..5).map(move |_| Ok::<_, Infallible>(chunk.clone())),
            ));
            ([(header::CONTENT_TYPE, "application/json")], body).into_response()
        }
    })
    .await;
    let gw = local_gateway();
    for path in ["/sized.json", "/chunked.json"] {
        let err = gw.discover_card(&agent.url(path)).await.unwrap_err();
        assert!(
            matches!(err, GatewayError::TooLarge { limit } if limit == MAX_CARD_BYTES),
            "{path}: {err:?}"
        );
    }
    assert_eq!(
        agent.paths(),
        ["/sized.json", "/chunked.json"],
        "no other candidate tried"
    );
}

#[tokio::test]
async fn discovery_tries_candidates_in_order_with_the_discovery_headers() {
    let agent = FakeAgent::start(|hit| match hit.path.as_str() {
        // A non-object JSON answer does not win.
        "/agents/x/.well-known/agent-card.json" => json_response(json!(["not", "a", "card"])),
        _ => StatusCode::NOT_FOUND.into_response(),
    })
    .await;
    let err = local_gateway()
        .discover_card(&agent.url("/agents/x"))
        .await
        .unwrap_err();
    let expected = [
        "/agents/x/.well-known/agent-card.json",
        "/.well-known/agent-card.json",
        "/agents/x",
        "/.well-known/agent.json",
    ];
    assert_eq!(agent.paths(), expected);
    let tried: Vec<String> = expected.iter().map(|p| agent.url(p)).collect();
    assert_eq!(
        err.to_string(),
        format!("Agent Card discovery failed. Tried: {}", tried.join(", "))
    );
    for hit in agent.hits() {
        assert_eq!(hit.method, "GET");
        assert_eq!(hit.header("accept"), Some("application/json"));
        assert_eq!(hit.header("a2a-version"), Some("1.0"));
    }
}

#[tokio::test]
async fn the_first_2xx_object_wins_and_json_urls_are_fetched_as_is() {
    let card = r#"{"name":"Fake","supportedInterfaces":[]}"#;
    let agent = FakeAgent::start(move |hit| match hit.path.as_str() {
        "/.well-known/agent-card.json" | "/cards/fake.JSON" => {
            ([(header::CONTENT_TYPE, "application/json")], card).into_response()
        }
        _ => StatusCode::NOT_FOUND.into_response(),
    })
    .await;
    let gw = local_gateway();
    let found = gw.discover_card(&agent.url("/agents/x")).await.unwrap();
    assert_eq!(found.url.as_str(), agent.url("/.well-known/agent-card.json"));
    assert_eq!(found.card["name"], "Fake");
    assert_eq!(found.raw.as_ref(), card.as_bytes());
    assert_eq!(found.sha256, hex::encode(Sha256::digest(card.as_bytes())));
    assert_eq!(
        agent.paths(),
        [
            "/agents/x/.well-known/agent-card.json",
            "/.well-known/agent-card.json"
        ]
    );

    let found = gw.discover_card(&agent.url("/cards/fake.JSON")).await.unwrap();
    assert_eq!(found.url.path(), "/cards/fake.JSON");
    let err = gw
        .discover_card(&agent.url("/cards/missing.json"))
        .await
        .unwrap_err();
    assert!(
        matches!(err, GatewayError::DiscoveryFailed { ref tried } if tried.len() == 1),
        "{err:?}"
    );
    assert_eq!(agent.paths().len(), 4, "one request per .json URL");
}

#[tokio::test]
async fn discovery_refuses_bad_card_urls_before_any_request() {
    let gw = local_gateway();
    for url in [
        "http://user:pw@127.0.0.1:9/card",
        "http://127.0.0.1:9/card?x=1",
        "http://127.0.0.1:9/card#f",
        "ftp://127.0.0.1:9/card",
    ] {
        assert!(
            matches!(gw.discover_card(url).await, Err(GatewayError::InvalidUrl(_))),
            "{url}"
        );
    }
    let long = format!("http://127.0.0.1:9/{}", "a".repeat(1024));
    assert!(matches!(
        gw.discover_card(&long).await,
        Err(GatewayError::InvalidUrl(_))
    ));
}

#[tokio::test]
async fn version_and_extension_headers_follow_the_interface() {
    let agent = FakeAgent::start(|hit| {
        if hit.body.get("jsonrpc").is_some() {
            rpc_result(hit, json!({"task": {"id": "t1"}}))
        } else {
            json_response(json!({"task": {"id": "t1"}}))
        }
    })
    .await;
    let gw = local_gateway();
    let extensions = vec![
        "urn:x-a2a:trace:v1".to_owned(),
        "https://ext.example/b/v1".to_owned(),
    ];

    let v1 = agent.endpoint("/rpc", Transport::JsonRpc, ProtocolVersion::V1_0);
    let result = gw.send_message(&v1, message_params(), &extensions).await.unwrap();
    assert_eq!(result, json!({"task": {"id": "t1"}}));
    let v03 = agent.endpoint("/rpc", Transport::JsonRpc, ProtocolVersion::V0_3);
    gw.send_message(&v03, json!({"message": {"kind": "message"}}), &extensions)
        .await
        .unwrap();
    let rest = agent.endpoint("/rest", Transport::HttpJson, ProtocolVersion::V1_0);
    gw.get_task(&rest, json!({"id": "t1", "historyLength": 3}), &[])
        .await
        .unwrap();

    let hits = agent.hits();
    assert_eq!(hits[0].header("a2a-version"), Some("1.0"));
    assert_eq!(
        hits[0].header("a2a-extensions"),
        Some("urn:x-a2a:trace:v1,https://ext.example/b/v1")
    );
    assert_eq!(hits[0].header("x-a2a-extensions"), None);
    assert_eq!(hits[0].header("content-type"), Some("application/json"));
    assert_eq!(hits[0].body["method"], "SendMessage");
    assert_eq!(hits[0].body["params"], message_params());

    assert_eq!(hits[1].header("a2a-version"), Some("0.3"));
    assert_eq!(hits[1].body["method"], "message/send");
    assert_eq!(
        hits[1].header("a2a-extensions"),
        Some("urn:x-a2a:trace:v1,https://ext.example/b/v1")
    );
    assert_eq!(
        hits[1].header("x-a2a-extensions"),
        Some("urn:x-a2a:trace:v1,https://ext.example/b/v1")
    );

    assert_eq!(
        (hits[2].method.as_str(), hits[2].path.as_str()),
        ("GET", "/rest/tasks/t1")
    );
    assert_eq!(hits[2].query.as_deref(), Some("historyLength=3"));
    assert_eq!(hits[2].header("a2a-version"), Some("1.0"));
    assert_eq!(hits[2].header("a2a-extensions"), None, "no header without URIs");
}

#[tokio::test]
async fn every_operation_reaches_its_method_or_route() {
    let agent = FakeAgent::start(|hit| {
        if hit.body.get("jsonrpc").is_some() {
            rpc_result(hit, json!({}))
        } else {
            json_response(json!({}))
        }
    })
    .await;
    let gw = local_gateway();
    let rpc = agent.endpoint("/rpc", Transport::JsonRpc, ProtocolVersion::V1_0);
    let rpc03 = agent.endpoint("/rpc", Transport::JsonRpc, ProtocolVersion::V0_3);
    let mut rest = agent.endpoint("/rest", Transport::HttpJson, ProtocolVersion::V1_0);
    rest.tenant = Some("acme".into());
    let rest03 = agent.endpoint("/rest", Transport::HttpJson, ProtocolVersion::V0_3);

    let push = json!({"taskId": "t1", "id": "c1"});
    let calls: [(Operation, Value); 9] = [
        (Operation::SendMessage, message_params()),
        (Operation::GetTask, json!({"id": "t1"})),
        (Operation::CancelTask, json!({"id": "t1"})),
        (Operation::ListTasks, json!({"pageSize": 25})),
        (
            Operation::CreateTaskPushNotificationConfig,
            json!({"taskId": "t1", "url": "https://h.example/"}),
        ),
        (Operation::GetTaskPushNotificationConfig, push.clone()),
        (
            Operation::ListTaskPushNotificationConfigs,
            json!({"taskId": "t1"}),
        ),
        (Operation::DeleteTaskPushNotificationConfig, push),
        (Operation::GetExtendedAgentCard, Value::Null),
    ];
    for (op, params) in calls.clone() {
        gw.call(&rpc, op, params.clone(), &[]).await.unwrap();
        gw.call(&rest, op, params, &[]).await.unwrap();
    }
    let hits = agent.hits();
    let methods: Vec<&str> = hits
        .iter()
        .step_by(2)
        .map(|h| h.body["method"].as_str().unwrap())
        .collect();
    assert_eq!(methods, calls.iter().map(|(op, _)| op.name()).collect::<Vec<_>>());
    let routes: Vec<String> = hits
        .iter()
        .skip(1)
        .step_by(2)
        .map(|h| format!("{} {}", h.method, h.path))
        .collect();
    assert_eq!(
        routes,
        [
            "POST /rest/acme/message:send",
            "GET /rest/acme/tasks/t1",
            "POST /rest/acme/tasks/t1:cancel",
            "GET /rest/acme/tasks",
            "POST /rest/acme/tasks/t1/pushNotificationConfigs",
            "GET /rest/acme/tasks/t1/pushNotificationConfigs/c1",
            "GET /rest/acme/tasks/t1/pushNotificationConfigs",
            "DELETE /rest/acme/tasks/t1/pushNotificationConfigs/c1",
            "GET /rest/acme/extendedAgentCard",
        ]
    );
    assert_eq!(hits[1].header("content-type"), Some("application/a2a+json"));
    // The ListTasks query is added by the gateway after admission, which refuses queries.
    assert_eq!(hits[7].path, "/rest/acme/tasks");
    assert_eq!(hits[7].query.as_deref(), Some("pageSize=25"));

    // 0.3: the old names and the /v1 prefix; ListTasks does not exist over 0.3 JSON-RPC.
    let before = agent.hits().len();
    let err = gw.list_tasks(&rpc03, json!({}), &[]).await.unwrap_err();
    assert!(
        matches!(
            err,
            GatewayError::Unsupported {
                operation: "ListTasks",
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(agent.hits().len(), before, "nothing sent");
    gw.cancel_task(&rpc03, json!({"id": "t1"}), &[]).await.unwrap();
    gw.get_extended_card(&rpc03, Value::Null, &[]).await.unwrap();
    gw.get_push_config(
        &rest03,
        json!({"id": "t1", "pushNotificationConfigId": "c1"}),
        &[],
    )
    .await
    .unwrap();
    gw.get_extended_card(&rest03, Value::Null, &[]).await.unwrap();
    let hits = &agent.hits()[before..];
    assert_eq!(hits[0].body["method"], "tasks/cancel");
    assert_eq!(hits[1].body["method"], "agent/getAuthenticatedExtendedCard");
    assert_eq!(hits[2].path, "/rest/v1/tasks/t1/pushNotificationConfigs/c1");
    assert_eq!(hits[3].path, "/rest/v1/card");
}

#[tokio::test]
async fn json_rpc_and_rest_errors_are_typed() {
    let agent = FakeAgent::start(|hit| {
        if hit.path == "/rpc" {
            json_response(json!({
                "jsonrpc": "2.0",
                "id": hit.body["id"],
                "error": {"code": -32001, "message": "Task not found",
                          "data": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "TASK_NOT_FOUND"}]}
            }))
        } else {
            (
                StatusCode::NOT_FOUND,
                [(header::CONTENT_TYPE, "application/json")],
                json!({"error": {"code": 404, "status": "NOT_FOUND", "message": "Task not found",
                                 "details": [{"reason": "TASK_NOT_FOUND"}]}})
                .to_string(),
            )
                .into_response()
        }
    })
    .await;
    let gw = local_gateway();
    let rpc = agent.endpoint("/rpc", Transport::JsonRpc, ProtocolVersion::V1_0);
    let err = gw.get_task(&rpc, json!({"id": "nope"}), &[]).await.unwrap_err();
    assert!(
        matches!(&err, GatewayError::JsonRpc(e) if e.code == -32001),
        "{err:?}"
    );
    assert_eq!(err.reason().as_deref(), Some("TASK_NOT_FOUND"));
    assert_eq!(err.kind(), Some(ErrorCode::TaskNotFound));
    // The same error answered to a stream request, before any event.
    let err = gw
        .subscribe_to_task(&rpc, json!({"id": "nope"}), &[])
        .await
        .err()
        .unwrap();
    assert!(
        matches!(&err, GatewayError::JsonRpc(e) if e.code == -32001),
        "{err:?}"
    );

    let rest = agent.endpoint("/rest", Transport::HttpJson, ProtocolVersion::V1_0);
    match gw.get_task(&rest, json!({"id": "nope"}), &[]).await.unwrap_err() {
        err @ GatewayError::Http { status: 404, .. } => {
            assert_eq!(err.reason().as_deref(), Some("TASK_NOT_FOUND"))
        }
        other => panic!("unexpected {other:?}"),
    }
}

#[tokio::test]
async fn sse_over_json_rpc_unwraps_envelopes_across_awkward_chunks() {
    let agent = FakeAgent::start(|hit| {
        let id = hit.body["id"].to_string();
        let task = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"task":{{"id":"t1"}}}}}}"#);
        let status =
            format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"statusUpdate":{{"taskId":"t1"}}}}}}"#);
        let whole = format!(": hello\r\n\r\ndata: {task}\r\n\r\n: keep-alive\n\ndata: {status}\r\n\r\n");
        // Cut through the middle of lines and of the CRLF pairs.
        let bytes = whole.into_bytes();
        let chunks = bytes
            .chunks(7)
            .map(|c| String::from_utf8(c.to_vec()).unwrap())
            .collect();
        sse_response(chunks)
    })
    .await;
    let endpoint = agent.endpoint("/rpc", Transport::JsonRpc, ProtocolVersion::V1_0);
    let events: Vec<Value> = local_gateway()
        .send_streaming_message(&endpoint, message_params(), &["urn:e".to_owned()])
        .await
        .unwrap()
        .map(Result::unwrap)
        .collect()
        .await;
    assert_eq!(
        events,
        [
            json!({"task": {"id": "t1"}}),
            json!({"statusUpdate": {"taskId": "t1"}})
        ]
    );
    let hit = &agent.hits()[0];
    assert_eq!(hit.body["method"], "SendStreamingMessage");
    assert_eq!(hit.header("accept"), Some("text/event-stream"));
    assert_eq!(hit.header("a2a-extensions"), Some("urn:e"));
}

#[tokio::test]
async fn sse_over_rest_passes_bare_events_and_ends_on_a_json_rpc_error() {
    let agent = FakeAgent::start(|hit| match hit.path.as_str() {
        "/message:stream" => sse_response(vec![
            "data: {\"task\":{\"id\":\"t1\"}}\n\n".into(),
            "data: {\"artifactUpdate\":\n".into(),
            "data: {\"taskId\":\"t1\"}}\n\n".into(),
        ]),
        _ => sse_response(vec![
            "data: {\"kind\":\"task\",\"id\":\"t1\"}\n\n".into(),
            "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32004,\"message\":\"no\"}}\n\n".into(),
            "data: {\"kind\":\"status-update\"}\n\n".into(),
        ]),
    })
    .await;
    let gw = local_gateway();
    let rest = agent.endpoint("/", Transport::HttpJson, ProtocolVersion::V1_0);
    let events: Vec<Value> = gw
        .send_streaming_message(&rest, message_params(), &[])
        .await
        .unwrap()
        .map(Result::unwrap)
        .collect()
        .await;
    assert_eq!(
        events,
        [
            json!({"task": {"id": "t1"}}),
            json!({"artifactUpdate": {"taskId": "t1"}})
        ]
    );

    let rest03 = agent.endpoint("/", Transport::HttpJson, ProtocolVersion::V0_3);
    let items: Vec<_> = gw
        .subscribe_to_task(&rest03, json!({"id": "t1"}), &[])
        .await
        .unwrap()
        .collect()
        .await;
    assert_eq!(items.len(), 2, "the stream ends at the error");
    assert_eq!(items[0].as_ref().unwrap()["kind"], "task");
    assert!(matches!(
        &items[1],
        Err(GatewayError::JsonRpc(e)) if e.code == -32004
    ));
    let paths = agent.paths();
    assert_eq!(paths, ["/message:stream", "/v1/tasks/t1:subscribe"]);
}

#[tokio::test]
async fn a_name_resolving_to_loopback_is_refused_unless_private_networks_are_allowed() {
    let agent = FakeAgent::start(|_| json_response(json!({"name": "card"}))).await;
    let port = agent.addr.port();
    let by_name = format!("http://localhost:{port}/.well-known/agent-card.json");

    let err = gateway(false, &[]).discover_card(&by_name).await.unwrap_err();
    match &err {
        GatewayError::Refused {
            rule: Rule::Loopback, ..
        } => {}
        other => panic!("unexpected {other:?}"),
    }
    assert!(
        err.to_string().contains("A2A_ALLOW_PRIVATE_NETWORKS=true"),
        "{err}"
    );
    let err = gateway(false, &[])
        .discover_card(&agent.url("/card.json"))
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            GatewayError::Refused {
                rule: Rule::Loopback,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(agent.hits().is_empty(), "nothing reached the agent");

    let found = local_gateway().discover_card(&by_name).await.unwrap();
    assert_eq!(found.card["name"], "card");
}

#[tokio::test]
async fn the_origin_allowlist_is_exact() {
    let agent = FakeAgent::start(|_| json_response(json!({"name": "card"}))).await;
    let other_port = format!("http://127.0.0.1:{}", agent.addr.port() + 1);
    let err = gateway(true, &[other_port])
        .discover_card(&agent.url("/c.json"))
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            GatewayError::Refused {
                rule: Rule::OriginNotAllowed,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(agent.hits().is_empty());

    let exact = format!("http://127.0.0.1:{}", agent.addr.port());
    let found = gateway(true, &[exact])
        .discover_card(&agent.url("/c.json"))
        .await
        .unwrap();
    assert_eq!(found.card["name"], "card");
}

#[tokio::test]
async fn a_slow_agent_times_out() {
    let agent = FakeAgent::start(|_| {
        let body = Body::from_stream(futures::stream::once(async {
            tokio::time::sleep(Duration::from_secs(5)).await;
            Ok::<_, Infallible>(Bytes::from_static(b"{}"))
        }));
        ([(header::CONTENT_TYPE, "text/event-stream")], body).into_response()
    })
    .await;
    let gw = local_gateway().with_timeout(Duration::from_secs(1));
    let endpoint = agent.endpoint("/", Transport::HttpJson, ProtocolVersion::V1_0);
    let err = gw
        .get_task(&endpoint, json!({"id": "t1"}), &[])
        .await
        .unwrap_err();
    assert!(matches!(err, GatewayError::Timeout { seconds: 1 }), "{err:?}");
    let mut events = gw
        .subscribe_to_task(&endpoint, json!({"id": "t1"}), &[])
        .await
        .unwrap();
    let err = events.next().await.unwrap().unwrap_err();
    assert!(
        matches!(err, GatewayError::Timeout { seconds: 1 }),
        "idle stream: {err:?}"
    );
}

#[tokio::test]
async fn a_dot_segment_config_id_never_reaches_another_route() {
    let agent = FakeAgent::start(|_| json_response(json!({}))).await;
    let gw = local_gateway();
    let rest = agent.endpoint("/rest", Transport::HttpJson, ProtocolVersion::V1_0);
    for id in ["..", ".", "%2E%2e"] {
        let err = gw
            .delete_push_config(&rest, json!({"taskId": "t1", "id": id}), &[])
            .await
            .unwrap_err();
        assert!(matches!(err, GatewayError::InvalidParams(_)), "{id}: {err:?}");
    }
    assert!(
        agent.hits().is_empty(),
        "no DELETE /tasks/t1: {:?}",
        agent.paths()
    );
}

#[tokio::test]
async fn urls_with_a_query_are_refused_before_any_request() {
    let agent = FakeAgent::start(|hit| rpc_result(hit, json!({}))).await;
    let gw = local_gateway();
    let err = gw
        .fetch_card(Url::parse(&agent.url("/card.json?x=1")).unwrap())
        .await
        .unwrap_err();
    assert!(
        matches!(&err, GatewayError::InvalidUrl(m) if m.contains("query")),
        "{err:?}"
    );
    for transport in [Transport::JsonRpc, Transport::HttpJson] {
        let endpoint = agent.endpoint("/a2a?x=1", transport, ProtocolVersion::V1_0);
        let err = gw
            .list_tasks(&endpoint, json!({"pageSize": 5}), &[])
            .await
            .unwrap_err();
        assert!(
            matches!(err, GatewayError::InvalidUrl(_)),
            "{transport:?}: {err:?}"
        );
    }
    assert!(agent.hits().is_empty(), "{:?}", agent.paths());
}
