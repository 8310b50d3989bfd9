//! The operation table per protocol version (spec A.2): JSON-RPC method names (1.0
//! `SendMessage`…, 0.3 `message/send`…) and HTTP+JSON routes (1.0 with an optional
//! `/{tenant}` prefix, 0.3 under `/v1/`). The gateway builds every request from this table.

use serde::{Deserialize, Serialize};

use super::version::ProtocolVersion;

/// An A2A operation the console may invoke.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Operation {
    /// Send a message, answer is a task or a message.
    SendMessage,
    /// Send a message and stream the answer (SSE).
    SendStreamingMessage,
    /// Read one task.
    GetTask,
    /// List tasks (1.0; 0.3 has no JSON-RPC method for it).
    ListTasks,
    /// Cancel a task.
    CancelTask,
    /// Re-attach to a task's event stream (SSE).
    SubscribeToTask,
    /// Create a push notification config.
    CreateTaskPushNotificationConfig,
    /// Read one push notification config.
    GetTaskPushNotificationConfig,
    /// List a task's push notification configs.
    ListTaskPushNotificationConfigs,
    /// Delete a push notification config.
    DeleteTaskPushNotificationConfig,
    /// Fetch the authenticated extended card.
    GetExtendedAgentCard,
}

/// HTTP methods used by the HTTP+JSON binding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum HttpMethod {
    /// GET.
    Get,
    /// POST.
    Post,
    /// DELETE.
    Delete,
}

impl HttpMethod {
    /// The method name, e.g. `GET`.
    pub fn as_str(self) -> &'static str {
        match self {
            HttpMethod::Get => "GET",
            HttpMethod::Post => "POST",
            HttpMethod::Delete => "DELETE",
        }
    }
}

/// An HTTP+JSON route: method plus a path to append to the interface URL (starts with `/`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RestRoute {
    /// The HTTP method.
    pub method: HttpMethod,
    /// The path with its segments percent-encoded.
    pub path: String,
}

/// Values substituted into REST paths; unused ones are ignored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RouteParams<'a> {
    /// The remote task id.
    pub task_id: &'a str,
    /// The push notification config id.
    pub config_id: &'a str,
    /// The 1.0 tenant; empty means no `/{tenant}` prefix.
    pub tenant: &'a str,
}

/// The params members that fill [`RouteParams`] for one operation and version; `None` when
/// the route has no such segment.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RouteParamNames {
    /// The member holding the task id.
    pub task_id: Option<&'static str>,
    /// The member holding the push notification config id.
    pub config_id: Option<&'static str>,
}

impl Operation {
    /// Every operation, in table order.
    pub const ALL: [Operation; 11] = [
        Operation::SendMessage,
        Operation::SendStreamingMessage,
        Operation::GetTask,
        Operation::ListTasks,
        Operation::CancelTask,
        Operation::SubscribeToTask,
        Operation::CreateTaskPushNotificationConfig,
        Operation::GetTaskPushNotificationConfig,
        Operation::ListTaskPushNotificationConfigs,
        Operation::DeleteTaskPushNotificationConfig,
        Operation::GetExtendedAgentCard,
    ];

    /// The 1.0 name (also the 1.0 JSON-RPC method), for messages and logs.
    pub fn name(self) -> &'static str {
        match self {
            Operation::SendMessage => "SendMessage",
            Operation::SendStreamingMessage => "SendStreamingMessage",
            Operation::GetTask => "GetTask",
            Operation::ListTasks => "ListTasks",
            Operation::CancelTask => "CancelTask",
            Operation::SubscribeToTask => "SubscribeToTask",
            Operation::CreateTaskPushNotificationConfig => "CreateTaskPushNotificationConfig",
            Operation::GetTaskPushNotificationConfig => "GetTaskPushNotificationConfig",
            Operation::ListTaskPushNotificationConfigs => "ListTaskPushNotificationConfigs",
            Operation::DeleteTaskPushNotificationConfig => "DeleteTaskPushNotificationConfig",
            Operation::GetExtendedAgentCard => "GetExtendedAgentCard",
        }
    }

    /// The JSON-RPC method name; `None` for `ListTasks` in 0.3.
    pub fn jsonrpc_method(self, version: ProtocolVersion) -> Option<&'static str> {
        Some(match version {
            ProtocolVersion::V1_0 => self.name(),
            ProtocolVersion::V0_3 => match self {
                Operation::SendMessage => "message/send",
                Operation::SendStreamingMessage => "message/stream",
                Operation::GetTask => "tasks/get",
                Operation::ListTasks => return None,
                Operation::CancelTask => "tasks/cancel",
                Operation::SubscribeToTask => "tasks/resubscribe",
                Operation::CreateTaskPushNotificationConfig => "tasks/pushNotificationConfig/set",
                Operation::GetTaskPushNotificationConfig => "tasks/pushNotificationConfig/get",
                Operation::ListTaskPushNotificationConfigs => "tasks/pushNotificationConfig/list",
                Operation::DeleteTaskPushNotificationConfig => "tasks/pushNotificationConfig/delete",
                Operation::GetExtendedAgentCard => "agent/getAuthenticatedExtendedCard",
            },
        })
    }

    /// Which params members hold the ids an HTTP+JSON route puts in its path, as the
    /// encoders in `encode.rs` name them: 1.0 push configs use `taskId` and `id`, 0.3 ones
    /// `id` and `pushNotificationConfigId` (but `taskId` for set). A REST request takes these
    /// members out of the params before the rest becomes its body or query.
    pub fn route_param_names(self, version: ProtocolVersion) -> RouteParamNames {
        let (task_id, config_id) = match (self, version) {
            (Operation::GetTask | Operation::CancelTask | Operation::SubscribeToTask, _) => {
                (Some("id"), None)
            }
            (Operation::CreateTaskPushNotificationConfig, _) => (Some("taskId"), None),
            (Operation::ListTaskPushNotificationConfigs, ProtocolVersion::V1_0) => (Some("taskId"), None),
            (Operation::ListTaskPushNotificationConfigs, ProtocolVersion::V0_3) => (Some("id"), None),
            (
                Operation::GetTaskPushNotificationConfig | Operation::DeleteTaskPushNotificationConfig,
                ProtocolVersion::V1_0,
            ) => (Some("taskId"), Some("id")),
            (
                Operation::GetTaskPushNotificationConfig | Operation::DeleteTaskPushNotificationConfig,
                ProtocolVersion::V0_3,
            ) => (Some("id"), Some("pushNotificationConfigId")),
            (
                Operation::SendMessage
                | Operation::SendStreamingMessage
                | Operation::ListTasks
                | Operation::GetExtendedAgentCard,
                _,
            ) => (None, None),
        };
        RouteParamNames { task_id, config_id }
    }

    /// The answer arrives as a `text/event-stream`.
    pub fn is_streaming(self) -> bool {
        matches!(self, Operation::SendStreamingMessage | Operation::SubscribeToTask)
    }

    /// The HTTP+JSON route. Subscribe uses POST (spec text; both SDKs also accept GET).
    /// 0.3 routes carry the `/v1` prefix and ignore the tenant.
    pub fn rest_route(self, version: ProtocolVersion, params: &RouteParams<'_>) -> RestRoute {
        let task = encode_segment(params.task_id);
        let config = encode_segment(params.config_id);
        let (method, tail) = match self {
            Operation::SendMessage => (HttpMethod::Post, "/message:send".to_owned()),
            Operation::SendStreamingMessage => (HttpMethod::Post, "/message:stream".to_owned()),
            Operation::GetTask => (HttpMethod::Get, format!("/tasks/{task}")),
            Operation::ListTasks => (HttpMethod::Get, "/tasks".to_owned()),
            Operation::CancelTask => (HttpMethod::Post, format!("/tasks/{task}:cancel")),
            Operation::SubscribeToTask => (HttpMethod::Post, format!("/tasks/{task}:subscribe")),
            Operation::CreateTaskPushNotificationConfig => {
                (HttpMethod::Post, format!("/tasks/{task}/pushNotificationConfigs"))
            }
            Operation::GetTaskPushNotificationConfig => (
                HttpMethod::Get,
                format!("/tasks/{task}/pushNotificationConfigs/{config}"),
            ),
            Operation::ListTaskPushNotificationConfigs => {
                (HttpMethod::Get, format!("/tasks/{task}/pushNotificationConfigs"))
            }
            Operation::DeleteTaskPushNotificationConfig => (
                HttpMethod::Delete,
                format!("/tasks/{task}/pushNotificationConfigs/{config}"),
            ),
            Operation::GetExtendedAgentCard => match version {
                ProtocolVersion::V1_0 => (HttpMethod::Get, "/extendedAgentCard".to_owned()),
                ProtocolVersion::V0_3 => (HttpMethod::Get, "/card".to_owned()),
            },
        };
        let path = match version {
            ProtocolVersion::V1_0 if params.tenant.is_empty() => tail,
            ProtocolVersion::V1_0 => format!("/{}{tail}", encode_segment(params.tenant)),
            ProtocolVersion::V0_3 => format!("/v1{tail}"),
        };
        RestRoute { method, path }
    }
}

/// Percent-encodes one path segment, keeping only RFC 3986 unreserved characters. A segment
/// of `.` or `..` stays a dot segment (so would `%2E`, which a URL parser treats alike); the
/// REST binding refuses such ids before building the route.
fn encode_segment(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len());
    for byte in segment.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jsonrpc_names_per_version() {
        let v1: Vec<_> = Operation::ALL
            .iter()
            .map(|o| o.jsonrpc_method(ProtocolVersion::V1_0))
            .collect();
        assert_eq!(
            v1,
            [
                "SendMessage",
                "SendStreamingMessage",
                "GetTask",
                "ListTasks",
                "CancelTask",
                "SubscribeToTask",
                "CreateTaskPushNotificationConfig",
                "GetTaskPushNotificationConfig",
                "ListTaskPushNotificationConfigs",
                "DeleteTaskPushNotificationConfig",
                "GetExtendedAgentCard",
            ]
            .map(Some)
        );
        let v03: Vec<_> = Operation::ALL
            .iter()
            .map(|o| o.jsonrpc_method(ProtocolVersion::V0_3))
            .collect();
        assert_eq!(
            v03,
            [
                Some("message/send"),
                Some("message/stream"),
                Some("tasks/get"),
                None,
                Some("tasks/cancel"),
                Some("tasks/resubscribe"),
                Some("tasks/pushNotificationConfig/set"),
                Some("tasks/pushNotificationConfig/get"),
                Some("tasks/pushNotificationConfig/list"),
                Some("tasks/pushNotificationConfig/delete"),
                Some("agent/getAuthenticatedExtendedCard"),
            ]
        );
        assert!(Operation::SubscribeToTask.is_streaming() && !Operation::GetTask.is_streaming());
    }

    #[test]
    fn rest_routes_v1() {
        let p = RouteParams {
            task_id: "t1",
            config_id: "c1",
            tenant: "",
        };
        let route = |op: Operation| {
            let r = op.rest_route(ProtocolVersion::V1_0, &p);
            format!("{} {}", r.method.as_str(), r.path)
        };
        assert_eq!(route(Operation::SendMessage), "POST /message:send");
        assert_eq!(route(Operation::SendStreamingMessage), "POST /message:stream");
        assert_eq!(route(Operation::GetTask), "GET /tasks/t1");
        assert_eq!(route(Operation::ListTasks), "GET /tasks");
        assert_eq!(route(Operation::CancelTask), "POST /tasks/t1:cancel");
        assert_eq!(route(Operation::SubscribeToTask), "POST /tasks/t1:subscribe");
        assert_eq!(
            route(Operation::CreateTaskPushNotificationConfig),
            "POST /tasks/t1/pushNotificationConfigs"
        );
        assert_eq!(
            route(Operation::GetTaskPushNotificationConfig),
            "GET /tasks/t1/pushNotificationConfigs/c1"
        );
        assert_eq!(
            route(Operation::ListTaskPushNotificationConfigs),
            "GET /tasks/t1/pushNotificationConfigs"
        );
        assert_eq!(
            route(Operation::DeleteTaskPushNotificationConfig),
            "DELETE /tasks/t1/pushNotificationConfigs/c1"
        );
        assert_eq!(route(Operation::GetExtendedAgentCard), "GET /extendedAgentCard");
    }

    #[test]
    fn rest_routes_tenant_and_v03_and_encoding() {
        let p = RouteParams {
            task_id: "a/b c",
            config_id: "",
            tenant: "acme",
        };
        assert_eq!(
            Operation::GetTask.rest_route(ProtocolVersion::V1_0, &p).path,
            "/acme/tasks/a%2Fb%20c"
        );
        assert_eq!(
            Operation::SendMessage.rest_route(ProtocolVersion::V0_3, &p).path,
            "/v1/message:send"
        );
        assert_eq!(
            Operation::CancelTask.rest_route(ProtocolVersion::V0_3, &p).path,
            "/v1/tasks/a%2Fb%20c:cancel"
        );
        assert_eq!(
            Operation::GetExtendedAgentCard
                .rest_route(ProtocolVersion::V0_3, &p)
                .path,
            "/v1/card"
        );
        assert_eq!(encode_segment("é~"), "%C3%A9~");
    }

    #[test]
    fn names_are_the_variant_names() {
        for op in Operation::ALL {
            assert_eq!(format!("{op:?}"), op.name());
        }
    }

    #[test]
    fn route_param_names_match_the_routes_and_the_encoders() {
        use crate::a2a::encode::{encode_push_config_list, encode_push_config_ref, encode_task_id};

        let p = RouteParams {
            task_id: "TASK",
            config_id: "CONF",
            tenant: "",
        };
        for version in [ProtocolVersion::V1_0, ProtocolVersion::V0_3] {
            for op in Operation::ALL {
                let names = op.route_param_names(version);
                let path = op.rest_route(version, &p).path;
                assert_eq!(path.contains("TASK"), names.task_id.is_some(), "{op:?} {version}");
                assert_eq!(
                    path.contains("CONF"),
                    names.config_id.is_some(),
                    "{op:?} {version}"
                );
                let encoded = match op {
                    Operation::GetTask | Operation::CancelTask | Operation::SubscribeToTask => {
                        encode_task_id("TASK", "", version)
                    }
                    Operation::GetTaskPushNotificationConfig
                    | Operation::DeleteTaskPushNotificationConfig => {
                        encode_push_config_ref("TASK", "CONF", "", version)
                    }
                    Operation::ListTaskPushNotificationConfigs => {
                        encode_push_config_list("TASK", "", version)
                    }
                    _ => continue,
                };
                let member = |name: Option<&str>| name.and_then(|n| encoded.get(n)).cloned();
                assert_eq!(member(names.task_id), Some("TASK".into()), "{op:?} {version}");
                if names.config_id.is_some() {
                    assert_eq!(member(names.config_id), Some("CONF".into()), "{op:?} {version}");
                }
            }
        }
        assert_eq!(
            Operation::CreateTaskPushNotificationConfig.route_param_names(ProtocolVersion::V0_3),
            RouteParamNames {
                task_id: Some("taskId"),
                config_id: None
            }
        );
    }
}
