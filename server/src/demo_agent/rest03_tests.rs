//! Golden bodies: the request is what the a2a-sdk 0.3.26 client sends
//! (`MessageToDict(SendMessageRequest)`), the answers what its server emits for the same task.

use super::*;

#[test]
fn a_python_client_request_is_accepted() {
    let body = json!({"message": {"messageId": "m-1", "contextId": "ctx", "role": "ROLE_USER",
        "content": [{"text": "Hello"}, {"data": {"data": {"a": 1.0}}, "metadata": {"mimeType": "application/json"}},
            {"file": {"fileWithUri": "https://f/x.pdf", "mimeType": "application/pdf", "name": "x.pdf"}}],
        "extensions": ["urn:ext"]},
        "configuration": {"acceptedOutputModes": ["text/plain"], "blocking": true}});
    let params = send_params(body.to_string().as_bytes()).unwrap();
    assert_eq!(params["message"]["role"], "ROLE_USER");
    assert_eq!(
        params["message"]["parts"],
        json!([{"text": "Hello"}, {"data": {"a": 1.0}, "mediaType": "application/json", "metadata": {"mimeType": "application/json"}},
            {"url": "https://f/x.pdf", "mediaType": "application/pdf", "filename": "x.pdf"}])
    );
}

#[test]
fn a_json_rpc_shaped_message_is_refused() {
    for body in [
        json!({"message": {"kind": "message", "messageId": "m", "role": "user", "parts": [{"kind": "text", "text": "hi"}]}}),
        json!({"message": {"messageId": "m", "role": "user", "content": [{"text": "hi"}]}}),
        json!({"message": {"messageId": "m", "role": "ROLE_USER", "content": [{"kind": "text"}]}}),
    ] {
        let error = send_params(body.to_string().as_bytes()).unwrap_err();
        assert_eq!(error.code(), -32602, "{body}");
    }
    assert_eq!(send_params(b"{").unwrap_err(), A2aError::Parse);
}

#[test]
fn answers_are_protojson() {
    let task = json!({"kind": "task", "id": "t1", "contextId": "c1",
        "status": {"state": "canceled", "message": {"kind": "message", "messageId": "s1", "role": "agent",
            "parts": [{"kind": "text", "text": "bye"}]}},
        "artifacts": [{"artifactId": "a1", "name": "out", "parts": [{"kind": "data", "data": {"n": [1, 2]}},
            {"kind": "file", "file": {"uri": "https://f/y.png", "mimeType": "image/png"}}]}]});
    assert_eq!(
        task_out(&task),
        json!({"id": "t1", "contextId": "c1",
            "status": {"state": "TASK_STATE_CANCELLED", "message": {"messageId": "s1", "role": "ROLE_AGENT", "content": [{"text": "bye"}]}},
            "artifacts": [{"artifactId": "a1", "name": "out", "parts": [{"data": {"data": {"n": [1, 2]}}},
                {"file": {"fileWithUri": "https://f/y.png", "mimeType": "image/png"}}]}]})
    );
    let update = event_out(
        &json!({"kind": "status-update", "taskId": "t1", "contextId": "c1",
        "status": {"state": "input-required"}, "final": true}),
    );
    assert_eq!(
        update,
        json!({"statusUpdate": {"taskId": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_INPUT_REQUIRED"}, "final": true}})
    );
    let chunk = event_out(&json!({"kind": "artifact-update", "taskId": "t1",
        "artifact": {"artifactId": "a1", "parts": [{"kind": "file", "file": {"bytes": "AA==", "name": "a.bin"}}]}, "append": true}));
    assert_eq!(
        chunk,
        json!({"artifactUpdate": {"taskId": "t1", "artifact": {"artifactId": "a1",
            "parts": [{"file": {"fileWithBytes": "AA==", "name": "a.bin"}}]}, "append": true}})
    );
}
