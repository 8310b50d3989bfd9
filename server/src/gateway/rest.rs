//! The HTTP+JSON (REST) binding (`shared/spec/a2a-and-a2ui.md` §A.2, §A.9, §A.11): turns an
//! operation's params into its route from the wire model's table (path params taken out of the
//! params, the 1.0 tenant prefix), a query string for GET/DELETE and a JSON body for POST, and
//! decodes the answer. A 0.3 interface gets its bodies in the 0.3 ProtoJSON form and its answers
//! read back into the JSON-RPC 0.3 shape (`app::a2a::rest03_wire`, `docs/reference/a2a-0.3-http-json.md`).
//! Pure.

use app::a2a::rest03_wire;
use app::a2a::{HttpMethod, Operation, ProtocolVersion, RouteParams};
use serde_json::{Map, Value};
use url::Url;

use super::endpoint::Endpoint;
use super::error::GatewayError;

/// A REST request ready to send.
#[derive(Debug, PartialEq)]
pub(crate) struct RestRequest {
    pub method: HttpMethod,
    /// The endpoint URL with the route's path; any query or fragment the endpoint carried is
    /// kept so that admission refuses it.
    pub url: Url,
    /// The form-encoded query of a GET/DELETE (the params left after the path params are
    /// taken out), attached after admission.
    pub query: Option<String>,
    /// The JSON body of a POST (the params left after the path params are taken out).
    pub body: Option<Value>,
    /// A second body to try once when the agent refuses `body` as invalid params: the 0.3
    /// push-config create, whose body a2a-sdk and @a2a-js/sdk parse differently.
    pub alt_body: Option<Value>,
}

/// Builds the request for `operation` on `endpoint` from the shaped `params`.
pub(crate) fn build(
    endpoint: &Endpoint,
    operation: Operation,
    params: Value,
) -> Result<RestRequest, GatewayError> {
    let mut params = match params {
        Value::Object(object) => object,
        Value::Null => Map::new(),
        _ => {
            return Err(GatewayError::InvalidParams(format!(
                "{} params must be a JSON object.",
                operation.name()
            )));
        }
    };
    let param_tenant = params.remove("tenant");
    let tenant = match endpoint.version {
        ProtocolVersion::V1_0 => endpoint
            .tenant
            .clone()
            .or_else(|| param_tenant.as_ref().and_then(Value::as_str).map(str::to_owned))
            .unwrap_or_default(),
        ProtocolVersion::V0_3 => String::new(),
    };
    let names = operation.route_param_names(endpoint.version);
    let task_id = take_path_param(&mut params, names.task_id, operation)?;
    let config_id = take_path_param(&mut params, names.config_id, operation)?;
    for segment in [&task_id, &config_id, &tenant] {
        refuse_dot_segment(segment, operation)?;
    }
    let route = operation.rest_route(
        endpoint.version,
        &RouteParams {
            task_id: &task_id,
            config_id: &config_id,
            tenant: &tenant,
        },
    );

    let mut url = endpoint.url.clone();
    url.set_path(&format!(
        "{}{}",
        endpoint.url.path().trim_end_matches('/'),
        route.path
    ));
    let mut alt_body = None;
    let (query, body) = match route.method {
        HttpMethod::Post if endpoint.version == ProtocolVersion::V0_3 => {
            let params = Value::Object(params);
            let body = match operation {
                Operation::SendMessage | Operation::SendStreamingMessage => {
                    rest03_wire::send_request_body(&params)
                }
                Operation::CreateTaskPushNotificationConfig => {
                    let (python, js) = rest03_wire::push_create_bodies(&task_id, &params);
                    alt_body = Some(js);
                    python
                }
                _ => params,
            };
            (None, Some(body))
        }
        HttpMethod::Post => (None, Some(Value::Object(params))),
        HttpMethod::Get | HttpMethod::Delete if params.is_empty() => (None, None),
        HttpMethod::Get | HttpMethod::Delete => {
            let mut query = url::form_urlencoded::Serializer::new(String::new());
            for (key, value) in &params {
                append_query(&mut query, key, value);
            }
            (Some(query.finish()), None)
        }
    };
    Ok(RestRequest {
        method: route.method,
        url,
        query,
        body,
        alt_body,
    })
}

/// Refuses a path param that is a dot segment: `Url::set_path` would resolve `.` or `..`
/// (and their `%2e` spellings, WHATWG URL §4.1) and send the request to another resource,
/// e.g. a config id `..` turning a config delete into `DELETE /tasks/{id}`. Percent-encoding
/// cannot help since `%2e` is a dot segment too. Other values are percent-encoded by the
/// route (a literal `%` becomes `%25`), so only these two spellings reach the path as-is.
fn refuse_dot_segment(segment: &str, operation: Operation) -> Result<(), GatewayError> {
    let decoded = segment.to_ascii_lowercase().replace("%2e", ".");
    if matches!(segment, "." | "..") || matches!(decoded.as_str(), "." | "..") {
        return Err(GatewayError::InvalidParams(format!(
            "{} over HTTP+JSON cannot use \"{segment}\" as a task, config or tenant id.",
            operation.name()
        )));
    }
    Ok(())
}

/// Removes the path param `name` (when the route has one) from `params`; it must be a
/// non-empty string or a number. `""` when the route has no such segment.
fn take_path_param(
    params: &mut Map<String, Value>,
    name: Option<&str>,
    operation: Operation,
) -> Result<String, GatewayError> {
    let Some(name) = name else {
        return Ok(String::new());
    };
    match params.remove(name) {
        Some(Value::String(s)) if !s.is_empty() => Ok(s),
        Some(Value::Number(n)) => Ok(n.to_string()),
        _ => Err(GatewayError::InvalidParams(format!(
            "{} over HTTP+JSON needs a non-empty \"{name}\" param.",
            operation.name()
        ))),
    }
}

/// ProtoJSON query mapping: scalars as `key=value`, lists as repeated keys, nested objects
/// with dotted names, nulls left out.
fn append_query(query: &mut url::form_urlencoded::Serializer<'_, String>, key: &str, value: &Value) {
    match value {
        Value::Null => {}
        Value::String(s) => {
            query.append_pair(key, s);
        }
        Value::Bool(_) | Value::Number(_) => {
            query.append_pair(key, &value.to_string());
        }
        Value::Array(items) => {
            for item in items {
                append_query(query, key, item);
            }
        }
        Value::Object(object) => {
            for (sub, item) in object {
                append_query(query, &format!("{key}.{sub}"), item);
            }
        }
    }
}

/// A 2xx answer of a 0.3 interface in the JSON-RPC 0.3 shape; 1.0 answers as they are.
pub(crate) fn answer_in(version: ProtocolVersion, operation: Operation, value: Value) -> Value {
    match version {
        ProtocolVersion::V0_3 => rest03_wire::answer_in(operation, value),
        ProtocolVersion::V1_0 => value,
    }
}

/// Decodes a REST answer: 2xx JSON (an empty body, as DELETE may send, is `Null`); anything
/// else is [`GatewayError::Http`] with the error body when it is JSON.
pub(crate) fn decode_response(status: u16, body: &[u8]) -> Result<Value, GatewayError> {
    if !(200..300).contains(&status) {
        return Err(GatewayError::Http {
            status,
            body: serde_json::from_slice(body).ok(),
        });
    }
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(Value::Null);
    }
    serde_json::from_slice(body).map_err(|e| GatewayError::Decode(format!("REST response is not JSON ({e})")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use app::a2a::Transport;
    use serde_json::json;

    fn endpoint(url: &str, version: ProtocolVersion, tenant: Option<&str>) -> Endpoint {
        Endpoint {
            url: Url::parse(url).unwrap(),
            transport: Transport::HttpJson,
            version,
            tenant: tenant.map(str::to_owned),
        }
    }

    fn v1() -> Endpoint {
        endpoint("http://agent.example/a2a/rest/", ProtocolVersion::V1_0, None)
    }

    #[test]
    fn send_posts_the_params_as_body() {
        let params = json!({"message": {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}});
        let req = build(&v1(), Operation::SendMessage, params.clone()).unwrap();
        assert_eq!(req.method, HttpMethod::Post);
        assert_eq!(req.url.as_str(), "http://agent.example/a2a/rest/message:send");
        assert_eq!(req.body, Some(params));
    }

    #[test]
    fn get_task_moves_id_to_the_path_and_the_rest_to_the_query() {
        let req = build(
            &v1(),
            Operation::GetTask,
            json!({"id": "t/1 x", "historyLength": 2}),
        )
        .unwrap();
        assert_eq!(req.method, HttpMethod::Get);
        assert_eq!(req.url.as_str(), "http://agent.example/a2a/rest/tasks/t%2F1%20x");
        assert_eq!(req.query.as_deref(), Some("historyLength=2"));
        assert_eq!(req.body, None);
    }

    #[test]
    fn list_tasks_query_and_cancel_body() {
        let req = build(
            &v1(),
            Operation::ListTasks,
            json!({"contextId": "c1", "pageSize": 25, "includeArtifacts": true, "status": null}),
        )
        .unwrap();
        assert_eq!(req.url.path(), "/a2a/rest/tasks");
        assert_eq!(req.url.query(), None, "the query is attached after admission");
        let query = req.query.unwrap();
        let mut pairs: Vec<_> = url::form_urlencoded::parse(query.as_bytes())
            .into_owned()
            .collect();
        pairs.sort();
        let expected = [
            ("contextId", "c1"),
            ("includeArtifacts", "true"),
            ("pageSize", "25"),
        ];
        assert_eq!(pairs, expected.map(|(k, v)| (k.to_owned(), v.to_owned())));
        let cancel = build(
            &v1(),
            Operation::CancelTask,
            json!({"id": "t1", "metadata": {"k": 1}}),
        )
        .unwrap();
        assert_eq!(cancel.url.path(), "/a2a/rest/tasks/t1:cancel");
        assert_eq!(cancel.body, Some(json!({"metadata": {"k": 1}})));
        let sub = build(&v1(), Operation::SubscribeToTask, json!({"id": "t1"})).unwrap();
        assert_eq!(
            (sub.method, sub.url.path()),
            (HttpMethod::Post, "/a2a/rest/tasks/t1:subscribe")
        );
    }

    #[test]
    fn push_config_routes_v1_and_v03() {
        let get = build(
            &v1(),
            Operation::GetTaskPushNotificationConfig,
            json!({"taskId": "t1", "id": "c1"}),
        )
        .unwrap();
        assert_eq!(get.url.path(), "/a2a/rest/tasks/t1/pushNotificationConfigs/c1");
        let del = build(
            &v1(),
            Operation::DeleteTaskPushNotificationConfig,
            json!({"taskId": "t1", "id": "c1"}),
        )
        .unwrap();
        assert_eq!(del.method, HttpMethod::Delete);
        let create = build(
            &v1(),
            Operation::CreateTaskPushNotificationConfig,
            json!({"taskId": "t1", "url": "https://hook.example/x"}),
        )
        .unwrap();
        assert_eq!(create.url.path(), "/a2a/rest/tasks/t1/pushNotificationConfigs");
        assert_eq!(create.body, Some(json!({"url": "https://hook.example/x"})));

        let old = endpoint("http://agent.example", ProtocolVersion::V0_3, None);
        let get = build(
            &old,
            Operation::GetTaskPushNotificationConfig,
            json!({"id": "t1", "pushNotificationConfigId": "c1"}),
        )
        .unwrap();
        assert_eq!(get.url.path(), "/v1/tasks/t1/pushNotificationConfigs/c1");
        let card = build(&old, Operation::GetExtendedAgentCard, Value::Null).unwrap();
        assert_eq!(card.url.as_str(), "http://agent.example/v1/card");
    }

    #[test]
    fn tenant_prefix_only_in_v1() {
        let tenanted = endpoint(
            "http://agent.example/api",
            ProtocolVersion::V1_0,
            Some("acme corp"),
        );
        let req = build(
            &tenanted,
            Operation::GetTask,
            json!({"id": "t1", "tenant": "ignored"}),
        )
        .unwrap();
        assert_eq!(req.url.as_str(), "http://agent.example/api/acme%20corp/tasks/t1");
        let from_params = build(
            &v1(),
            Operation::SendMessage,
            json!({"tenant": "t9", "message": {}}),
        )
        .unwrap();
        assert_eq!(from_params.url.path(), "/a2a/rest/t9/message:send");
        assert_eq!(from_params.body, Some(json!({"message": {}})));
        let old = endpoint("http://agent.example/", ProtocolVersion::V0_3, Some("acme"));
        let req = build(&old, Operation::SendMessage, json!({"message": {}})).unwrap();
        assert_eq!(req.url.path(), "/v1/message:send");
    }

    #[test]
    fn dot_segment_ids_are_refused_not_resolved() {
        for dots in [".", "..", "%2e", "%2E%2e", ".%2E", "%2e."] {
            let del = build(
                &v1(),
                Operation::DeleteTaskPushNotificationConfig,
                json!({"taskId": "t1", "id": dots}),
            );
            assert!(
                matches!(del, Err(GatewayError::InvalidParams(_))),
                "config id {dots:?} gave {del:?}"
            );
            let get = build(&v1(), Operation::GetTask, json!({"id": dots}));
            assert!(matches!(get, Err(GatewayError::InvalidParams(_))), "{dots:?}");
            let tenanted = endpoint("http://agent.example/api", ProtocolVersion::V1_0, Some(dots));
            let get = build(&tenanted, Operation::GetTask, json!({"id": "t1"}));
            assert!(matches!(get, Err(GatewayError::InvalidParams(_))), "{dots:?}");
        }
        // Dots inside a longer id are ordinary characters.
        let del = build(
            &v1(),
            Operation::DeleteTaskPushNotificationConfig,
            json!({"taskId": "t1", "id": "...c.1"}),
        )
        .unwrap();
        assert_eq!(
            (del.method, del.url.path()),
            (
                HttpMethod::Delete,
                "/a2a/rest/tasks/t1/pushNotificationConfigs/...c.1"
            )
        );
    }

    #[test]
    fn an_endpoint_query_is_kept_for_admission_to_refuse() {
        let odd = endpoint("http://agent.example/a2a?x=1", ProtocolVersion::V1_0, None);
        let req = build(&odd, Operation::ListTasks, json!({"pageSize": 5})).unwrap();
        assert_eq!(req.url.query(), Some("x=1"));
        assert_eq!(req.query.as_deref(), Some("pageSize=5"));
    }

    #[test]
    fn missing_path_params_are_refused() {
        assert!(matches!(
            build(&v1(), Operation::GetTask, json!({})),
            Err(GatewayError::InvalidParams(_))
        ));
        assert!(matches!(
            build(&v1(), Operation::GetTask, json!("t1")),
            Err(GatewayError::InvalidParams(_))
        ));
    }

    #[test]
    fn responses() {
        assert_eq!(
            decode_response(200, br#"{"task":{}}"#).unwrap(),
            json!({"task": {}})
        );
        assert_eq!(decode_response(204, b"").unwrap(), Value::Null);
        match decode_response(
            404,
            br#"{"error":{"code":404,"status":"NOT_FOUND","details":[{"reason":"TASK_NOT_FOUND"}]}}"#,
        ) {
            Err(err @ GatewayError::Http { status: 404, .. }) => {
                assert_eq!(err.reason().as_deref(), Some("TASK_NOT_FOUND"))
            }
            other => panic!("unexpected {other:?}"),
        }
        assert!(matches!(
            decode_response(500, b"oops"),
            Err(GatewayError::Http {
                status: 500,
                body: None
            })
        ));
        assert!(matches!(
            decode_response(200, b"oops"),
            Err(GatewayError::Decode(_))
        ));
    }
}
