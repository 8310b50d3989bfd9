//! The Trace waterfall (issue #32): sideband events paired into spans. A `<kind>.started` event
//! opens a span that the next `<kind>.completed|finished|failed|error|declined|…` event of the
//! same task, kind and subject (a tool's name, say) closes, innermost first; the same span id
//! in both events' references pairs them whatever their order. A span opened while another of
//! its task is open nests under it. Every other event is an instant at its time. Pure: the
//! panel draws the rows.

use std::collections::HashMap;

use chrono::DateTime;
use serde_json::Value;

use super::TraceItem;
use crate::ext::sideband::{Level, PartKind};

/// What became of a span.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Opened and not closed (yet).
    Running,
    /// Closed normally.
    Done,
    /// Closed by a failure, an error or a refusal.
    Failed,
    /// A single event, not a span.
    Instant,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Running => "running",
            Outcome::Done => "done",
            Outcome::Failed => "failed",
            Outcome::Instant => "instant",
        }
    }
}

/// One row of the waterfall.
#[derive(Clone, Debug, PartialEq)]
pub struct Span {
    /// The opening (or only) event's key, unique in the list.
    pub key: (i64, String),
    pub task_id: String,
    /// `tool kubectl.get_pods`, or the event's title.
    pub label: String,
    /// Milliseconds since the epoch.
    pub start: i64,
    /// `None` while running.
    pub end: Option<i64>,
    pub outcome: Outcome,
    /// How many open spans of its task it sits under.
    pub depth: usize,
    /// The highest level of its events (the level filter keeps a span by it).
    pub level: Level,
}

const OPENS: &[&str] = &["started", "start", "begin", "began", "opened"];
const CLOSES_OK: &[&str] = &["completed", "finished", "done", "ended", "succeeded", "end"];
const CLOSES_FAILED: &[&str] = &[
    "failed",
    "error",
    "declined",
    "rejected",
    "blocked",
    "cancelled",
    "canceled",
];

/// `tool.started` → (`tool`, `started`); a type without a dot has no phase.
fn kind_and_phase(event_type: &str) -> (&str, &str) {
    event_type.rsplit_once('.').unwrap_or((event_type, ""))
}

/// What the event is about: the first data part's `tool`, `name`, `step` or `agent`.
fn subject(item: &TraceItem) -> String {
    item.event
        .parts
        .iter()
        .filter(|part| part.kind == PartKind::Data)
        .find_map(|part| {
            ["tool", "name", "step", "agent"]
                .iter()
                .find_map(|key| part.value.get(key).and_then(Value::as_str))
        })
        .unwrap_or_default()
        .to_owned()
}

fn millis(timestamp: &str) -> Option<i64> {
    DateTime::parse_from_rfc3339(timestamp)
        .ok()
        .map(|t| t.timestamp_millis())
}

fn span_id(item: &TraceItem) -> Option<&str> {
    item.event.references.as_ref()?.span_id.as_deref()
}

/// An open span: its row, kind, subject and span id.
struct Open {
    row: usize,
    kind: String,
    subject: String,
    span_id: Option<String>,
}

/// The spans of `items` (in list order), rows in the order they start. An event whose time
/// does not parse takes the time of the event before it.
pub fn spans(items: &[TraceItem]) -> Vec<Span> {
    let mut rows: Vec<Span> = Vec::new();
    let mut open: HashMap<&str, Vec<Open>> = HashMap::new();
    let mut last = None;
    for item in items {
        let Some(at) = millis(&item.event.timestamp).or(last) else {
            continue;
        };
        last = Some(at);
        let (kind, phase) = kind_and_phase(&item.event.event_type);
        let subject = subject(item);
        let stack = open.entry(item.task_id.as_str()).or_default();
        let opens = OPENS.contains(&phase);
        let closing = if CLOSES_OK.contains(&phase) {
            Some(Outcome::Done)
        } else if CLOSES_FAILED.contains(&phase) {
            Some(Outcome::Failed)
        } else {
            None
        };
        if let Some(outcome) = closing {
            let id = span_id(item);
            let matched = stack.iter().rposition(|o| match (id, o.span_id.as_deref()) {
                (Some(id), Some(open_id)) => id == open_id,
                _ => o.kind == kind && (o.subject == subject || o.subject.is_empty() || subject.is_empty()),
            });
            if let Some(position) = matched {
                let closed = stack.remove(position);
                let row = &mut rows[closed.row];
                row.end = Some(at.max(row.start));
                row.outcome = outcome;
                row.level = row.level.max(item.event.level);
                continue;
            }
        }
        let label = match (subject.is_empty(), opens) {
            (false, _) => format!("{kind} {subject}"),
            // "Agent execution started" names the span "Agent execution".
            (true, true) => item
                .event
                .title
                .strip_suffix(" started")
                .unwrap_or(&item.event.title)
                .to_owned(),
            (true, false) => item.event.title.clone(),
        };
        rows.push(Span {
            key: item.key(),
            task_id: item.task_id.clone(),
            label,
            start: at,
            end: (!opens).then_some(at),
            outcome: if opens { Outcome::Running } else { Outcome::Instant },
            depth: stack.len(),
            level: item.event.level,
        });
        if opens {
            stack.push(Open {
                row: rows.len() - 1,
                kind: kind.to_owned(),
                subject,
                span_id: span_id(item).map(str::to_owned),
            });
        }
    }
    rows
}

/// The time the waterfall spans: from the first start to the last time seen (a running span
/// reaches it).
pub fn extent(spans: &[Span]) -> Option<(i64, i64)> {
    let start = spans.iter().map(|s| s.start).min()?;
    let end = spans.iter().map(|s| s.end.unwrap_or(s.start)).max()?;
    Some((start, end.max(start)))
}

/// Where a span's bar sits, as percentages of the extent: `(left, width)`; an instant or a
/// running span has no width (the stylesheet gives it a minimum, and a running one reaches the
/// end).
pub fn placement(span: &Span, (start, end): (i64, i64)) -> (f64, f64) {
    let total = (end - start).max(1) as f64;
    let left = (span.start - start) as f64 / total * 100.0;
    let stop = match span.outcome {
        Outcome::Running => end,
        _ => span.end.unwrap_or(span.start),
    };
    let width = (stop - span.start) as f64 / total * 100.0;
    (
        left.clamp(0.0, 100.0),
        width.clamp(0.0, 100.0 - left.clamp(0.0, 100.0)),
    )
}

/// `340 ms`, `1.2 s`, `2 min 5 s`; `running` while open; nothing for an instant.
pub fn duration_text(span: &Span) -> String {
    match (span.outcome, span.end) {
        (Outcome::Instant, _) => String::new(),
        (Outcome::Running, _) | (_, None) => "running".to_owned(),
        (_, Some(end)) => {
            let ms = end - span.start;
            if ms < 1_000 {
                format!("{ms} ms")
            } else if ms < 60_000 {
                format!("{:.1} s", ms as f64 / 1000.0)
            } else {
                format!("{} min {} s", ms / 60_000, (ms % 60_000) / 1000)
            }
        }
    }
}
