//! A client for the JSON HTTP API in tests: one request through the real router, the answer
//! read whole.

use axum::body::Body;
use axum::http::{HeaderMap, Request, StatusCode};
use serde_json::{Value, json};
use server::AppState;

use crate::support;

pub struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub bytes: Vec<u8>,
    pub body: String,
}

pub async fn reply(response: axum::response::Response) -> Reply {
    let (status, headers) = (response.status(), response.headers().clone());
    let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .unwrap()
        .to_vec();
    let body = String::from_utf8_lossy(&bytes).into_owned();
    Reply {
        status,
        headers,
        bytes,
        body,
    }
}

impl Reply {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.body))
    }

    /// The frames of an SSE body, `(event name, JSON data)`, in order.
    pub fn frames(&self) -> Vec<(String, Value)> {
        self.body
            .split("\n\n")
            .filter_map(|frame| {
                let event = frame.lines().find_map(|l| l.strip_prefix("event: "))?;
                let data = frame.lines().find_map(|l| l.strip_prefix("data: "))?;
                Some((event.to_owned(), serde_json::from_str(data).ok()?))
            })
            .collect()
    }

    pub fn header(&self, name: &str) -> &str {
        self.headers.get(name).map_or("", |v| v.to_str().unwrap())
    }

    /// Asserts `{"error":{"message": message}}` with `status`, not cached.
    pub fn assert_error(&self, status: StatusCode, message: &str) {
        assert_eq!(
            (self.status, self.json()),
            (status, json!({"error": {"message": message}}))
        );
        assert_eq!(self.header("cache-control"), "no-store");
    }
}

pub async fn call(
    state: &AppState,
    method: &str,
    uri: &str,
    body: impl Into<Body>,
    headers: &[(&str, &str)],
) -> Reply {
    let mut request = Request::builder().method(method).uri(uri);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    reply(support::send(state, request.body(body.into()).unwrap()).await).await
}

pub async fn post(state: &AppState, uri: &str, body: Value, headers: &[(&str, &str)]) -> Reply {
    call(state, "POST", uri, body.to_string(), headers).await
}

pub async fn get(state: &AppState, uri: &str) -> Reply {
    call(state, "GET", uri, Body::empty(), &[]).await
}
