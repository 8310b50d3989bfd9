//! The "{ } Wire" inspector: a numbered log of this conversation's exchange as the browser saw
//! it (each ledger event received live, each command sent), with a compliance mark per event:
//! ✓ when the stored A2A payload decodes, ⚠ with the decoder's error when it does not; beside it
//! the HTTP requests the workers made to the agent, a filter by kind and "Copy as JSON"
//! ([`super::wire_http`]).

use leptos::prelude::*;
use serde_json::Value;

use super::wire_http::{HttpExchanges, WireFilter, copy_json, keep_loaded};
use crate::a2a::{DecodedEvent, StreamEvent, decode_stream_event};
use crate::api::tasks::WireExchange;
use crate::api::tasks::{ConversationView, LedgerEvent};
use crate::components::copy_id::CopyWith;
use crate::ext::a2ui::{A2uiState, mask_secret_action_values};

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

impl WireEntry {
    /// The ledger sequence of a received event; `None` for a command sent.
    pub fn sequence(&self) -> Option<i64> {
        match self {
            WireEntry::Received { sequence, .. } => Some(*sequence),
            WireEntry::Sent { .. } => None,
        }
    }
}

/// What a stored payload decodes to (`TaskStatusUpdate · TASK_STATE_WORKING`), or the error.
pub fn check_payload(payload: &Value) -> Result<String, String> {
    check_decoded(&decode_stream_event(payload).map_err(|e| e.to_string()))
}

/// [`check_payload`] of a payload already decoded.
pub fn check_decoded(decoded: &Result<DecodedEvent, String>) -> Result<String, String> {
    let decoded = decoded.as_ref().map_err(Clone::clone)?;
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
    let check = check_payload(&event.payload);
    record_checked(log, event.clone(), check)
}

/// [`record_received`] of an event whose check is already known, taking the event (its payload
/// moves into the log rather than being copied: at a thousand events a second it adds up).
pub fn record_checked(log: &mut Vec<WireEntry>, event: LedgerEvent, check: Result<String, String>) -> bool {
    let last = log.iter().rev().find_map(WireEntry::sequence);
    let seen = last.is_some_and(|last| last >= event.sequence)
        && log.iter().any(|e| e.sequence() == Some(event.sequence));
    if !seen {
        log.push(WireEntry::Received {
            sequence: event.sequence,
            source: event.source,
            task_id: event.task_id,
            payload: event.payload,
            check,
        });
    }
    !seen
}

/// Puts the stored exchange (oldest first) before what the page saw live. Only stored events
/// older than the first one received live go first: the history may also hold events that
/// are still on their way over the live stream, and those are logged when they arrive, in
/// order. Putting them first would break the order [`record_received`] relies on, and they
/// would be logged twice.
pub fn prepend_history(log: &mut Vec<WireEntry>, history: &[LedgerEvent]) {
    let first_live = log.iter().find_map(WireEntry::sequence);
    let mut stored = Vec::new();
    for event in history {
        record_received(&mut stored, event);
    }
    stored.retain(|entry| match (entry.sequence(), first_live) {
        (Some(sequence), Some(first)) => sequence < first,
        _ => true,
    });
    stored.append(log);
    *log = stored;
}

/// What identifies an entry at its position: the stored history is put before live entries,
/// so a position can change hands and must render again.
fn entry_key(entry: &WireEntry) -> i64 {
    entry.sequence().unwrap_or(-1)
}

/// How the list on screen catches up with the log.
#[cfg(any(feature = "hydrate", test))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Catchup {
    /// The lines shown are the log's first ones: add the lines from this position on.
    Append(usize),
    /// The log changed before its end (the stored history went first): draw every line again.
    Redraw,
}

/// Compares the keys of the lines on screen with the log, position by position: integers
/// only, so a log of thousands costs microseconds per event.
#[cfg(any(feature = "hydrate", test))]
fn catchup(shown: &[i64], log: &[WireEntry]) -> Catchup {
    let prefix =
        log.len() >= shown.len() && shown.iter().zip(log).all(|(key, entry)| *key == entry_key(entry));
    if prefix {
        Catchup::Append(shown.len())
    } else {
        Catchup::Redraw
    }
}

/// Lines per block. The list holds blocks of lines, so a new line lays out and paints its
/// block and the short list of blocks, not every line of a log of thousands; a block scrolled
/// out of the rail is skipped whole (`content-visibility`). Issue #6: with one flat list, the
/// page's rendering time per frame grew with the log, and a 200/s flood on a page that had
/// already shown 5,000–6,000 events reached the screen in 63–110 ms (p99), against 21–37 ms
/// fresh.
pub(super) const LINES_PER_BLOCK: usize = 100;

/// The HTML of the lines of `log` from position `from` on.
#[derive(Debug, Default, PartialEq)]
struct Lines {
    /// Lines that belong in the last block on screen (it is not full yet).
    tail: String,
    /// New blocks, each with its lines.
    blocks: String,
}

fn lines_html(log: &[WireEntry], from: usize) -> Lines {
    let boundary = from.next_multiple_of(LINES_PER_BLOCK).min(log.len()).max(from);
    let mut lines = Lines {
        tail: range_html(log, from, boundary),
        blocks: String::new(),
    };
    for (index, entry) in log.iter().enumerate().skip(boundary) {
        if index % LINES_PER_BLOCK == 0 {
            if index > boundary {
                lines.blocks.push_str("</ol></li>");
            }
            lines.blocks.push_str(&format!(
                r#"<li class="wire-block" data-first="{index}"><ol class="wire-block-lines">"#
            ));
        }
        lines.blocks.push_str(&wire_line(index, entry));
    }
    if boundary < log.len() {
        lines.blocks.push_str("</ol></li>");
    }
    lines
}

/// The lines of `log` at positions `from..to`.
fn range_html(log: &[WireEntry], from: usize, to: usize) -> String {
    let mut html = String::new();
    for (index, entry) in log.iter().enumerate().take(to).skip(from) {
        html.push_str(&wire_line(index, entry));
    }
    html
}

/// The lines of the block that starts at position `first` (a parked block drawn again).
#[cfg(any(feature = "hydrate", test))]
pub(super) fn block_lines_html(log: &[WireEntry], first: usize) -> String {
    range_html(log, first, first.saturating_add(LINES_PER_BLOCK))
}

#[cfg(any(feature = "hydrate", test))]
fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string())
}

/// The side rail (a sheet on small screens) with the numbered log.
///
/// The log only grows at its end while a conversation streams, hundreds of events a second:
/// the list is drawn once from the log and then only has the new lines added, each one element
/// from one escaped HTML string. No keyed diff of the whole log per event, no reactive owner
/// per line.
///
/// Values typed into obscured A2UI fields are masked in the JSON shown (issue #26): the
/// conversation's surfaces say which action values carry them.
#[component]
pub fn WirePanel(
    #[prop(into)] entries: Signal<Vec<WireEntry>>,
    #[prop(into)] conversation: Signal<ConversationView>,
) -> impl IntoView {
    let list = NodeRef::<leptos::html::Ol>::new();
    // Keys of the lines on screen, in order.
    let shown = StoredValue::new(entries.with_untracked(|log| log.iter().map(entry_key).collect::<Vec<_>>()));
    let first_lines = entries.with_untracked(|log| lines_html(log, 0).blocks);
    #[cfg(feature = "hydrate")]
    {
        json_on_open(list, entries, conversation);
        let parking = StoredValue::new_local(None::<super::wire_park::Parking>);
        Effect::new(move |_| {
            let Some(ol) = list.get() else { return };
            if parking.with_value(Option::is_none) {
                parking.set_value(super::wire_park::Parking::new(&ol, entries));
            }
            let blocks_before = ol.child_element_count();
            entries.with(|log| {
                shown.update_value(|keys| match catchup(keys, log) {
                    Catchup::Append(from) if from == log.len() => {}
                    Catchup::Append(from) => {
                        let Lines { tail, blocks } = lines_html(log, from);
                        let last_block = ol
                            .last_element_child()
                            .filter(|block| block.class_name() == "wire-block")
                            .and_then(|block| block.first_element_child());
                        match last_block {
                            Some(block) if !tail.is_empty() => {
                                let _ = block.insert_adjacent_html("beforeend", &tail);
                            }
                            // Lines for a block that is not on screen: draw the list again.
                            None if !tail.is_empty() => return redraw(&ol, log, keys, parking),
                            _ => {}
                        }
                        if !blocks.is_empty() {
                            let _ = ol.insert_adjacent_html("beforeend", &blocks);
                            parking.with_value(|p| p.as_ref().map(|p| p.added(&ol, blocks_before)));
                        }
                        keys.extend(log[from..].iter().map(entry_key));
                    }
                    Catchup::Redraw => redraw(&ol, log, keys, parking),
                });
            });
        });
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = shown;
    let filter = RwSignal::new(WireFilter::All);
    let exchanges = RwSignal::new(Vec::<WireExchange>::new());
    let conversation_id = Signal::derive(move || conversation.with(|c| c.conversation_id.clone()));
    keep_loaded(conversation_id, exchanges);
    let copy = Callback::new(move |()| {
        let a2ui = move |task: &str| {
            conversation
                .try_with_untracked(|c| task_surfaces(c, task))
                .flatten()
        };
        let json_of = |entry: &WireEntry| entry_value(entry, &a2ui);
        entries.with_untracked(|log| {
            exchanges.with_untracked(|http| copy_json(filter.get_untracked(), log, http, &json_of))
        })
    });
    view! {
        <section class="wire-panel" aria-label="Wire inspector" data-show=move || filter.get().key()>
            <h2>"{ } Wire"</h2>
            <p class="muted small">"This conversation's stored exchange (the newest 200 events and HTTP requests), then what arrives live."</p>
            <div class="wire-tools">
                <FilterChoice filter/>
                <CopyWith text=copy what="shown Wire log as JSON" label="Copy as JSON"/>
            </div>
            <HttpExchanges exchanges/>
            <h3 class="wire-events-title">"Events"</h3>
            <Show when=move || entries.with(Vec::is_empty)>
                <p class="muted small">"Nothing on the wire yet."</p>
            </Show>
            <ol class="wire-list wire-events" node_ref=list inner_html=first_lines></ol>
        </section>
    }
    .into_any()
}

/// The kind filter: one radio group, so arrow keys move between its choices.
#[component]
fn FilterChoice(filter: RwSignal<WireFilter>) -> impl IntoView {
    view! {
        <fieldset class="wire-filter">
            <legend class="visually-hidden">"Show"</legend>
            {WireFilter::ALL
                .into_iter()
                .map(|choice| {
                    view! {
                        <label>
                            <input
                                type="radio"
                                name="wire-filter"
                                value=choice.key()
                                prop:checked=move || filter.get() == choice
                                on:change=move |_| filter.set(choice)
                            />
                            {choice.label()}
                        </label>
                    }
                })
                .collect_view()}
        </fieldset>
    }
}

/// Draws every line of `log` again.
#[cfg(feature = "hydrate")]
fn redraw(
    list: &web_sys::Element,
    log: &[WireEntry],
    shown: &mut Vec<i64>,
    parking: StoredValue<Option<super::wire_park::Parking>, LocalStorage>,
) {
    list.set_inner_html(&lines_html(log, 0).blocks);
    *shown = log.iter().map(entry_key).collect();
    parking.with_value(|p| p.as_ref().map(|p| p.redrawn(list)));
}

/// One numbered line, its JSON behind a disclosure button (filled when opened, [`json_on_open`]).
fn wire_line(index: usize, entry: &WireEntry) -> String {
    let (direction, ok) = match entry {
        WireEntry::Received { check, .. } => (
            "in",
            if check.is_ok() {
                r#" data-ok="true""#
            } else {
                r#" data-ok="false""#
            },
        ),
        WireEntry::Sent { .. } => ("out", ""),
    };
    format!(
        r#"<li class="wire-entry" data-testid="wire-entry" data-direction="{direction}"{ok} data-index="{index}">{}</li>"#,
        line_html(index + 1, entry)
    )
}

/// Escapes text for HTML content and attribute values.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A line's content: number, direction, source and sequence, the compliance mark, and a
/// disclosure button for the JSON (collapsed). Every string that came from the wire is escaped.
///
/// A button, not a `<details>`: each `<details>` carries a shadow tree of its own, and adding
/// lines with one cost the page 1.5 to 1.8 times as much as with a button (5,100 lines inserted
/// and laid out in Chromium, 17 a frame as at 1,000 events a second).
fn line_html(number: usize, entry: &WireEntry) -> String {
    match entry {
        WireEntry::Received {
            sequence,
            source,
            task_id,
            check,
            ..
        } => {
            let mark = match check {
                Ok(kind) => format!(
                    r#"<span class="wire-mark ok" title="Decodes as A2A">✓ {}</span>"#,
                    escape(kind)
                ),
                Err(error) => format!(r#"<span class="wire-mark warn">⚠ {}</span>"#, escape(error)),
            };
            format!(
                r#"<p class="wire-head"><span class="wire-number">{number}.</span> ← {} · seq {sequence}</p>{mark}<button type="button" class="wire-open" aria-expanded="false">Event for task {}</button>"#,
                escape(source),
                escape(task_id)
            )
        }
        WireEntry::Sent { action, .. } => format!(
            r#"<p class="wire-head"><span class="wire-number">{number}.</span> → {}</p><button type="button" class="wire-open" aria-expanded="false">Request</button>"#,
            escape(action)
        ),
    }
}

/// The formatted JSON of an entry: [`entry_value`], pretty-printed.
#[cfg(any(feature = "hydrate", test))]
fn entry_json(entry: &WireEntry, a2ui: &dyn Fn(&str) -> Option<A2uiState>) -> String {
    pretty(&entry_value(entry, a2ui))
}

/// The JSON of an entry: the event's payload, or the request sent, with the values of obscured
/// A2UI fields masked. `a2ui` gives a local task's folded A2UI surfaces.
fn entry_value(entry: &WireEntry, a2ui: &dyn Fn(&str) -> Option<A2uiState>) -> Value {
    let (task_id, json) = match entry {
        WireEntry::Received { payload, task_id, .. } => (Some(task_id.as_str()), payload),
        WireEntry::Sent { body, .. } => (body.get("taskId").and_then(Value::as_str), body),
    };
    let mut value = json.clone();
    if let Some(state) = task_id.and_then(a2ui) {
        mask_secret_action_values(&mut value, &state);
    }
    value
}

/// The folded A2UI surfaces of a task of the conversation.
fn task_surfaces(conversation: &ConversationView, task_id: &str) -> Option<A2uiState> {
    let task = conversation.tasks.iter().find(|t| t.local_id == task_id)?;
    crate::components::a2ui_surface::has_a2ui_parts(task)
        .then(|| crate::components::a2ui_surface::fold_task(task))
}

/// One listener on the list for every line: opening a line's disclosure button puts its
/// formatted JSON in after it (as text), closing it takes it out.
#[cfg(feature = "hydrate")]
fn json_on_open(
    list: NodeRef<leptos::html::Ol>,
    entries: Signal<Vec<WireEntry>>,
    conversation: Signal<ConversationView>,
) {
    use wasm_bindgen::JsCast;
    use wasm_bindgen::closure::Closure;

    let clicked = move |event: web_sys::Event| {
        let Some(button) = event
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .and_then(|t| t.closest("button.wire-open").ok().flatten())
        else {
            return;
        };
        let Some(line) = button.closest("li[data-index]").ok().flatten() else {
            return;
        };
        if let Ok(Some(old)) = line.query_selector("pre.wire-json") {
            old.remove();
        }
        let open = button.get_attribute("aria-expanded").as_deref() != Some("true");
        let _ = button.set_attribute("aria-expanded", if open { "true" } else { "false" });
        if !open {
            return;
        }
        let json = line
            .get_attribute("data-index")
            .and_then(|index| index.parse::<usize>().ok())
            .and_then(|index| {
                let a2ui = |task: &str| {
                    conversation
                        .try_with_untracked(|c| task_surfaces(c, task))
                        .flatten()
                };
                entries
                    .try_with_untracked(|log| log.get(index).map(|entry| entry_json(entry, &a2ui)))
                    .flatten()
            });
        let pre = line
            .owner_document()
            .and_then(|document| document.create_element("pre").ok());
        if let (Some(json), Some(pre)) = (json, pre) {
            pre.set_class_name("wire-json");
            pre.set_text_content(Some(&json));
            let _ = line.append_child(&pre);
        }
    };
    // Kept for as long as the panel: dropped with it, when its list is gone too.
    let listener = StoredValue::new_local(None::<Closure<dyn FnMut(web_sys::Event)>>);
    Effect::new(move |_| {
        let Some(list) = list.get() else { return };
        let closure = Closure::<dyn FnMut(web_sys::Event)>::new(clicked);
        if list
            .add_event_listener_with_callback("click", closure.as_ref().unchecked_ref())
            .is_ok()
        {
            listener.set_value(Some(closure));
        }
    });
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
        let sequences: Vec<Option<i64>> = log.iter().map(WireEntry::sequence).collect();
        assert_eq!(sequences, [Some(3), Some(4), Some(5), None]);
    }

    fn sequences(log: &[WireEntry]) -> Vec<i64> {
        log.iter().filter_map(WireEntry::sequence).collect()
    }

    /// Found by the Playwright flood test: the history was read after the server had stored
    /// events 86 and 87 but before the live stream delivered them, and the panel showed them
    /// twice, the first time out of order.
    #[test]
    fn stored_events_still_on_their_way_live_are_logged_once_in_order() {
        let mut log = Vec::new();
        for sequence in [56, 57] {
            record_received(&mut log, &event(sequence, json!({})));
        }
        let history: Vec<LedgerEvent> = (54..=59).map(|s| event(s, json!({}))).collect();
        prepend_history(&mut log, &history);
        assert_eq!(sequences(&log), [54, 55, 56, 57]);
        for sequence in 58..=60 {
            assert!(record_received(&mut log, &event(sequence, json!({}))));
        }
        assert!(!record_received(&mut log, &event(59, json!({}))));
        assert_eq!(sequences(&log), (54..=60).collect::<Vec<_>>());
        // Nothing live yet: the whole history goes in, and a late live copy is not repeated.
        let mut empty = Vec::new();
        prepend_history(&mut empty, &history);
        assert_eq!(sequences(&empty), (54..=59).collect::<Vec<_>>());
        assert!(!record_received(&mut empty, &event(59, json!({}))));
        assert!(record_received(&mut empty, &event(60, json!({}))));
    }

    fn keys(log: &[WireEntry]) -> Vec<i64> {
        log.iter().map(entry_key).collect()
    }

    #[test]
    fn live_events_only_add_lines_and_the_stored_history_redraws() {
        let mut log = Vec::new();
        assert_eq!(catchup(&[], &log), Catchup::Append(0));
        record_received(&mut log, &event(5, json!({})));
        let shown = keys(&log);
        log.push(WireEntry::Sent {
            action: "SendMessage",
            body: json!({}),
        });
        record_received(&mut log, &event(6, json!({})));
        // Two new lines at the end: only they are drawn.
        assert_eq!(catchup(&shown, &log), Catchup::Append(1));
        assert_eq!(
            lines_html(&log, 1)
                .tail
                .matches(r#"<li class="wire-entry""#)
                .count(),
            2
        );
        let shown = keys(&log);
        assert_eq!(catchup(&shown, &log), Catchup::Append(3));
        // The stored exchange goes first: every position changes hands.
        prepend_history(&mut log, &[event(3, json!({})), event(4, json!({}))]);
        assert_eq!(catchup(&shown, &log), Catchup::Redraw);
        // A shorter log (a new conversation) redraws too.
        assert_eq!(catchup(&shown, &log[..1]), Catchup::Redraw);
    }

    /// The line indexes in `html`, in order.
    fn indexes(html: &str) -> Vec<usize> {
        html.split(r#"data-index=""#)
            .skip(1)
            .map(|rest| rest[..rest.find('"').unwrap()].parse().unwrap())
            .collect()
    }

    /// A log of `count` commands sent.
    fn sent(count: usize) -> Vec<WireEntry> {
        (0..count)
            .map(|n| WireEntry::Sent {
                action: "SendMessage",
                body: json!({ "n": n }),
            })
            .collect()
    }

    #[test]
    fn lines_go_in_blocks_and_new_lines_fill_the_last_block_first() {
        let log = sent(250);
        // Drawn from the start: three blocks of 100, 100 and 50 lines, every line once.
        let drawn = lines_html(&log, 0);
        assert_eq!(drawn.tail, "");
        assert_eq!(indexes(&drawn.blocks), (0..250).collect::<Vec<_>>());
        let blocks: Vec<&str> = drawn.blocks.split(r#"<li class="wire-block""#).skip(1).collect();
        assert_eq!(blocks.len(), 3);
        assert!(
            blocks[1].starts_with(r#" data-first="100"><ol class="wire-block-lines"><li class="wire-entry""#)
        );
        for (block, lines) in blocks.iter().zip([100, 100, 50]) {
            assert_eq!(block.matches(r#"<li class="wire-entry""#).count(), lines);
            assert!(
                block.ends_with("</li></ol></li>"),
                "a block closes after its last line"
            );
        }
        // Lines 150 to 249 after 150 were shown: 50 fill the open block, 50 start a new one.
        let added = lines_html(&log, 150);
        assert_eq!(indexes(&added.tail), (150..200).collect::<Vec<_>>());
        assert!(!added.tail.contains("wire-block"));
        assert_eq!(indexes(&added.blocks), (200..250).collect::<Vec<_>>());
        assert!(
            added
                .blocks
                .starts_with(r#"<li class="wire-block" data-first="200">"#)
        );
        // At a block boundary: no tail. Lines inside one block: no new block.
        assert_eq!(lines_html(&log, 200).tail, "");
        let inside = lines_html(&log[..180], 120);
        assert_eq!(indexes(&inside.tail), (120..180).collect::<Vec<_>>());
        assert_eq!(inside.blocks, "");
        assert_eq!(lines_html(&log, 250), Lines::default());
    }

    /// ADR 0054: a parked block is drawn again from the log, with its own lines' numbers.
    #[test]
    fn a_parked_block_is_drawn_again_with_its_lines_from_the_log() {
        let log = sent(250);
        let block = block_lines_html(&log, 100);
        assert_eq!(indexes(&block), (100..200).collect::<Vec<_>>());
        assert!(
            block.contains(r#"<span class="wire-number">101.</span>"#),
            "{block}"
        );
        assert!(!block.contains("wire-block"), "only the lines: the block stays");
        // The same lines as when the block was first drawn.
        let drawn = lines_html(&log, 0).blocks;
        assert!(drawn.contains(&block));
        // The last block is partly full; past the log there is nothing.
        assert_eq!(
            indexes(&block_lines_html(&log, 200)),
            (200..250).collect::<Vec<_>>()
        );
        assert_eq!(block_lines_html(&log, 300), "");
    }

    #[test]
    fn a_line_is_numbered_and_marked_for_its_direction_and_check() {
        let log = [
            WireEntry::Received {
                sequence: 9,
                source: "stream".into(),
                task_id: "t".into(),
                payload: json!({}),
                check: Ok("Message".into()),
            },
            WireEntry::Received {
                sequence: 10,
                source: "stream".into(),
                task_id: "t".into(),
                payload: json!({}),
                check: Err("bad".into()),
            },
            WireEntry::Sent {
                action: "CancelTask",
                body: json!({}),
            },
        ];
        let html = lines_html(&log, 0).blocks;
        assert!(html.starts_with(r#"<li class="wire-block" data-first="0"><ol class="wire-block-lines"><li class="wire-entry" data-testid="wire-entry" data-direction="in" data-ok="true" data-index="0"><p class="wire-head"><span class="wire-number">1.</span> ← stream · seq 9</p>"#), "{html}");
        assert!(html.contains(r#"data-direction="in" data-ok="false" data-index="1"><p class="wire-head"><span class="wire-number">2.</span>"#), "{html}");
        assert!(html.ends_with(r#"<li class="wire-entry" data-testid="wire-entry" data-direction="out" data-index="2"><p class="wire-head"><span class="wire-number">3.</span> → CancelTask</p><button type="button" class="wire-open" aria-expanded="false">Request</button></li></ol></li>"#), "{html}");
    }

    #[test]
    fn a_line_escapes_everything_from_the_wire() {
        let hostile = r#"<img src=x onerror="alert(1)">&'"#;
        let line = line_html(
            7,
            &WireEntry::Received {
                sequence: 42,
                source: hostile.into(),
                task_id: hostile.into(),
                payload: json!({}),
                check: Err(hostile.into()),
            },
        );
        assert!(!line.contains("<img"), "{line}");
        assert!(
            line.contains("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&amp;&#39;"),
            "{line}"
        );
        assert!(
            line.contains(r#"<span class="wire-number">7.</span> ← &lt;img"#),
            "{line}"
        );
        assert!(line.contains(" · seq 42</p>"), "{line}");
        assert!(
            line.contains(r#"<span class="wire-mark warn">⚠ &lt;img"#),
            "{line}"
        );
        let sent = line_html(
            8,
            &WireEntry::Sent {
                action: "SendMessage",
                body: json!({"text": "<b>"}),
            },
        );
        assert!(
            sent.contains(r#"→ SendMessage</p><button type="button" class="wire-open" aria-expanded="false">Request</button>"#),
            "{sent}"
        );
        assert!(
            !sent.contains("<b>"),
            "the body is only shown when opened, as text"
        );
        assert_eq!(
            entry_json(
                &WireEntry::Sent {
                    action: "SendMessage",
                    body: json!({"text": "<b>"})
                },
                &|_| None
            ),
            "{\n  \"text\": \"<b>\"\n}"
        );
    }

    /// An A2UI sign-in surface of task `t1`: the password field is obscured.
    fn sign_in() -> A2uiState {
        let mut state = A2uiState::default();
        state.apply_part(
            crate::ext::a2ui::A2uiVersion::V09,
            &crate::ext::a2ui::sign_in_messages(),
        );
        assert_eq!(state.rejected, 0);
        state
    }

    /// Issue #26 "Secrets in forms": the Wire panel shows an obscured field's value masked, in
    /// the request sent and in the stored user message that echoes it; the agent still gets it.
    #[test]
    fn values_typed_into_obscured_fields_are_masked_in_the_wire_json() {
        let action = json!({"name": "signIn", "surfaceId": "s", "sourceComponentId": "go",
            "timestamp": "2026-01-01T00:00:00Z", "context": {"user": "ada", "password": "hunter2"}});
        let parts =
            json!([{"data": {"version": "v0.9", "action": action}, "mediaType": "application/a2ui+json"}]);
        let sent = WireEntry::Sent {
            action: "SendMessage",
            body: json!({"agentId": "a", "taskId": "t1", "text": "", "parts": parts.clone()}),
        };
        let a2ui = |task: &str| (task == "t1").then(sign_in);
        let shown = entry_json(&sent, &a2ui);
        assert!(!shown.contains("hunter2"), "{shown}");
        assert!(shown.contains(r#""password": "••••••""#), "{shown}");
        assert!(shown.contains(r#""user": "ada""#), "{shown}");
        // What is sent is untouched.
        let WireEntry::Sent { body, .. } = &sent else {
            unreachable!()
        };
        assert_eq!(
            body["parts"][0]["data"]["action"]["context"]["password"],
            "hunter2"
        );
        // The stored user message, received back over the ledger.
        let echo = WireEntry::Received {
            sequence: 3,
            source: "command".into(),
            task_id: "t1".into(),
            payload: json!({"message": {"messageId": "m", "role": "ROLE_USER", "parts": parts}}),
            check: Ok("Message".into()),
        };
        let shown = entry_json(&echo, &a2ui);
        assert!(!shown.contains("hunter2") && shown.contains("••••••"), "{shown}");
        // Without the task's surfaces nothing is known to be secret.
        assert!(entry_json(&echo, &|_| None).contains("hunter2"));
    }
}
