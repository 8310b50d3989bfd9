//! The exchange log behind the Wire panel (issue #32): each HTTP request a worker makes to an
//! agent for a conversation, with its answer's status, the time to the response head and the
//! headers both ways, every secret replaced. The gateway notes an exchange only when the
//! operation was tagged with its conversation ([`Gateway::tagged`]); the note goes into a
//! bounded queue that one writer per process drains into `wire_exchanges`
//! ([`crate::workers::exchanges`]), so a slow database never slows a call to an agent. When the
//! queue is full the note is dropped and counted (ADR 0046): this is a debugging view, not the
//! system of record.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use chrono::{DateTime, Utc};
use reqwest::header::HeaderMap;
use tokio::sync::mpsc;

use super::client::Gateway;
use super::error::{GatewayError, from_reqwest};
use super::redact::{REDACTED, Redactor};

/// Notes waiting for the writer; past this many, new ones are dropped.
pub const QUEUE: usize = 4096;

/// Headers whose value is never kept, whatever it holds.
const SECRET_HEADERS: &[&str] = &[
    "authorization",
    "proxy-authorization",
    "cookie",
    "set-cookie",
    "x-api-key",
    "api-key",
];

/// What an operation was made for: the Wire panel lists a conversation's exchanges.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExchangeTag {
    pub organization_id: String,
    pub agent_id: String,
    pub conversation_id: String,
    /// The local task, once there is one (a first send has none yet).
    pub task_id: Option<String>,
}

/// One request and what came back.
#[derive(Clone, Debug, PartialEq)]
pub struct Exchange {
    pub tag: Arc<ExchangeTag>,
    pub operation: &'static str,
    pub method: String,
    pub url: String,
    pub status: Option<u16>,
    pub latency_ms: u32,
    pub error: Option<String>,
    pub request_headers: Vec<(String, String)>,
    pub response_headers: Vec<(String, String)>,
    pub started_at: DateTime<Utc>,
}

/// The sending side of the queue; cheap to clone.
#[derive(Clone, Debug)]
pub struct ExchangeLog {
    queue: mpsc::Sender<Exchange>,
    dropped: Arc<AtomicU64>,
}

impl ExchangeLog {
    /// A log and the receiver its writer drains.
    pub fn channel(capacity: usize) -> (ExchangeLog, mpsc::Receiver<Exchange>) {
        let (queue, receiver) = mpsc::channel(capacity);
        let log = ExchangeLog {
            queue,
            dropped: Arc::default(),
        };
        (log, receiver)
    }

    /// Queues `exchange`, or counts it as dropped when the queue is full. After shutdown (the
    /// writer is gone) notes are let go without a word.
    pub fn note(&self, exchange: Exchange) {
        if let Err(mpsc::error::TrySendError::Full(_)) = self.queue.try_send(exchange) {
            let dropped = self.dropped.fetch_add(1, Ordering::Relaxed) + 1;
            if dropped.is_power_of_two() {
                tracing::warn!(dropped, "the Wire exchange log is behind; exchanges dropped");
            }
        }
    }

    /// How many notes were dropped since start.
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }
}

/// A request about to go out, captured after its credential was attached.
struct Outgoing {
    method: String,
    url: String,
    headers: HeaderMap,
    started: Instant,
    started_at: DateTime<Utc>,
}

impl Outgoing {
    fn capture(request: &reqwest::Request) -> Outgoing {
        let mut url = request.url().clone();
        url.set_fragment(None);
        Outgoing {
            method: request.method().as_str().to_owned(),
            url: url.to_string(),
            headers: request.headers().clone(),
            started: Instant::now(),
            started_at: Utc::now(),
        }
    }
}

impl Gateway {
    /// The same gateway, noting its exchanges into `log` for operations that are tagged.
    pub fn with_exchange_log(mut self, log: ExchangeLog) -> Gateway {
        self.exchange_log = Some(log);
        self
    }

    /// The same gateway for one operation made for `tag`'s conversation: its exchanges are
    /// noted (when a log is attached).
    pub fn tagged(mut self, tag: ExchangeTag) -> Gateway {
        self.exchange_tag = Some(Arc::new(tag));
        self
    }

    /// Whether this operation's exchanges are noted.
    fn notes_exchanges(&self) -> bool {
        self.exchange_log.is_some() && self.exchange_tag.is_some()
    }

    /// Sends one request and notes the exchange (when the operation is tagged).
    pub(super) async fn execute_noted(
        &self,
        operation: &'static str,
        request: reqwest::Request,
    ) -> Result<reqwest::Response, GatewayError> {
        let outgoing = self.notes_exchanges().then(|| Outgoing::capture(&request));
        // The wait for the response head is bounded here too, so a stream an agent never
        // answers is noted as timed out (a unary request's own timeout is the same length).
        let answer = match tokio::time::timeout(self.timeout, self.http_client().execute(request)).await {
            Ok(answer) => answer.map_err(|e| from_reqwest(e, self.timeout_seconds())),
            Err(_) => Err(GatewayError::Timeout {
                seconds: self.timeout_seconds(),
            }),
        };
        if let Some(outgoing) = outgoing {
            self.note_exchange(operation, outgoing, answer.as_ref());
        }
        answer
    }

    /// Notes one exchange: `outgoing` and its answer (or why there was none).
    fn note_exchange(
        &self,
        operation: &'static str,
        outgoing: Outgoing,
        answer: Result<&reqwest::Response, &GatewayError>,
    ) {
        let (Some(log), Some(tag)) = (&self.exchange_log, &self.exchange_tag) else {
            return;
        };
        let redactor = self.redactor();
        let latency_ms = u32::try_from(outgoing.started.elapsed().as_millis()).unwrap_or(u32::MAX);
        let (status, response_headers, error) = match answer {
            Ok(response) => (
                Some(response.status().as_u16()),
                headers(response.headers(), &redactor),
                None,
            ),
            Err(error) => (None, Vec::new(), Some(redactor.text(&error.to_string()))),
        };
        log.note(Exchange {
            tag: tag.clone(),
            operation,
            method: outgoing.method,
            url: redactor.text(&outgoing.url),
            status,
            latency_ms,
            error,
            request_headers: headers(&outgoing.headers, &redactor),
            response_headers,
            started_at: outgoing.started_at,
        });
    }
}

/// `map` as name/value pairs, lower-case names in order, with every secret replaced: the
/// values of [`SECRET_HEADERS`] whole, and any known secret inside any other value.
pub fn headers(map: &HeaderMap, redactor: &Redactor) -> Vec<(String, String)> {
    map.iter()
        .map(|(name, value)| {
            let name = name.as_str().to_owned();
            let value = if SECRET_HEADERS.contains(&name.as_str()) {
                REDACTED.to_owned()
            } else {
                match value.to_str() {
                    Ok(text) => redactor.text(text),
                    Err(_) => "(not text)".to_owned(),
                }
            };
            (name, value)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use reqwest::header::{HeaderName, HeaderValue};

    use super::*;

    fn map(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(
                HeaderName::from_bytes(name.as_bytes()).unwrap(),
                HeaderValue::from_str(value).unwrap(),
            );
        }
        map
    }

    /// Issue #30 "never leaked" holds for the Wire panel: credential headers are replaced
    /// whole, and a known secret inside any other header is replaced where it appears.
    #[test]
    fn secrets_never_reach_the_stored_headers() {
        let redactor = Redactor::new(["s3cr3t-key"]);
        let shown = headers(
            &map(&[
                ("Authorization", "Bearer anything"),
                ("X-Custom-Key", "s3cr3t-key"),
                ("Cookie", "a=b"),
                ("A2A-Version", "1.0"),
                ("X-Echo", "prefix s3cr3t-key suffix"),
            ]),
            &redactor,
        );
        assert_eq!(
            shown,
            [
                ("authorization".to_owned(), REDACTED.to_owned()),
                ("x-custom-key".to_owned(), REDACTED.to_owned()),
                ("cookie".to_owned(), REDACTED.to_owned()),
                ("a2a-version".to_owned(), "1.0".to_owned()),
                ("x-echo".to_owned(), format!("prefix {REDACTED} suffix")),
            ]
        );
    }

    #[test]
    fn a_full_queue_drops_and_counts_instead_of_waiting() {
        let (log, mut receiver) = ExchangeLog::channel(1);
        let exchange = Exchange {
            tag: Arc::new(ExchangeTag {
                organization_id: "o".into(),
                agent_id: "a".into(),
                conversation_id: "c".into(),
                task_id: None,
            }),
            operation: "GetTask",
            method: "POST".into(),
            url: "http://agent.test/".into(),
            status: Some(200),
            latency_ms: 3,
            error: None,
            request_headers: Vec::new(),
            response_headers: Vec::new(),
            started_at: Utc::now(),
        };
        log.note(exchange.clone());
        log.note(exchange.clone());
        assert_eq!(log.dropped(), 1);
        assert_eq!(receiver.try_recv().unwrap(), exchange);
        assert!(receiver.try_recv().is_err());
    }
}
