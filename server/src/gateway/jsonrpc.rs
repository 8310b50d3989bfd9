//! The JSON-RPC 2.0 binding (`shared/spec/a2a-and-a2ui.md` §A.2, §A.9): the request envelope
//! and the decoding of a unary response into its `result` or a typed error, both built on the
//! wire model's envelopes (`app::a2a::JsonRpcRequest`, `JsonRpcResponse`). Pure.

use app::a2a::{JsonRpcRequest, JsonRpcResponse, RequestId};
use serde_json::{Map, Value};

use super::error::GatewayError;

/// The request body for `method` with `params`; the tenant (1.0 only) is copied into the
/// params unless the caller already set one. `Null` params are left out.
pub(crate) fn envelope(method: &str, id: &str, params: Value, tenant: Option<&str>) -> Value {
    let params = match (params, tenant) {
        (Value::Object(mut object), Some(tenant)) => {
            object
                .entry("tenant")
                .or_insert_with(|| Value::String(tenant.to_owned()));
            Value::Object(object)
        }
        (Value::Null, Some(tenant)) => Value::Object(Map::from_iter([(
            "tenant".to_owned(),
            Value::String(tenant.to_owned()),
        )])),
        (params, _) => params,
    };
    JsonRpcRequest::new(RequestId::String(id.to_owned()), method, params).to_value()
}

/// Decodes a unary JSON-RPC response (with its HTTP status) into `result`. An `error` member
/// wins over the status; a non-2xx answer without one is [`GatewayError::Http`].
pub(crate) fn decode_response(status: u16, body: &[u8], id: &str) -> Result<Value, GatewayError> {
    let ok = (200..300).contains(&status);
    let value: Value = match serde_json::from_slice(body) {
        Ok(value) => value,
        Err(_) if !ok => return Err(GatewayError::Http { status, body: None }),
        Err(e) => {
            return Err(GatewayError::Decode(format!(
                "JSON-RPC response is not JSON ({e})"
            )));
        }
    };
    let response = match JsonRpcResponse::decode(&value) {
        Ok(response) => response,
        Err(_) if !ok => {
            return Err(GatewayError::Http {
                status,
                body: Some(value),
            });
        }
        Err(e) => return Err(GatewayError::Decode(format!("JSON-RPC response: {e}"))),
    };
    let result = response.outcome.map_err(GatewayError::JsonRpc)?;
    if !ok {
        return Err(GatewayError::Http {
            status,
            body: Some(value),
        });
    }
    match response.id {
        Some(RequestId::String(other)) if other != id => Err(GatewayError::Decode(format!(
            "JSON-RPC response id {other:?} does not match the request"
        ))),
        Some(RequestId::Number(other)) => Err(GatewayError::Decode(format!(
            "JSON-RPC response id {other} does not match the request"
        ))),
        _ => Ok(result),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn envelope_carries_method_id_params_and_tenant() {
        let body = envelope("GetTask", "r1", json!({"id": "t1"}), Some("acme"));
        assert_eq!(
            body,
            json!({"jsonrpc": "2.0", "id": "r1", "method": "GetTask", "params": {"id": "t1", "tenant": "acme"}})
        );
        let caller_tenant = envelope(
            "GetTask",
            "r1",
            json!({"id": "t1", "tenant": "mine"}),
            Some("acme"),
        );
        assert_eq!(caller_tenant["params"]["tenant"], "mine");
        let bare = envelope("agent/getAuthenticatedExtendedCard", "r2", Value::Null, None);
        assert!(bare.get("params").is_none());
    }

    #[test]
    fn result_is_unwrapped() {
        let body = br#"{"jsonrpc":"2.0","id":"r1","result":{"task":{"id":"t1"}}}"#;
        assert_eq!(
            decode_response(200, body, "r1").unwrap(),
            json!({"task": {"id": "t1"}})
        );
    }

    #[test]
    fn error_is_typed_even_with_a_non_2xx_status() {
        let body = br#"{"jsonrpc":"2.0","id":"r1","error":{"code":-32001,"message":"Task not found","data":[{"reason":"TASK_NOT_FOUND"}]}}"#;
        for status in [200, 404, 500] {
            match decode_response(status, body, "r1").unwrap_err() {
                GatewayError::JsonRpc(error) => {
                    assert_eq!(error.code, -32001);
                    assert_eq!(error.message, "Task not found");
                    assert_eq!(error.reason().as_deref(), Some("TASK_NOT_FOUND"));
                }
                other => panic!("unexpected {other:?}"),
            }
        }
    }

    #[test]
    fn other_failures() {
        assert!(matches!(
            decode_response(502, b"<html>bad gateway</html>", "r1"),
            Err(GatewayError::Http {
                status: 502,
                body: None
            })
        ));
        assert!(matches!(
            decode_response(200, b"nope", "r1"),
            Err(GatewayError::Decode(_))
        ));
        assert!(matches!(
            decode_response(200, br#"{"jsonrpc":"2.0","id":"r1"}"#, "r1"),
            Err(GatewayError::Decode(_))
        ));
        assert!(matches!(
            decode_response(200, br#"{"jsonrpc":"2.0","id":"zz","result":{}}"#, "r1"),
            Err(GatewayError::Decode(_))
        ));
        assert!(matches!(
            decode_response(200, br#"{"jsonrpc":"2.0","id":7,"result":{}}"#, "r1"),
            Err(GatewayError::Decode(_))
        ));
        assert!(matches!(
            decode_response(
                200,
                br#"{"jsonrpc":"2.0","id":"r1","error":{"message":"no code"}}"#,
                "r1"
            ),
            Err(GatewayError::Decode(_))
        ));
        assert!(matches!(
            decode_response(503, br#"{"jsonrpc":"2.0","id":"r1","result":{}}"#, "r1"),
            Err(GatewayError::Http {
                status: 503,
                body: Some(_)
            })
        ));
    }
}
