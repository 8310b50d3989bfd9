//! The floor under the SSE fan-out benchmark (issue #33, `end2end/bench/fanout.mjs`): a bare
//! axum server that does nothing but what every live connection of the console must do, so
//! `scripts/bench` can put what the console costs beside what the stack under it costs, on the
//! same sockets, clients and machine in the same run.
//!
//! `GET /api/live/tasks/{id}` answers an event stream like the console's: the first connection
//! to an id starts its frames, [`FRAMES`] of them [`INTERVAL`] apart (the demo agent's `slow`
//! variant streams 20 chunks 500 ms apart), each encoded once and shared by every connection to
//! the id, `receivedAt` the time it was made and the last one `TASK_STATE_COMPLETED`. No
//! database, no identity, no resume, no ledger: the HTTP/1.1 connection, a broadcast receiver and
//! the socket writes. `GET /healthz` answers `ok`.
//!
//! Usage: `cargo run --release -p server --example sse_floor -- <port> [frame bytes]`.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{HeaderValue, header};
use axum::response::Response;
use axum::routing::get;
use bytes::Bytes;
use chrono::{SecondsFormat, Utc};
use tokio::sync::broadcast;

/// Frames each stream sends, as the demo agent's `slow` variant does.
const FRAMES: u64 = 20;
/// Between two frames of a stream.
const INTERVAL: Duration = Duration::from_millis(500);
/// A frame's size when none is given: a ledger frame of the `slow` variant's task measures 577 bytes
/// on average as received (`fanout.mjs`, chunk size lines included).
const DEFAULT_FRAME_BYTES: usize = 570;

#[derive(Clone)]
struct Streams {
    frame_bytes: usize,
    open: Arc<Mutex<HashMap<String, broadcast::Sender<Bytes>>>>,
}

impl Streams {
    /// A receiver of the stream of `id`, started by the first connection to it.
    fn subscribe(&self, id: String) -> broadcast::Receiver<Bytes> {
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(sender) = open.get(&id) {
            return sender.subscribe();
        }
        let (sender, receiver) = broadcast::channel(FRAMES as usize + 1);
        open.insert(id.clone(), sender.clone());
        tokio::spawn(emit(self.clone(), id, sender));
        receiver
    }
}

/// Sends the frames of one stream, then ends it (dropping the sender closes every body).
async fn emit(streams: Streams, id: String, sender: broadcast::Sender<Bytes>) {
    let mut ticks = tokio::time::interval(INTERVAL);
    for sequence in 1..=FRAMES {
        ticks.tick().await;
        let _ = sender.send(frame(sequence, streams.frame_bytes));
    }
    streams
        .open
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .remove(&id);
}

/// One ledger-like frame of about `bytes` bytes.
fn frame(sequence: u64, bytes: usize) -> Bytes {
    let state = if sequence == FRAMES {
        "TASK_STATE_COMPLETED"
    } else {
        "TASK_STATE_WORKING"
    };
    let at = Utc::now().to_rfc3339_opts(SecondsFormat::Micros, true);
    let head = format!(
        "id: {sequence}\nevent: ledger\ndata: {{\"sequence\":{sequence},\"receivedAt\":\"{at}\",\"state\":\"{state}\",\"pad\":\""
    );
    let pad = bytes.saturating_sub(head.len() + 4);
    format!("{head}{}\"}}\n\n", "x".repeat(pad)).into()
}

async fn live(State(streams): State<Streams>, Path(id): Path<String>) -> Response {
    let frames = futures::stream::unfold(streams.subscribe(id), |mut receiver| async move {
        loop {
            match receiver.recv().await {
                Ok(bytes) => return Some((Ok::<_, Infallible>(bytes), receiver)),
                Err(broadcast::error::RecvError::Lagged(_)) => {}
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    });
    let mut response = Response::new(Body::from_stream(frames));
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    response
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let port: u16 = args.next().unwrap_or_else(|| "3099".into()).parse()?;
    let frame_bytes = match args.next() {
        Some(bytes) => bytes.parse()?,
        None => DEFAULT_FRAME_BYTES,
    };
    let streams = Streams {
        frame_bytes,
        open: Arc::default(),
    };
    let router = Router::new()
        .route("/healthz", get(|| async { "ok" }))
        .route("/api/live/tasks/{id}", get(live))
        .with_state(streams);
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    axum::serve(server::serve::without_nagle(listener), router).await?;
    Ok(())
}
