//! JSON-RPC 2.0 envelopes: the request the gateway sends and the lenient decoding of the
//! response (result or error, with the 1.0 `ErrorInfo` reason when present).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::error::DecodeError;
use super::error_code::ErrorCode;
use super::lenient::{as_i64, as_object};

/// The JSON-RPC protocol version string.
pub const JSONRPC_VERSION: &str = "2.0";

/// A JSON-RPC request id. Numbers sent as floats (`2.0`) read as integers.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RequestId {
    /// A numeric id.
    Number(i64),
    /// A string id.
    String(String),
}

impl RequestId {
    /// Reads an id; `None` for null, absent or any other type.
    pub fn from_value(value: &Value) -> Option<Self> {
        match value {
            Value::String(s) => Some(RequestId::String(s.clone())),
            Value::Number(_) => as_i64(value).map(RequestId::Number),
            _ => None,
        }
    }
}

/// An outgoing JSON-RPC request.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JsonRpcRequest {
    /// Always `"2.0"`.
    pub jsonrpc: String,
    /// Echoed back by the agent.
    pub id: RequestId,
    /// A method name from [`super::method::Operation::jsonrpc_method`].
    pub method: String,
    /// The encoded params object; `Null` leaves the member out (JSON-RPC 2.0 allows only a
    /// structured value there).
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub params: Value,
}

impl JsonRpcRequest {
    /// A request for `method` with `params`.
    pub fn new(id: RequestId, method: impl Into<String>, params: Value) -> Self {
        JsonRpcRequest {
            jsonrpc: JSONRPC_VERSION.to_owned(),
            id,
            method: method.into(),
            params,
        }
    }

    /// The request as JSON.
    pub fn to_value(&self) -> Value {
        let mut obj = Map::new();
        obj.insert("jsonrpc".into(), Value::String(self.jsonrpc.clone()));
        obj.insert(
            "id".into(),
            match &self.id {
                RequestId::Number(n) => Value::from(*n),
                RequestId::String(s) => Value::String(s.clone()),
            },
        );
        obj.insert("method".into(), Value::String(self.method.clone()));
        if !self.params.is_null() {
            obj.insert("params".into(), self.params.clone());
        }
        Value::Object(obj)
    }
}

/// An error object returned by an agent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, thiserror::Error)]
#[error("agent error {code}: {message}")]
pub struct JsonRpcError {
    /// The numeric code as sent.
    pub code: i64,
    /// The agent's message (may be empty).
    pub message: String,
    /// 1.0: an array of ProtoJSON `Any` (normally `ErrorInfo`); 0.3: any value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl JsonRpcError {
    /// The named code.
    pub fn kind(&self) -> ErrorCode {
        ErrorCode::from_code(self.code)
    }

    /// The `ErrorInfo.reason` from `data`, when the agent sent one.
    pub fn reason(&self) -> Option<String> {
        error_info_reason(self.data.as_ref()?)
    }

    /// Decodes an `error` object; `code` is required.
    pub fn decode(value: &Value) -> Result<Self, DecodeError> {
        Self::decode_at(value, "")
    }

    pub(crate) fn decode_at(value: &Value, path: &str) -> Result<Self, DecodeError> {
        let obj = as_object(value, path)?;
        let code_path = super::lenient::join(path, "code");
        let code = match obj.get("code") {
            None | Some(Value::Null) => return Err(DecodeError::missing(code_path)),
            Some(c) => as_i64(c).ok_or_else(|| DecodeError::wrong_type(code_path, "an integer"))?,
        };
        Ok(JsonRpcError {
            code,
            message: obj
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
            data: obj.get("data").filter(|d| !d.is_null()).cloned(),
        })
    }
}

/// Finds an `ErrorInfo.reason` in a 1.0 `details`/`data` array, or a `reason` member of a
/// 0.3-style data object.
pub(crate) fn error_info_reason(data: &Value) -> Option<String> {
    let reason_of = |v: &Value| v.get("reason").and_then(Value::as_str).map(str::to_owned);
    match data {
        Value::Array(items) => items.iter().find_map(reason_of),
        Value::Object(_) => reason_of(data),
        _ => None,
    }
}

/// A decoded JSON-RPC response.
#[derive(Clone, Debug, PartialEq)]
pub struct JsonRpcResponse {
    /// The echoed id; `None` when null (e.g. after a parse error) or absent.
    pub id: Option<RequestId>,
    /// The `result` value, or the `error`.
    pub outcome: Result<Value, JsonRpcError>,
}

impl JsonRpcResponse {
    /// Decodes a response object. Needs `result` or an `error` object; `error` wins when both
    /// are present. The `jsonrpc` member is not checked (some agents omit it).
    pub fn decode(value: &Value) -> Result<Self, DecodeError> {
        let obj = as_object(value, "")?;
        let id = obj.get("id").and_then(RequestId::from_value);
        let outcome = match (obj.get("error").filter(|e| !e.is_null()), obj.get("result")) {
            (Some(error), _) => Err(JsonRpcError::decode_at(error, "error")?),
            (None, Some(result)) => Ok(result.clone()),
            (None, None) => return Err(DecodeError::missing("result")),
        };
        Ok(JsonRpcResponse { id, outcome })
    }

    /// Decodes a response from text.
    pub fn decode_str(text: &str) -> Result<Self, DecodeError> {
        let value: Value = serde_json::from_str(text).map_err(|e| DecodeError::NotJson(e.to_string()))?;
        Self::decode(&value)
    }
}

/// True when an object looks like a JSON-RPC response envelope rather than a bare payload
/// (a stream event of the HTTP+JSON binding, or a push webhook body).
pub fn is_jsonrpc_envelope(obj: &Map<String, Value>) -> bool {
    obj.contains_key("jsonrpc")
        || (obj.contains_key("id") && (obj.contains_key("result") || obj.contains_key("error")))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::json;

    use super::*;
    use crate::a2a::error_code::NAMED_ERROR_CODES;
    use crate::a2a::test_json::arb_json;

    const KEYS: &[&str] = &[
        "jsonrpc", "id", "result", "error", "code", "message", "data", "reason",
    ];

    #[test]
    fn request_shape() {
        let r = JsonRpcRequest::new(RequestId::Number(7), "SendMessage", json!({"message": {}}));
        assert_eq!(
            r.to_value(),
            json!({"jsonrpc": "2.0", "id": 7, "method": "SendMessage", "params": {"message": {}}})
        );
        assert_eq!(serde_json::to_value(&r).expect("ser"), r.to_value());
        let bare = JsonRpcRequest::new(RequestId::String("r".into()), "GetExtendedAgentCard", Value::Null);
        assert_eq!(
            bare.to_value(),
            json!({"jsonrpc": "2.0", "id": "r", "method": "GetExtendedAgentCard"})
        );
        assert_eq!(serde_json::to_value(&bare).expect("ser"), bare.to_value());
        let back: JsonRpcRequest = serde_json::from_value(bare.to_value()).expect("de");
        assert_eq!(back, bare);
    }

    #[test]
    fn result_response() {
        let r = JsonRpcResponse::decode(&json!({"jsonrpc": "2.0", "id": 2.0, "result": {"task": {}}}))
            .expect("ok");
        assert_eq!(r.id, Some(RequestId::Number(2)));
        assert_eq!(r.outcome, Ok(json!({"task": {}})));
        let r = JsonRpcResponse::decode_str(r#"{"jsonrpc":"2.0","id":"a","result":null}"#).expect("ok");
        assert_eq!(r.id, Some(RequestId::String("a".into())));
        assert_eq!(r.outcome, Ok(Value::Null));
    }

    #[test]
    fn every_error_code_decodes() {
        for code in NAMED_ERROR_CODES {
            let wire = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": code.code(), "message": "m"}});
            let r = JsonRpcResponse::decode(&wire).expect("decodes");
            let err = r.outcome.expect_err("is an error");
            assert_eq!(err.kind(), code);
            assert_eq!(err.message, "m");
        }
    }

    #[test]
    fn error_with_float_code_and_error_info() {
        let r = JsonRpcResponse::decode(&json!({
            "jsonrpc": "2.0", "id": null,
            "error": {"code": -32001.0, "message": "Task not found",
                      "data": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "TASK_NOT_FOUND",
                                "domain": "a2a-protocol.org"}]}
        }))
        .expect("decodes");
        assert_eq!(r.id, None);
        let err = r.outcome.expect_err("error");
        assert_eq!(err.kind(), ErrorCode::TaskNotFound);
        assert_eq!(err.reason().as_deref(), Some("TASK_NOT_FOUND"));
        assert_eq!(err.to_string(), "agent error -32001: Task not found");
    }

    #[test]
    fn version_not_supported_from_sdk() {
        let r = JsonRpcResponse::decode_str(
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32009,"message":"A2A version '0.3' is not supported"}}"#,
        )
        .expect("decodes");
        assert_eq!(
            r.outcome.expect_err("error").kind(),
            ErrorCode::VersionNotSupported
        );
    }

    #[test]
    fn broken_envelopes() {
        assert_eq!(
            JsonRpcResponse::decode(&json!({"id": 1})),
            Err(DecodeError::missing("result"))
        );
        assert_eq!(
            JsonRpcResponse::decode(&json!({"id": 1, "error": {"message": "x"}})),
            Err(DecodeError::missing("error.code"))
        );
        assert_eq!(
            JsonRpcResponse::decode(&json!({"id": 1, "error": {"code": "boom"}})),
            Err(DecodeError::wrong_type("error.code", "an integer"))
        );
        assert_eq!(
            JsonRpcResponse::decode(&json!({"id": 1, "error": "boom"})),
            Err(DecodeError::wrong_type("error", "an object"))
        );
        assert!(matches!(
            JsonRpcResponse::decode_str("{"),
            Err(DecodeError::NotJson(_))
        ));
    }

    proptest! {
        #[test]
        fn never_panics_on_values(v in arb_json(KEYS)) {
            let _ = JsonRpcResponse::decode(&v);
            let _ = JsonRpcError::decode(&v);
        }

        #[test]
        fn never_panics_on_strings(s in ".{0,200}") {
            let _ = JsonRpcResponse::decode_str(&s);
        }
    }
}
