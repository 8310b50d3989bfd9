//! Prometheus metrics: HTTP request counts and latencies, database pool gauges and build
//! information, rendered as text at `GET /metrics`.
//!
//! The registry lives in [`AppState`] (no global recorder), so every test gets its own.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Mutex;
use std::time::Instant;

use axum::extract::{MatchedPath, Request, State};
use axum::http::header::CONTENT_TYPE;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::state::AppState;

/// Upper bounds (seconds) of the request-duration histogram buckets.
pub const LATENCY_BUCKETS: [f64; 12] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0,
];

/// Label used for requests no route matched (static files, 404s), which keeps the label set
/// bounded whatever paths clients send.
const UNMATCHED_ROUTE: &str = "unmatched";

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct RequestKey {
    method: String,
    route: String,
    status: u16,
}

#[derive(Debug, Default)]
struct Histogram {
    /// Cumulative counts per entry of [`LATENCY_BUCKETS`].
    buckets: [u64; LATENCY_BUCKETS.len()],
    count: u64,
    sum: f64,
}

/// The in-process metrics registry.
#[derive(Debug, Default)]
pub struct Metrics {
    requests: Mutex<BTreeMap<RequestKey, Histogram>>,
}

impl Metrics {
    /// Records one finished request.
    pub fn observe_request(&self, method: &str, route: &str, status: u16, seconds: f64) {
        let key = RequestKey {
            method: method.to_owned(),
            route: route.to_owned(),
            status,
        };
        // A poisoned lock only means another request panicked mid-update; the counts are still usable.
        let mut requests = self
            .requests
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let histogram = requests.entry(key).or_default();
        for (bucket, bound) in histogram.buckets.iter_mut().zip(LATENCY_BUCKETS) {
            if seconds <= bound {
                *bucket += 1;
            }
        }
        histogram.count += 1;
        histogram.sum += seconds;
    }

    fn write_requests(&self, out: &mut String) {
        let requests = self
            .requests
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        out.push_str(
            "# HELP taskbay_http_requests_total HTTP requests answered, by method, route and status.\n",
        );
        out.push_str("# TYPE taskbay_http_requests_total counter\n");
        for (key, histogram) in requests.iter() {
            let _ = writeln!(
                out,
                "taskbay_http_requests_total{{method=\"{}\",route=\"{}\",status=\"{}\"}} {}",
                key.method,
                escape(&key.route),
                key.status,
                histogram.count
            );
        }
        out.push_str("# HELP taskbay_http_request_duration_seconds Time to produce the response head.\n");
        out.push_str("# TYPE taskbay_http_request_duration_seconds histogram\n");
        for (key, histogram) in requests.iter() {
            let labels = format!(
                "method=\"{}\",route=\"{}\",status=\"{}\"",
                key.method,
                escape(&key.route),
                key.status
            );
            for (count, bound) in histogram.buckets.iter().zip(LATENCY_BUCKETS) {
                let _ = writeln!(
                    out,
                    "taskbay_http_request_duration_seconds_bucket{{{labels},le=\"{bound}\"}} {count}"
                );
            }
            let _ = writeln!(
                out,
                "taskbay_http_request_duration_seconds_bucket{{{labels},le=\"+Inf\"}} {}",
                histogram.count
            );
            let _ = writeln!(
                out,
                "taskbay_http_request_duration_seconds_sum{{{labels}}} {}",
                histogram.sum
            );
            let _ = writeln!(
                out,
                "taskbay_http_request_duration_seconds_count{{{labels}}} {}",
                histogram.count
            );
        }
    }
}

fn escape(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// The `method` label of a request: one of the standard methods, or `other` for any extension
/// method, so a client cannot mint new series by inventing methods (issue #26).
pub fn method_label(method: &axum::http::Method) -> &'static str {
    match method.as_str() {
        "GET" => "GET",
        "HEAD" => "HEAD",
        "POST" => "POST",
        "PUT" => "PUT",
        "DELETE" => "DELETE",
        "CONNECT" => "CONNECT",
        "OPTIONS" => "OPTIONS",
        "TRACE" => "TRACE",
        "PATCH" => "PATCH",
        _ => "other",
    }
}

/// Middleware that times every request and records it under its route template.
pub async fn record(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = method_label(request.method()).to_owned();
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map(|path| path.as_str().to_owned())
        .unwrap_or_else(|| UNMATCHED_ROUTE.to_owned());
    let response = next.run(request).await;
    state.metrics.observe_request(
        &method,
        &route,
        response.status().as_u16(),
        started.elapsed().as_secs_f64(),
    );
    response
}

/// `GET /metrics`: Prometheus text exposition format 0.0.4.
pub async fn render(State(state): State<AppState>) -> impl IntoResponse {
    let mut out = String::with_capacity(4096);
    out.push_str("# HELP taskbay_build_info Build information; the value is always 1.\n");
    out.push_str("# TYPE taskbay_build_info gauge\n");
    let _ = writeln!(
        out,
        "taskbay_build_info{{version=\"{}\",profile=\"{}\",database=\"{}\"}} 1",
        env!("CARGO_PKG_VERSION"),
        if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        },
        state.config.database.kind()
    );
    out.push_str("# HELP taskbay_uptime_seconds Seconds since this process started serving.\n");
    out.push_str("# TYPE taskbay_uptime_seconds gauge\n");
    let _ = writeln!(
        out,
        "taskbay_uptime_seconds {}",
        state.started.elapsed().as_secs_f64()
    );
    write_pools(&state, &mut out);
    write_ingest(&state, &mut out);
    write_live(&state, &mut out);
    state.metrics.write_requests(&mut out);
    ([(CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8")], out)
}

fn write_ingest(state: &AppState, out: &mut String) {
    let counters = &state.ingestor.counters;
    for (name, help, counter) in [
        (
            "taskbay_ingest_events_total",
            "Events this process appended to the task ledger.",
            &counters.events,
        ),
        (
            "taskbay_ingest_group_commits_total",
            "Transactions that stored a group of several of a stream's events (group commit).",
            &counters.group_commits,
        ),
        (
            "taskbay_ingest_grouped_events_total",
            "Ledger events stored by group commits.",
            &counters.grouped_events,
        ),
        (
            "taskbay_ingest_queue_groups_total",
            "Groups of followed streams' events taken by the commit queue.",
            &counters.queue_groups,
        ),
        (
            "taskbay_ingest_queue_commits_total",
            "Transactions of the commit queue (the groups of several tasks commit together).",
            &counters.queue_commits,
        ),
    ] {
        let _ = writeln!(out, "# HELP {name} {help}");
        let _ = writeln!(out, "# TYPE {name} counter");
        let _ = writeln!(
            out,
            "{name} {}",
            counter.load(std::sync::atomic::Ordering::Relaxed)
        );
    }
}

fn write_live(state: &AppState, out: &mut String) {
    let open = state
        .config
        .max_live_connections
        .saturating_sub(state.live_connections.available_permits());
    for (name, kind, help, value) in [
        (
            "taskbay_live_connections",
            "gauge",
            "Open live (SSE) connections.",
            open as u64,
        ),
        (
            "taskbay_live_feeds",
            "gauge",
            "Tasks and conversations followed live, each read once for all its connections.",
            state.feeds.running() as u64,
        ),
        (
            "taskbay_live_feed_reads_total",
            "counter",
            "Reads of new events by the live feeds.",
            state.feeds.feed_reads(),
        ),
        (
            "taskbay_live_catch_up_reads_total",
            "counter",
            "Reads by live connections catching up to their feed (on connecting, or after a gap).",
            state.feeds.catch_up_reads(),
        ),
    ] {
        let _ = writeln!(out, "# HELP {name} {help}");
        let _ = writeln!(out, "# TYPE {name} {kind}");
        let _ = writeln!(out, "{name} {value}");
    }
}

fn write_pools(state: &AppState, out: &mut String) {
    out.push_str("# HELP taskbay_db_pool_connections Open database connections by pool and state.\n");
    out.push_str("# TYPE taskbay_db_pool_connections gauge\n");
    out.push_str("# HELP taskbay_db_pool_max_connections Configured size of each database pool.\n");
    let pools: Vec<(&str, (u32, usize, u32))> = if state.db.is_sqlite() {
        vec![
            ("write", stats(state.db.write.get_sqlite_connection_pool())),
            ("read", stats(state.db.read.get_sqlite_connection_pool())),
        ]
    } else {
        let mut pools = vec![("shared", stats(state.db.write.get_postgres_connection_pool()))];
        // The commit queue's own connection (ADR 0056), beside the shared pool.
        if let Some(own) = state.ingestor.queue.as_ref().and_then(|q| q.own_pool()) {
            pools.push(("commit", stats(own.get_postgres_connection_pool())));
        }
        pools
    };
    for (name, (size, idle, max)) in pools {
        let idle = u32::try_from(idle).unwrap_or(u32::MAX).min(size);
        let _ = writeln!(
            out,
            "taskbay_db_pool_connections{{pool=\"{name}\",state=\"idle\"}} {idle}"
        );
        let _ = writeln!(
            out,
            "taskbay_db_pool_connections{{pool=\"{name}\",state=\"in_use\"}} {}",
            size - idle
        );
        let _ = writeln!(out, "taskbay_db_pool_max_connections{{pool=\"{name}\"}} {max}");
    }
}

/// A pool's open connections, idle ones among them, and its size.
fn stats<DB: sea_orm::sqlx::Database>(pool: &sea_orm::sqlx::Pool<DB>) -> (u32, usize, u32) {
    (pool.size(), pool.num_idle(), pool.options().get_max_connections())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_buckets_are_cumulative() {
        let metrics = Metrics::default();
        metrics.observe_request("GET", "/healthz", 200, 0.003);
        metrics.observe_request("GET", "/healthz", 200, 0.2);
        let mut out = String::new();
        metrics.write_requests(&mut out);
        assert!(
            out.contains("taskbay_http_requests_total{method=\"GET\",route=\"/healthz\",status=\"200\"} 2")
        );
        assert!(out.contains("route=\"/healthz\",status=\"200\",le=\"0.0025\"} 0"));
        assert!(out.contains("route=\"/healthz\",status=\"200\",le=\"0.005\"} 1"));
        assert!(out.contains("route=\"/healthz\",status=\"200\",le=\"0.25\"} 2"));
        assert!(out.contains("route=\"/healthz\",status=\"200\",le=\"+Inf\"} 2"));
    }

    #[test]
    fn label_values_are_escaped() {
        assert_eq!(escape("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
    }
}
