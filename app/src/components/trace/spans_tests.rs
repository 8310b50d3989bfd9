use serde_json::{Value, json};

use super::spans::*;
use super::*;
use crate::ext::uri::TRACE_URI;

/// A trace artifact of the demo agent's `trace` variant at `time` (seconds after 10:00:00).
fn at(sequence: i64, task: &str, trace_type: &str, seconds: f64, data: Value) -> Vec<TraceItem> {
    let whole = seconds.trunc() as i64;
    let millis = ((seconds - seconds.trunc()) * 1000.0).round() as i64;
    let payload = json!({"artifactUpdate": {"taskId": "remote-1", "artifact": {
        "artifactId": format!("trace-{sequence}"),
        "name": trace_type,
        "extensions": [TRACE_URI],
        "metadata": {"traceType": trace_type, "timestamp": format!("2026-03-01T10:00:{whole:02}.{millis:03}Z")},
        "parts": [{"data": data, "mediaType": "application/json"}],
    }}});
    decode_ledger_event(&LedgerEvent {
        sequence,
        task_id: task.into(),
        conversation_id: "c".into(),
        source: "stream".into(),
        payload,
        extensions: vec![TRACE_URI.into()],
        protocol_version: Some("1.0".into()),
        received_at: "2026-03-01T10:00:00Z".into(),
    })
}

fn rows(spans: &[Span]) -> Vec<(String, usize, Outcome, String)> {
    spans
        .iter()
        .map(|s| (s.label.clone(), s.depth, s.outcome, duration_text(s)))
        .collect()
}

/// The demo agent's health check: the agent span holds the tool span; a declined and a failed
/// tool with no start are instants; the usage note is an instant too.
#[test]
fn started_and_completed_events_pair_into_nested_spans_with_durations() {
    let items = [
        at(1, "t", "trace.lifecycle", 0.0, json!({"state": "started"})),
        at(
            2,
            "t",
            "trace.mcp.start",
            0.15,
            json!({"tool": "kubectl.get_pods"}),
        ),
        at(
            3,
            "t",
            "trace.mcp",
            0.49,
            json!({"tool": "kubectl.get_pods", "status": "completed"}),
        ),
        at(
            4,
            "t",
            "trace.mcp",
            0.6,
            json!({"tool": "http.get", "status": "failed"}),
        ),
        at(5, "t", "trace.usage", 0.7, json!({"inputTokens": 1})),
        at(6, "t", "trace.lifecycle", 2.5, json!({"state": "finished"})),
    ]
    .concat();
    let spans = spans(&items);
    assert_eq!(
        rows(&spans),
        [
            ("Agent execution".to_owned(), 0, Outcome::Done, "2.5 s".to_owned()),
            (
                "tool kubectl.get_pods".to_owned(),
                1,
                Outcome::Done,
                "340 ms".to_owned()
            ),
            ("tool http.get".to_owned(), 1, Outcome::Instant, String::new()),
            ("trace usage".to_owned(), 1, Outcome::Instant, String::new()),
        ]
    );
    let extent = extent(&spans).unwrap();
    assert_eq!(extent.1 - extent.0, 2500);
    assert_eq!(placement(&spans[0], extent), (0.0, 100.0));
    let (left, width) = placement(&spans[1], extent);
    assert!(
        (left - 6.0).abs() < 1e-9 && (width - 13.6).abs() < 1e-9,
        "{left} {width}"
    );
}

#[test]
fn a_failure_closes_its_span_as_failed_and_an_unclosed_one_runs_to_the_last_event() {
    let items = [
        at(1, "t", "trace.lifecycle", 0.0, json!({"state": "started"})),
        at(2, "t", "trace.mcp.start", 1.0, json!({"tool": "a"})),
        at(3, "t", "trace.mcp.start", 1.5, json!({"tool": "b"})),
        // `a` closes though `b` opened after it: pairing is by subject, not only by order.
        at(4, "t", "trace.mcp", 2.0, json!({"tool": "a", "status": "error"})),
        at(5, "t", "trace.lifecycle", 3.0, json!({"state": "error"})),
    ]
    .concat();
    let spans = spans(&items);
    assert_eq!(
        rows(&spans),
        [
            (
                "Agent execution".to_owned(),
                0,
                Outcome::Failed,
                "3.0 s".to_owned()
            ),
            ("tool a".to_owned(), 1, Outcome::Failed, "1.0 s".to_owned()),
            ("tool b".to_owned(), 2, Outcome::Running, "running".to_owned()),
        ]
    );
    assert_eq!(
        spans[0].level,
        Level::Error,
        "the failing event's level is the span's"
    );
    let extent = extent(&spans).unwrap();
    let (left, width) = placement(&spans[2], extent);
    assert!(
        (left + width - 100.0).abs() < 1e-9,
        "a running span reaches the end"
    );
}

#[test]
fn tasks_nest_separately_and_span_ids_pair_across_subjects() {
    let mut items = [
        at(1, "one", "trace.mcp.start", 0.0, json!({"tool": "x"})),
        at(2, "two", "trace.mcp.start", 0.1, json!({"tool": "y"})),
        at(3, "two", "trace.mcp", 0.3, json!({"tool": "y"})),
        at(4, "one", "trace.mcp", 0.4, json!({"tool": "renamed"})),
    ]
    .concat();
    // Same span id on the first and last: they pair although the subjects differ.
    for i in [0, 3] {
        items[i].event.references.get_or_insert_default().span_id = Some("s1".into());
    }
    let spans = spans(&items);
    assert_eq!(
        rows(&spans),
        [
            ("tool x".to_owned(), 0, Outcome::Done, "400 ms".to_owned()),
            ("tool y".to_owned(), 0, Outcome::Done, "200 ms".to_owned()),
        ]
    );
    assert_eq!(spans[1].task_id, "two");
}

#[test]
fn durations_read_in_the_unit_that_fits() {
    let span = |ms| Span {
        key: (1, "k".into()),
        task_id: "t".into(),
        label: "l".into(),
        start: 0,
        end: Some(ms),
        outcome: Outcome::Done,
        depth: 0,
        level: Level::Info,
    };
    assert_eq!(duration_text(&span(0)), "0 ms");
    assert_eq!(duration_text(&span(999)), "999 ms");
    assert_eq!(duration_text(&span(1_250)), "1.2 s");
    assert_eq!(duration_text(&span(125_000)), "2 min 5 s");
    assert!(extent(&[]).is_none());
}
