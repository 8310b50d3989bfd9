//! Golden JSON from the SDK servers: each `python_*` value below is what a2a-sdk 0.3.26 emits
//! (`MessageToDict(proto_utils.ToProto.…)`, generated with the wheel in a throwaway venv);
//! the JS server (@a2a-js/sdk 1.3.0 ts-proto `toJSON`) emits the same member names.

use serde_json::json;

use super::*;
use crate::a2a::encode::{SendParams, encode_send_params};
use crate::a2a::event::{StreamEvent, decode_stream_event};
use crate::a2a::part::PartContent;
use crate::a2a::push::PushConfig;
use crate::a2a::version::ProtocolVersion;

/// The encoders' fixture, with a reference task, its full history and a blocking send.
fn outgoing() -> SendParams {
    let mut params = crate::a2a::encode::sample_send_params();
    params.tenant = None;
    params.message.reference_task_ids = vec!["old".into()];
    if let Some(configuration) = params.configuration.as_mut() {
        configuration.history_length = None;
        configuration.return_immediately = false;
    }
    params
}

#[test]
fn send_body_is_the_protojson_send_message_request() {
    // The a2a-sdk 0.3.26 client sends this body for the same message (MessageToDict of
    // SendMessageRequest); its server parses it with json_format.Parse, which refuses any
    // unknown member (`kind`, `parts`, `referenceTaskIds`) and lower-case enums.
    let body = send_request_body(&encode_send_params(&outgoing(), ProtocolVersion::V0_3));
    assert_eq!(
        body,
        json!({
            "message": {
                "messageId": "m-1", "contextId": "ctx", "taskId": "task", "role": "ROLE_USER",
                "content": [
                    {"text": "Hello"},
                    {"data": {"data": {"a": 1}}, "metadata": {"mimeType": "application/json"}},
                    {"file": {"fileWithUri": "https://f/x.pdf", "mimeType": "application/pdf", "name": "x.pdf"}},
                    {"file": {"fileWithBytes": "AAE="}}
                ],
                "extensions": ["urn:ext"]
            },
            "configuration": {
                "acceptedOutputModes": ["text/plain"], "blocking": true,
                "pushNotification": {"url": "https://c/hook", "token": "t", "authentication": {"schemes": ["Bearer"]}}
            },
            "metadata": {"k": "v"}
        })
    );
}

#[test]
fn python_task_decodes_as_a_0_3_task() {
    let python_task = json!({"id": "t1", "contextId": "c1",
        "status": {"state": "TASK_STATE_CANCELLED", "message": {"messageId": "s1", "role": "ROLE_AGENT", "content": [{"text": "bye"}]}},
        "artifacts": [{"artifactId": "a1", "name": "out", "parts": [
            {"data": {"data": {"n": [1.0, 2.0]}}},
            {"file": {"fileWithUri": "https://f/y.png", "mimeType": "image/png"}}]}],
        "history": [{"messageId": "m-1", "role": "ROLE_USER", "content": [
            {"text": "Hello"}, {"file": {"fileWithBytes": "AAE=", "name": "b.bin"}}]}]});
    let task = answer_in(Operation::GetTask, python_task.clone());
    assert_eq!(
        task,
        json!({"kind": "task", "id": "t1", "contextId": "c1",
            "status": {"state": "canceled", "message": {"kind": "message", "messageId": "s1", "role": "agent",
                "parts": [{"kind": "text", "text": "bye"}]}},
            "artifacts": [{"artifactId": "a1", "name": "out", "parts": [
                {"kind": "data", "data": {"n": [1.0, 2.0]}},
                {"kind": "file", "file": {"uri": "https://f/y.png", "mimeType": "image/png"}}]}],
            "history": [{"kind": "message", "messageId": "m-1", "role": "user", "parts": [
                {"kind": "text", "text": "Hello"}, {"kind": "file", "file": {"bytes": "AAE=", "name": "b.bin"}}]}]})
    );
    // SendMessageResponse {"task": …} gives the same; the stored payload decodes.
    let sent = answer_in(Operation::SendMessage, json!({ "task": python_task }));
    assert_eq!(sent, task);
    let decoded = decode_stream_event(&sent).expect("decodes");
    assert_eq!(decoded.version, Some(ProtocolVersion::V0_3));
    let StreamEvent::Task(task) = decoded.event else {
        panic!("a task")
    };
    assert_eq!(task.status.state, TaskState::Canceled);
    assert_eq!(
        task.artifacts[0].parts[0].content,
        PartContent::Data(json!({"n": [1.0, 2.0]}))
    );
    assert_eq!(task.history[0].parts[1].filename.as_deref(), Some("b.bin"));
}

#[test]
fn python_stream_responses_become_kind_events() {
    let status = stream_response_in(json!({"statusUpdate": {"taskId": "t1", "contextId": "c1",
        "status": {"state": "TASK_STATE_INPUT_REQUIRED"}, "final": true}}));
    assert_eq!(
        status,
        json!({"kind": "status-update", "taskId": "t1", "contextId": "c1",
            "status": {"state": "input-required"}, "final": true})
    );
    let artifact = stream_response_in(json!({"artifactUpdate": {"taskId": "t1", "contextId": "c1",
        "artifact": {"artifactId": "a1", "parts": [{"text": "chunk"}]}, "append": true}}));
    assert_eq!(
        artifact,
        json!({"kind": "artifact-update", "taskId": "t1", "contextId": "c1",
            "artifact": {"artifactId": "a1", "parts": [{"kind": "text", "text": "chunk"}]}, "append": true})
    );
    let message = stream_response_in(json!({"message": {"messageId": "m", "role": "ROLE_AGENT",
        "content": [{"data": {"data": {"data": 1}}, "metadata": {"x": 1}}]}}));
    assert_eq!(
        message,
        json!({"kind": "message", "messageId": "m", "role": "agent",
            "parts": [{"kind": "data", "data": {"data": 1}, "metadata": {"x": 1}}]})
    );
    for event in [status, artifact, message] {
        let decoded = decode_stream_event(&event).expect("decodes");
        assert_eq!(decoded.version, Some(ProtocolVersion::V0_3));
    }
    // Already-0.3 and unknown shapes pass through.
    let kind = json!({"kind": "task", "id": "t", "status": {"state": "working"}});
    assert_eq!(stream_response_in(kind.clone()), kind);
    assert_eq!(stream_response_in(json!({"x": 1})), json!({"x": 1}));
    assert_eq!(stream_response_in(json!(null)), json!(null));
}

#[test]
fn push_configs_both_directions() {
    // Python's client sends `CreateTaskPushNotificationConfigRequest` (what its server parses);
    // the JS server parses the bare `TaskPushNotificationConfig` (`body: "config"`).
    let params = PushConfig {
        id: Some("c9".into()),
        task_id: None,
        url: "https://c/hook".into(),
        token: Some("tok".into()),
        authentication: None,
        tenant: None,
    }
    .encode(ProtocolVersion::V0_3);
    let (python, js) = push_create_bodies("t1", &params);
    let config = json!({"name": "tasks/t1/pushNotificationConfigs/c9",
        "pushNotificationConfig": {"id": "c9", "url": "https://c/hook", "token": "tok"}});
    assert_eq!(
        python,
        json!({"parent": "tasks/t1", "configId": "c9", "config": config})
    );
    assert_eq!(js, config);

    let python_answer = json!({"name": "tasks/t1/pushNotificationConfigs/c9",
        "pushNotificationConfig": {"url": "https://c/hook", "authentication": {"schemes": ["Bearer"], "credentials": "x"}}});
    let read = answer_in(Operation::GetTaskPushNotificationConfig, python_answer.clone());
    let decoded = PushConfig::decode(&read).expect("decodes");
    assert_eq!(decoded.task_id.as_deref(), Some("t1"));
    assert_eq!(decoded.id.as_deref(), Some("c9"));
    assert_eq!(
        decoded.authentication.map(|a| a.scheme).as_deref(),
        Some("Bearer")
    );
    let list = answer_in(
        Operation::ListTaskPushNotificationConfigs,
        json!({"configs": [python_answer]}),
    );
    assert_eq!(
        crate::a2a::push::decode_push_config_list(&list)
            .expect("list")
            .len(),
        1
    );
    // ts-proto omits an empty list entirely.
    assert_eq!(
        answer_in(Operation::ListTaskPushNotificationConfigs, json!({})),
        json!([])
    );
}

#[test]
fn odd_inputs_pass_through() {
    assert_eq!(answer_in(Operation::GetTask, json!({})), json!({}));
    assert_eq!(
        answer_in(Operation::DeleteTaskPushNotificationConfig, Value::Null),
        Value::Null
    );
    assert_eq!(send_request_body(&json!("x")), json!("x"));
    assert_eq!(
        answer_in(
            Operation::GetTaskPushNotificationConfig,
            json!({"name": "other/x"})
        ),
        json!({"name": "other/x"})
    );
    let unknown_part = json!({"message": {"messageId": "m", "role": "user", "parts": [{"weird": 1}]}});
    assert_eq!(
        send_request_body(&unknown_part)["message"]["content"],
        json!([{"weird": 1}])
    );
}

#[test]
fn a_stored_protojson_payload_still_decodes() {
    // A raw a2a-sdk 0.3 StreamResponse, as it would read if it were stored unconverted: the
    // decoders take `content` for `parts` and the `fileWithUri`/`fileWithBytes` names. (A data
    // part stays ambiguous, `{"data":{"data":…}}` is also a valid 1.0 part, so it is read as 1.0.)
    let raw = json!({"task": {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_CANCELLED",
        "message": {"messageId": "s1", "role": "ROLE_AGENT", "content": [{"text": "bye"},
            {"file": {"fileWithUri": "https://f/y.png", "mimeType": "image/png"}},
            {"file": {"fileWithBytes": "AAE=", "name": "b.bin"}}]}}}});
    let StreamEvent::Task(task) = decode_stream_event(&raw).expect("decodes").event else {
        panic!("a task")
    };
    assert_eq!(task.status.state, TaskState::Canceled);
    let message = task.status.message.expect("a status message");
    assert_eq!(message.text(), "bye");
    assert_eq!(
        message.parts[1].content,
        PartContent::Url("https://f/y.png".into())
    );
    assert_eq!(message.parts[1].media_type.as_deref(), Some("image/png"));
    assert_eq!(message.parts[2].content, PartContent::Raw("AAE=".into()));
}

#[test]
fn a_protojson_0_3_extended_card_decodes() {
    // `GET /v1/card` on @a2a-js/sdk's 0.3 layer answers `AgentCard.toJSON` of the 0.3 proto:
    // the 0.3 top-level fields with the proto's oneof-wrapped schemes and `schemes/list`
    // requirements (member names from the a2a-sdk 0.3.26 descriptor). It goes to the card
    // decoder unconverted.
    let card = json!({"protocolVersion": "0.3.0", "name": "js03", "description": "d", "url": "http://a/",
        "preferredTransport": "HTTP+JSON", "version": "1",
        "capabilities": {"streaming": true},
        "securitySchemes": {"key": {"apiKeySecurityScheme": {"location": "header", "name": "X-Key"}}},
        "security": [{"schemes": {"key": {"list": []}}}],
        "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "s", "name": "s", "description": "d", "tags": ["t"]}]});
    let decoded = crate::a2a::card::decode_card(&card).expect("decodes").card;
    assert_eq!(decoded.interfaces.len(), 1);
    assert_eq!(decoded.interfaces[0].protocol_version, "0.3");
    assert!(matches!(
        decoded.security_schemes.get("key"),
        Some(crate::a2a::security::SecurityScheme::ApiKey { location, name, .. }) if location == "header" && name == "X-Key"
    ));
    assert_eq!(decoded.security_requirements.len(), 1);
    assert!(decoded.security_requirements[0].contains_key("key"));
}
