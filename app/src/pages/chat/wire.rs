//! The "{ } Wire" inspector: a numbered log of this conversation's exchange as the browser saw
//! it (each ledger event received live, each command sent), with a compliance mark per event:
//! ✓ when the stored A2A payload decodes, ⚠ with the decoder's error when it does not.

use leptos::prelude::*;
use serde_json::Value;

use crate::a2a::{StreamEvent, decode_stream_event};
use crate::api::tasks::LedgerEvent;

/// One line of the log.
#[derive(Clone, Debug, PartialEq)]
pub enum WireEntry {
    /// A ledger event from the live stream.
    Received {
        sequence: i64,
        source: String,
        task_id: String,
        payload: Value,
        /// What the payload decodes to, or why it does not.
        check: Result<String, String>,
    },
    /// A command this page sent (`SendMessage` with its `SendInput`, or `CancelTask`).
    Sent { action: &'static str, body: Value },
}

/// What a stored payload decodes to (`TaskStatusUpdate · TASK_STATE_WORKING`), or the error.
pub fn check_payload(payload: &Value) -> Result<String, String> {
    let decoded = decode_stream_event(payload).map_err(|e| e.to_string())?;
    Ok(match &decoded.event {
        StreamEvent::Task(task) => format!("Task · {}", task.status.state.as_v1_str()),
        StreamEvent::Message(_) => "Message".to_owned(),
        StreamEvent::StatusUpdate(update) => {
            format!("TaskStatusUpdate · {}", update.status.state.as_v1_str())
        }
        StreamEvent::ArtifactUpdate(update) => {
            format!("TaskArtifactUpdate · {}", update.artifact.artifact_id)
        }
    })
}

/// Logs a received event once: a reconnect may deliver a sequence again. Returns whether it
/// was new.
///
/// Received entries are in sequence order (live events arrive in order, history goes before
/// them), so an event newer than the last received entry is new without a scan: at a thousand
/// events a second the check stays constant-time.
pub fn record_received(log: &mut Vec<WireEntry>, event: &LedgerEvent) -> bool {
    let last = log.iter().rev().find_map(|e| match e {
        WireEntry::Received { sequence, .. } => Some(*sequence),
        WireEntry::Sent { .. } => None,
    });
    let seen = last.is_some_and(|last| last >= event.sequence)
        && log
            .iter()
            .any(|e| matches!(e, WireEntry::Received { sequence, .. } if *sequence == event.sequence));
    if !seen {
        log.push(WireEntry::Received {
            sequence: event.sequence,
            source: event.source.clone(),
            task_id: event.task_id.clone(),
            payload: event.payload.clone(),
            check: check_payload(&event.payload),
        });
    }
    !seen
}

/// Puts the stored exchange (oldest first) before what the page saw live; events already in
/// the log are skipped. Stored events are older than anything that arrived live.
pub fn prepend_history(log: &mut Vec<WireEntry>, history: &[LedgerEvent]) {
    let mut stored = Vec::new();
    for event in history {
        record_received(&mut stored, event);
    }
    stored.retain(|entry| match entry {
        WireEntry::Received { sequence, .. } => !log
            .iter()
            .any(|e| matches!(e, WireEntry::Received { sequence: s, .. } if s == sequence)),
        WireEntry::Sent { .. } => true,
    });
    stored.append(log);
    *log = stored;
}

/// What identifies an entry at its position: the stored history is put before live entries,
/// so a position can change hands and must render again.
fn entry_key(entry: &WireEntry) -> i64 {
    match entry {
        WireEntry::Received { sequence, .. } => *sequence,
        WireEntry::Sent { .. } => -1,
    }
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string())
}

/// The side rail (a sheet on small screens) with the numbered log.
#[component]
pub fn WirePanel(#[prop(into)] entries: Signal<Vec<WireEntry>>) -> impl IntoView {
    // Positions and keys only: an entry (with its JSON) is cloned once, when its line mounts,
    // not on every event.
    let numbered = move || {
        entries.with(|log| {
            log.iter()
                .enumerate()
                .map(|(i, entry)| (i, entry_key(entry)))
                .collect::<Vec<_>>()
        })
    };
    view! {
        <section class="wire-panel" aria-label="Wire inspector">
            <h2>"{ } Wire"</h2>
            <p class="muted small">"This conversation's stored exchange (the newest 200 events), then what arrives live."</p>
            <Show when=move || entries.with(Vec::is_empty)>
                <p class="muted small">"Nothing on the wire yet."</p>
            </Show>
            <ol class="wire-list">
                <For
                    each=numbered
                    key=|line| *line
                    children=move |(i, _)| {
                        entries.with_untracked(|log| log.get(i).cloned()).map(|entry| view! { <WireLine number=i + 1 entry/> })
                    }
                />
            </ol>
        </section>
    }
    .into_any()
}

/// One numbered entry with its JSON behind a `<details>`.
#[component]
fn WireLine(number: usize, entry: WireEntry) -> impl IntoView {
    match entry {
        WireEntry::Received {
            sequence,
            source,
            task_id,
            payload,
            check,
        } => {
            let mark = match &check {
                Ok(kind) => {
                    view! { <span class="wire-mark ok" title="Decodes as A2A">"✓ " {kind.clone()}</span> }
                        .into_any()
                }
                Err(error) => view! { <span class="wire-mark warn">"⚠ " {error.clone()}</span> }.into_any(),
            };
            view! {
                <li class="wire-entry" data-testid="wire-entry" data-direction="in" data-ok=check.is_ok().to_string()>
                    <p class="wire-head">
                        <span class="wire-number">{format!("{number}.")}</span>
                        " ← " {source} " · seq " {sequence}
                    </p>
                    {mark}
                    <WireJson summary=format!("Event for task {task_id}") value=payload/>
                </li>
            }
            .into_any()
        }
        WireEntry::Sent { action, body } => view! {
            <li class="wire-entry" data-testid="wire-entry" data-direction="out">
                <p class="wire-head">
                    <span class="wire-number">{format!("{number}.")}</span>
                    " → " {action}
                </p>
                <WireJson summary="Request".to_owned() value=body/>
            </li>
        }
        .into_any(),
    }
}

/// An entry's JSON behind a `<details>`, formatted and put in the page only once it is
/// opened: at a thousand events a second the log gains an entry per event, and formatting
/// every payload into the page was work for JSON nobody had asked to read.
#[component]
fn WireJson(summary: String, value: Value) -> impl IntoView {
    let open = RwSignal::new(false);
    let value = StoredValue::new(value);
    view! {
        // `toggle` fires on every open and close; the element starts closed.
        <details on:toggle=move |_| open.update(|open| *open = !*open)>
            <summary>{summary}</summary>
            <Show when=move || open.get()>
                <pre class="wire-json">{move || value.with_value(pretty)}</pre>
            </Show>
        </details>
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn event(sequence: i64, payload: Value) -> LedgerEvent {
        LedgerEvent {
            sequence,
            task_id: "t".into(),
            conversation_id: "c".into(),
            source: "stream".into(),
            payload,
            extensions: Vec::new(),
            protocol_version: None,
            received_at: "2026-01-01T00:00:00Z".into(),
        }
    }

    #[test]
    fn compliance_marks() {
        let status = json!({"statusUpdate": {"taskId": "r", "status": {"state": "TASK_STATE_WORKING"}}});
        assert_eq!(
            check_payload(&status),
            Ok("TaskStatusUpdate · TASK_STATE_WORKING".into())
        );
        let message = json!({"message": {"messageId": "m", "role": "ROLE_AGENT", "parts": [{"text": "hi"}]}});
        assert_eq!(check_payload(&message), Ok("Message".into()));
        assert!(check_payload(&json!({"message": {"role": "ROLE_AGENT"}})).is_err());
        assert!(check_payload(&json!("text")).is_err());
    }

    #[test]
    fn a_sequence_is_logged_once() {
        let mut log = Vec::new();
        let e = event(3, json!({}));
        assert!(record_received(&mut log, &e));
        assert!(!record_received(&mut log, &e));
        assert!(record_received(&mut log, &event(4, json!({}))));
        assert_eq!(log.len(), 2);
        assert!(matches!(&log[0], WireEntry::Received { check: Err(_), .. }));
    }

    #[test]
    fn a_replayed_older_sequence_is_not_logged_again_after_newer_ones_and_sends() {
        let mut log = Vec::new();
        for sequence in 1..=5 {
            assert!(record_received(&mut log, &event(sequence, json!({}))));
        }
        log.push(WireEntry::Sent {
            action: "SendMessage",
            body: json!({}),
        });
        // A reconnect replays from an older sequence.
        assert!(!record_received(&mut log, &event(2, json!({}))));
        assert!(!record_received(&mut log, &event(5, json!({}))));
        assert!(record_received(&mut log, &event(6, json!({}))));
        assert_eq!(log.len(), 7);
    }

    #[test]
    fn the_stored_exchange_goes_first_without_repeating_live_events() {
        let mut log = Vec::new();
        record_received(&mut log, &event(5, json!({})));
        log.push(WireEntry::Sent {
            action: "SendMessage",
            body: json!({"text": "hi"}),
        });
        prepend_history(
            &mut log,
            &[event(3, json!({})), event(4, json!({})), event(5, json!({}))],
        );
        let sequences: Vec<Option<i64>> = log
            .iter()
            .map(|e| match e {
                WireEntry::Received { sequence, .. } => Some(*sequence),
                WireEntry::Sent { .. } => None,
            })
            .collect();
        assert_eq!(sequences, [Some(3), Some(4), Some(5), None]);
    }
}
