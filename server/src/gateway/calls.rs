//! The A2A operations on [`Gateway`]: each takes the already-shaped params (`serde_json::Value`
//! in the wire shape of the endpoint's version), sends them over the endpoint's binding with
//! the version and extension headers (`shared/spec/a2a-and-a2ui.md` §A.1, §A.8;
//! `shared/spec/reference.md` §2.2), and returns the result, or a stream of events for the
//! streaming operations. Converting to and from the A2A types is the caller's job.

use std::pin::Pin;

use app::a2a::{HttpMethod, Operation, ProtocolVersion, Transport, VERSION_HEADER};
use futures::{Stream, StreamExt};
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderValue};
use reqwest::{RequestBuilder, Response};
use serde_json::Value;

use super::client::{Gateway, MAX_RESPONSE_BYTES};
use super::endpoint::Endpoint;
use super::error::GatewayError;
use super::rest_retry::{Attempt, is_invalid_params, rest_error_event};
use super::sse::{SseParser, decode_event_for};
use super::{jsonrpc, rest};

/// The 1.0 extension activation header (§A.8).
pub const EXTENSIONS_HEADER: &str = "A2A-Extensions";
/// The 0.3 spelling of the extension header, sent as well toward 0.3 interfaces (§A.8).
pub const LEGACY_EXTENSIONS_HEADER: &str = "X-A2A-Extensions";

/// The events of a streaming operation, in order: each item is one stream response (1.0
/// `{"task"|"message"|"statusUpdate"|"artifactUpdate": …}` or a 0.3 `kind` object). The
/// stream ends when the agent closes it or after the first error; dropping it closes the
/// connection.
pub type EventStream = Pin<Box<dyn Stream<Item = Result<Value, GatewayError>> + Send>>;

impl Gateway {
    /// Performs a unary operation and returns its result.
    pub async fn call(
        &self,
        endpoint: &Endpoint,
        operation: Operation,
        params: Value,
        extensions: &[String],
    ) -> Result<Value, GatewayError> {
        if operation.is_streaming() {
            return Err(GatewayError::Unsupported {
                operation: operation.name(),
                binding: "a unary call (use stream)",
            });
        }
        let retry_params = params.clone();
        let result = self
            .call_once(endpoint, operation, params, extensions, Attempt::First)
            .await;
        let result = match result {
            // The 0.3 push-config create: @a2a-js/sdk refuses a2a-sdk's body as invalid
            // params (nothing was created); try its own body once.
            Err(error) if Attempt::AltBody.applies(endpoint, operation) && is_invalid_params(&error) => {
                self.call_once(endpoint, operation, retry_params, extensions, Attempt::AltBody)
                    .await
            }
            other => other,
        };
        self.redacted(result)
    }

    /// `result` with the attached credential's secrets redacted from the answer or the agent's
    /// error (`shared/spec/security-and-durability.md` §2.3 step 9).
    fn redacted(&self, result: Result<Value, GatewayError>) -> Result<Value, GatewayError> {
        if !self.has_credential() {
            return result;
        }
        let redactor = self.redactor();
        match result {
            Ok(mut value) => {
                redactor.value(&mut value);
                Ok(value)
            }
            Err(GatewayError::JsonRpc(mut error)) => {
                error.message = redactor.text(&error.message);
                if let Some(data) = error.data.as_mut() {
                    redactor.value(data);
                }
                Err(GatewayError::JsonRpc(error))
            }
            Err(GatewayError::Http { status, mut body }) => {
                if let Some(body) = body.as_mut() {
                    redactor.value(body);
                }
                Err(GatewayError::Http { status, body })
            }
            // Decoding errors quote what the agent sent (a JSON-RPC id, a malformed event).
            Err(GatewayError::Decode(message)) => Err(GatewayError::Decode(redactor.text(&message))),
            Err(GatewayError::InvalidParams(message)) => {
                Err(GatewayError::InvalidParams(redactor.text(&message)))
            }
            Err(other) => Err(other),
        }
    }

    async fn call_once(
        &self,
        endpoint: &Endpoint,
        operation: Operation,
        params: Value,
        extensions: &[String],
        attempt: Attempt,
    ) -> Result<Value, GatewayError> {
        let (request, rpc_id) = self.prepare(endpoint, operation, params, extensions, attempt)?;
        let request = request.header(ACCEPT, accept_json(endpoint));
        let response = self.send(operation.name(), request).await?;
        let status = response.status().as_u16();
        let body = self.read_capped(response, MAX_RESPONSE_BYTES).await?;
        match rpc_id {
            Some(id) => jsonrpc::decode_response(status, &body, &id),
            None => rest::decode_response(status, &body)
                .map(|value| rest::answer_in(endpoint.version, operation, value)),
        }
    }

    /// Starts a streaming operation (SendStreamingMessage, SubscribeToTask) and returns its
    /// events. Errors the agent reports before the stream starts come back here; later ones
    /// end the stream. A REST subscribe answered 405 is sent once more with GET (a2a-sdk 0.3
    /// serves `:subscribe` with GET only); nothing of that is remembered.
    pub async fn stream(
        &self,
        endpoint: &Endpoint,
        operation: Operation,
        params: Value,
        extensions: &[String],
    ) -> Result<EventStream, GatewayError> {
        if !operation.is_streaming() {
            return Err(GatewayError::Unsupported {
                operation: operation.name(),
                binding: "a stream (use call)",
            });
        }
        let retry_params = params.clone();
        let (request, rpc_id) = self.prepare(endpoint, operation, params, extensions, Attempt::First)?;
        let mut response = self.open_stream(operation, request).await?;
        if response.status() == reqwest::StatusCode::METHOD_NOT_ALLOWED
            && Attempt::Get.applies(endpoint, operation)
        {
            let (request, _) = self.prepare(endpoint, operation, retry_params, extensions, Attempt::Get)?;
            response = self.open_stream(operation, request).await?;
        }
        let status = response.status().as_u16();
        if !response.status().is_success() || !is_event_stream(&response) {
            // An error answered as plain JSON, or an agent that answered a stream request
            // with one JSON result: decode it as a unary answer.
            let body = self.read_capped(response, MAX_RESPONSE_BYTES).await?;
            let result = match rpc_id {
                Some(id) => jsonrpc::decode_response(status, &body, &id),
                None => rest::decode_response(status, &body)
                    .map(|value| rest::answer_in(endpoint.version, operation, value)),
            };
            let result = self.redacted(result)?;
            return Ok(futures::stream::iter([Ok(result)]).boxed());
        }
        let events = self.events(response, rpc_id, endpoint.version);
        if !self.has_credential() {
            return Ok(events);
        }
        let gateway = self.clone();
        Ok(events.map(move |event| gateway.redacted(event)).boxed())
    }

    async fn open_stream(
        &self,
        operation: Operation,
        request: RequestBuilder,
    ) -> Result<Response, GatewayError> {
        let request = request.header(ACCEPT, HeaderValue::from_static("text/event-stream"));
        self.send_streaming(operation.name(), request).await
    }

    /// The events of an open stream; over JSON-RPC (`rpc_id` set) each must carry the id.
    /// Over REST an `event: error` ends the stream with the agent's error, and 0.3 events are
    /// read back into the JSON-RPC 0.3 shape.
    fn events(&self, response: Response, rpc_id: Option<String>, version: ProtocolVersion) -> EventStream {
        let chunks = self.capped_chunks(response, MAX_RESPONSE_BYTES).boxed();
        let state = (chunks, SseParser::new(), rpc_id, false);
        futures::stream::unfold(state, move |(mut chunks, mut parser, rpc_id, done)| async move {
            if done {
                return None;
            }
            loop {
                while let Some(event) = parser.next_event() {
                    if rpc_id.is_none() && event.event.as_deref() == Some("error") {
                        return Some((Err(rest_error_event(&event.data)), (chunks, parser, rpc_id, true)));
                    }
                    match decode_event_for(&event.data, rpc_id.as_deref()) {
                        Ok(Some(value)) if rpc_id.is_none() => {
                            let value = rest::answer_in(version, Operation::SendStreamingMessage, value);
                            return Some((Ok(value), (chunks, parser, rpc_id, false)));
                        }
                        Ok(Some(value)) => return Some((Ok(value), (chunks, parser, rpc_id, false))),
                        Ok(None) => {}
                        Err(e) => return Some((Err(e), (chunks, parser, rpc_id, true))),
                    }
                }
                match chunks.next().await? {
                    Ok(chunk) => parser.feed(&chunk),
                    Err(e) => return Some((Err(e), (chunks, parser, rpc_id, true))),
                }
            }
        })
        .boxed()
    }

    /// The request for `operation` on `endpoint` with its headers and body, and the JSON-RPC
    /// id to expect back (`None` for REST).
    fn prepare(
        &self,
        endpoint: &Endpoint,
        operation: Operation,
        params: Value,
        extensions: &[String],
        attempt: Attempt,
    ) -> Result<(RequestBuilder, Option<String>), GatewayError> {
        let (request, rpc_id) = match endpoint.transport {
            Transport::JsonRpc => {
                let method = operation
                    .jsonrpc_method(endpoint.version)
                    .ok_or(GatewayError::Unsupported {
                        operation: operation.name(),
                        binding: "A2A 0.3 JSON-RPC",
                    })?;
                let id = uuid::Uuid::new_v4().to_string();
                let tenant = match endpoint.version {
                    ProtocolVersion::V1_0 => endpoint.tenant.as_deref(),
                    ProtocolVersion::V0_3 => None,
                };
                let body = jsonrpc::envelope(method, &id, params, tenant);
                let request = self
                    .request(reqwest::Method::POST, endpoint.url.clone())?
                    .header(CONTENT_TYPE, HeaderValue::from_static("application/json"))
                    .body(serde_json::to_vec(&body).map_err(|e| GatewayError::InvalidParams(e.to_string()))?);
                (request, Some(id))
            }
            Transport::HttpJson => {
                let mut built = rest::build(endpoint, operation, params)?;
                match attempt {
                    Attempt::First => {}
                    Attempt::Get => {
                        built.method = HttpMethod::Get;
                        built.body = None;
                    }
                    Attempt::AltBody => built.body = built.alt_body.take(),
                }
                let method = match built.method {
                    HttpMethod::Get => reqwest::Method::GET,
                    HttpMethod::Post => reqwest::Method::POST,
                    HttpMethod::Delete => reqwest::Method::DELETE,
                };
                let mut request = self.request_with_query(method, built.url, built.query.as_deref())?;
                if let Some(body) = built.body {
                    let content_type = match endpoint.version {
                        ProtocolVersion::V1_0 => "application/a2a+json",
                        ProtocolVersion::V0_3 => "application/json",
                    };
                    request = request
                        .header(CONTENT_TYPE, HeaderValue::from_static(content_type))
                        .body(
                            serde_json::to_vec(&body)
                                .map_err(|e| GatewayError::InvalidParams(e.to_string()))?,
                        );
                }
                (request, None)
            }
        };
        Ok((
            with_protocol_headers(request, endpoint.version, extensions)?,
            rpc_id,
        ))
    }
}

/// `A2A-Version` always; the extension header(s) with the URIs comma-joined, only when there
/// are any (`shared/spec/reference.md` §2.2).
fn with_protocol_headers(
    request: RequestBuilder,
    version: ProtocolVersion,
    extensions: &[String],
) -> Result<RequestBuilder, GatewayError> {
    let mut request = request.header(VERSION_HEADER, HeaderValue::from_static(version.as_str()));
    if extensions.is_empty() {
        return Ok(request);
    }
    let joined = extensions.join(",");
    let value = HeaderValue::from_str(&joined).map_err(|_| {
        GatewayError::InvalidParams(format!("Extension URIs are not a valid header value: {joined}"))
    })?;
    request = request.header(EXTENSIONS_HEADER, value.clone());
    if version == ProtocolVersion::V0_3 {
        request = request.header(LEGACY_EXTENSIONS_HEADER, value);
    }
    Ok(request)
}

fn accept_json(endpoint: &Endpoint) -> HeaderValue {
    match (endpoint.transport, endpoint.version) {
        (Transport::HttpJson, ProtocolVersion::V1_0) => {
            HeaderValue::from_static("application/a2a+json, application/json")
        }
        _ => HeaderValue::from_static("application/json"),
    }
}

fn is_event_stream(response: &Response) -> bool {
    response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.trim_start()
                .to_ascii_lowercase()
                .starts_with("text/event-stream")
        })
}
