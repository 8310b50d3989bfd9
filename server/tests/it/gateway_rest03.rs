//! The A2A 0.3 HTTP+JSON wire through the gateway against fake agents on 127.0.0.1 that answer
//! what the SDK servers answer (`docs/reference/a2a-0.3-http-json.md`: a2a-sdk 0.3.26 and @a2a-js/sdk
//! 1.3.0's 0.3 layer): ProtoJSON bodies out and in, `:subscribe` retried with GET after a 405,
//! the 0.3 error bodies classified.

use app::a2a::{
    ErrorCode, Message, Operation, Part, ProtocolVersion, PushConfig, SendParams, StreamEvent, TaskState,
    Transport, decode_stream_event, encode_send_params,
};
use axum::http::StatusCode;
use axum::response::IntoResponse;
use futures::StreamExt;
use serde_json::{Value, json};
use server::gateway::GatewayError;

use super::gateway::{FakeAgent, json_response, local_gateway, sse_response};

fn send_params() -> Value {
    let params = SendParams {
        tenant: None,
        message: Message::user("m1", vec![Part::text("hi")]),
        configuration: None,
        metadata: None,
    };
    encode_send_params(&params, ProtocolVersion::V0_3)
}

/// A Python-style SSE frame: `MessageToJson` is indented, so one event spans many `data:` lines.
fn python_frame(event: &Value) -> String {
    let pretty = serde_json::to_string_pretty(event).unwrap();
    let lines: Vec<String> = pretty.lines().map(|l| format!("data: {l}")).collect();
    format!("{}\r\n\r\n", lines.join("\r\n"))
}

#[tokio::test]
async fn a_0_3_send_posts_protojson_and_reads_the_answer_back() {
    let agent = FakeAgent::start(|_| {
        // a2a-sdk 0.3.26's answer (MessageToDict of SendMessageResponse).
        json_response(json!({"task": {"id": "t1", "contextId": "c1",
            "status": {"state": "TASK_STATE_COMPLETED", "message": {"messageId": "s", "role": "ROLE_AGENT",
                "content": [{"text": "done"}]}},
            "artifacts": [{"artifactId": "a", "parts": [{"data": {"data": {"n": 1.0}}}]}]}}))
    })
    .await;
    let gw = local_gateway();
    let endpoint = agent.endpoint("/rest", Transport::HttpJson, ProtocolVersion::V0_3);
    let sent = gw.send_message(&endpoint, send_params(), &[]).await.unwrap();
    let hit = &agent.hits()[0];
    assert_eq!(
        (hit.method.as_str(), hit.path.as_str()),
        ("POST", "/rest/v1/message:send")
    );
    assert_eq!(hit.header("content-type"), Some("application/json"));
    assert_eq!(hit.header("a2a-version"), Some("0.3"));
    assert_eq!(
        hit.body,
        json!({"message": {"messageId": "m1", "role": "ROLE_USER", "content": [{"text": "hi"}]}})
    );
    assert_eq!(sent["kind"], "task");
    let StreamEvent::Task(task) = decode_stream_event(&sent).unwrap().event else {
        panic!("a task: {sent}")
    };
    assert_eq!(task.status.state, TaskState::Completed);
    assert_eq!(task.status.message.unwrap().text(), "done");
    assert_eq!(task.artifacts[0].parts[0], Part::data(json!({"n": 1.0}), None));
}

#[tokio::test]
async fn subscribe_is_retried_once_with_get_after_a_405() {
    let agent = FakeAgent::start(|hit| {
        if hit.path.ends_with("t1:subscribe") && hit.method == "GET" {
            let update = json!({"statusUpdate": {"taskId": "t1", "contextId": "c1",
                "status": {"state": "TASK_STATE_CANCELLED"}, "final": true}});
            sse_response(vec![python_frame(&update)])
        } else {
            StatusCode::METHOD_NOT_ALLOWED.into_response()
        }
    })
    .await;
    let gw = local_gateway();
    for version in [ProtocolVersion::V0_3, ProtocolVersion::V1_0] {
        let endpoint = agent.endpoint("/rest", Transport::HttpJson, version);
        let before = agent.hits().len();
        let mut events = gw
            .subscribe_to_task(&endpoint, json!({"id": "t1"}), &[])
            .await
            .unwrap();
        let first = events.next().await.unwrap().unwrap();
        assert!(events.next().await.is_none());
        let StreamEvent::StatusUpdate(update) = decode_stream_event(&first).unwrap().event else {
            panic!("a status update: {first}")
        };
        assert_eq!(update.status.state, TaskState::Canceled);
        let methods: Vec<String> = agent.hits()[before..].iter().map(|h| h.method.clone()).collect();
        assert_eq!(
            methods,
            ["POST", "GET"],
            "{version}: POST first every time, GET once after 405"
        );
    }
    // A second 405 is the answer: one retry only.
    let endpoint = agent.endpoint("/rest", Transport::HttpJson, ProtocolVersion::V0_3);
    let before = agent.hits().len();
    let err = gw
        .subscribe_to_task(&endpoint, json!({"id": "t2"}), &[])
        .await
        .err()
        .unwrap();
    assert!(matches!(err, GatewayError::Http { status: 405, .. }), "{err:?}");
    assert_eq!(agent.hits().len() - before, 2);
}

#[tokio::test]
async fn a_code_message_400_is_a_rejection_and_a_bare_500_is_not() {
    let agent = FakeAgent::start(|hit| {
        if hit.path.ends_with("message:send") {
            // @a2a-js/sdk 1.3.0 legacy REST router: toCompatErrorBody, HTTP 400.
            let body = json!({"code": -32602, "message": "message.messageId is required"});
            (StatusCode::BAD_REQUEST, json_response(body)).into_response()
        } else {
            // a2a-sdk 0.3.26 when its body parser fails: rest_error_handler's fallback.
            let body = json!({"message": "unknown exception"});
            (StatusCode::INTERNAL_SERVER_ERROR, json_response(body)).into_response()
        }
    })
    .await;
    let gw = local_gateway();
    let endpoint = agent.endpoint("", Transport::HttpJson, ProtocolVersion::V0_3);
    let refused = gw.send_message(&endpoint, send_params(), &[]).await.unwrap_err();
    assert!(
        matches!(refused, GatewayError::Http { status: 400, .. }),
        "{refused:?}"
    );
    assert_eq!(refused.kind(), Some(ErrorCode::InvalidParams));
    let unknown = gw
        .cancel_task(&endpoint, json!({"id": "t1"}), &[])
        .await
        .unwrap_err();
    assert!(
        matches!(unknown, GatewayError::Http { status: 500, .. }),
        "{unknown:?}"
    );
    assert_eq!(unknown.kind(), None, "a 500 says nothing about the outcome");
}

#[tokio::test]
async fn push_create_tries_the_python_body_then_the_js_body() {
    // Behaves like @a2a-js/sdk: reads `name` + `pushNotificationConfig`, refuses anything else.
    let agent = FakeAgent::start(|hit| match hit.body.get("pushNotificationConfig") {
        Some(config) => {
            let answer = json!({"name": hit.body["name"], "pushNotificationConfig": config});
            (StatusCode::CREATED, json_response(answer)).into_response()
        }
        None => {
            let body = json!({"code": -32602, "message": "TaskPushNotificationConfig missing pushNotificationConfig"});
            (StatusCode::BAD_REQUEST, json_response(body)).into_response()
        }
    })
    .await;
    let gw = local_gateway();
    let endpoint = agent.endpoint("", Transport::HttpJson, ProtocolVersion::V0_3);
    let config = PushConfig {
        id: Some("c1".into()),
        task_id: Some("t1".into()),
        url: "https://hooks.example/a2a".into(),
        token: None,
        authentication: None,
        tenant: None,
    };
    let created = gw
        .create_push_config(&endpoint, config.encode(ProtocolVersion::V0_3), &[])
        .await
        .unwrap();
    let hits = agent.hits();
    assert_eq!(hits.len(), 2);
    assert_eq!(hits[0].path, "/v1/tasks/t1/pushNotificationConfigs");
    let inner = json!({"id": "c1", "url": "https://hooks.example/a2a"});
    let name = "tasks/t1/pushNotificationConfigs/c1";
    assert_eq!(
        hits[0].body,
        json!({"parent": "tasks/t1", "configId": "c1", "config": {"name": name, "pushNotificationConfig": inner}})
    );
    assert_eq!(
        hits[1].body,
        json!({"name": name, "pushNotificationConfig": inner})
    );
    let read = PushConfig::decode(&created).unwrap();
    assert_eq!(
        (read.task_id.as_deref(), read.id.as_deref()),
        (Some("t1"), Some("c1"))
    );
    assert_eq!(
        Operation::CreateTaskPushNotificationConfig.name(),
        "CreateTaskPushNotificationConfig"
    );
}

#[tokio::test]
async fn an_sse_error_event_ends_a_rest_stream_with_the_agents_error() {
    let agent = FakeAgent::start(|_| {
        sse_response(vec![
            format!(
                "data: {}\n\n",
                json!({"task": {"id": "t1", "status": {"state": "TASK_STATE_WORKING"}}})
            ),
            "event: error\ndata: {\"code\":-32603,\"message\":\"boom\"}\n\n".to_owned(),
        ])
    })
    .await;
    let gw = local_gateway();
    let endpoint = agent.endpoint("", Transport::HttpJson, ProtocolVersion::V0_3);
    let mut events = gw
        .send_streaming_message(&endpoint, send_params(), &[])
        .await
        .unwrap();
    let first = events.next().await.unwrap().unwrap();
    assert_eq!(first["kind"], "task");
    assert_eq!(first["status"]["state"], "working");
    let err = events.next().await.unwrap().unwrap_err();
    assert!(matches!(err, GatewayError::Http { status: 500, .. }), "{err:?}");
    // An internal error says nothing about whether the agent acted: no kind, so not `failed`.
    assert_eq!(err.kind(), None);
    assert!(events.next().await.is_none());
    assert_eq!(agent.hits()[0].path, "/v1/message:stream");
}
