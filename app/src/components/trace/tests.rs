use serde_json::{Value, json};

use super::panel::{group_heading, hidden_note};
use super::*;
use crate::ext::uri::{SIDEBAND_URI, TRACE_URI};

const RECEIVED: &str = "2026-03-01T10:00:00Z";

fn ledger(sequence: i64, task_id: &str, payload: Value, extensions: &[&str]) -> LedgerEvent {
    LedgerEvent {
        sequence,
        task_id: task_id.into(),
        conversation_id: "conv".into(),
        source: "stream".into(),
        payload,
        extensions: extensions.iter().map(|u| (*u).to_owned()).collect(),
        protocol_version: Some("1.0".into()),
        received_at: RECEIVED.into(),
    }
}

/// A trace artifact as the demo agent's `trace` variant sends it.
fn trace_artifact(n: u32, trace_type: &str, data: Value) -> Value {
    json!({"artifactUpdate": {"taskId": "remote-1", "contextId": "ctx-1", "artifact": {
        "artifactId": format!("trace-{n}"),
        "name": trace_type,
        "extensions": [TRACE_URI],
        "metadata": {"traceType": trace_type, "timestamp": "2026-03-01T09:59:58Z"},
        "parts": [{"data": data, "mediaType": "application/json"}],
    }}})
}

/// A WORKING status whose message metadata carries generic sideband events (demo `trace` step 6).
fn metadata_status() -> Value {
    json!({"statusUpdate": {"taskId": "remote-1", "contextId": "ctx-1", "status": {
        "state": "TASK_STATE_WORKING",
        "message": {"messageId": "m-1", "role": "ROLE_AGENT",
            "parts": [{"text": "Pods are ready; probing endpoints.", "mediaType": "text/plain"}],
            "metadata": {format!("{SIDEBAND_URI}/events"): [
                "Checked 3 pods in staging.",
                {"eventId": "ev-metric", "kind": "metric.recorded", "label": "Probe latency",
                 "data": {"p50Ms": 41, "p99Ms": 180}, "metadata": {"unit": "ms"}},
            ]}},
    }}})
}

fn item(sequence: i64, id: &str, level: Level, task: &str) -> TraceItem {
    TraceItem {
        task_id: task.into(),
        sequence,
        event: SidebandEvent {
            id: id.into(),
            session_id: None,
            request_id: None,
            timestamp: RECEIVED.into(),
            extension_uri: SIDEBAND_URI.into(),
            event_type: "event".into(),
            title: format!("Event {id}"),
            level,
            parts: Vec::new(),
            metadata: None,
            references: None,
        },
    }
}

fn ids(items: &[TraceItem]) -> Vec<(i64, String)> {
    items.iter().map(|i| (i.sequence, i.event.id.clone())).collect()
}

#[test]
fn a_trace_artifact_decodes_under_the_local_task_id() {
    let event = ledger(
        7,
        "local-1",
        trace_artifact(
            5,
            "trace.mcp",
            json!({"tool": "kubectl.delete_namespace", "status": "declined"}),
        ),
        &[SIDEBAND_URI, TRACE_URI],
    );
    let items = decode_ledger_event(&event);
    assert_eq!(items.len(), 1);
    let first = &items[0];
    assert_eq!(first.task_id, "local-1");
    assert_eq!(first.sequence, 7);
    assert_eq!(first.event.id, "trace-5");
    assert_eq!(first.event.event_type, "tool.declined");
    assert_eq!(first.event.title, "Tool invocation declined");
    assert_eq!(first.event.level, Level::Warning);
    assert_eq!(first.event.timestamp, "2026-03-01T09:59:58Z");
    assert_eq!(first.event.extension_uri, TRACE_URI);
    let refs = first.event.references.clone().unwrap_or_default();
    assert_eq!(refs.task_id.as_deref(), Some("remote-1"));
    assert_eq!(first.event.session_id, None);
}

#[test]
fn metadata_events_get_stable_ids_and_the_received_time() {
    let event = ledger(12, "local-1", metadata_status(), &[SIDEBAND_URI]);
    let items = decode_ledger_event(&event);
    let summary: Vec<_> = items
        .iter()
        .map(|i| {
            (
                i.event.id.as_str(),
                i.event.event_type.as_str(),
                i.event.title.as_str(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            ("event-12-0", "event", "event"),
            ("ev-metric", "metric.recorded", "Probe latency")
        ]
    );
    assert_eq!(items[0].event.timestamp, RECEIVED);
    assert!(items.iter().all(|i| i.task_id == "local-1" && i.sequence == 12));
    // Decoding the same stored event again gives the same events.
    assert_eq!(decode_ledger_event(&event), items);
}

#[test]
fn nothing_decodes_without_negotiated_uris() {
    assert!(decode_ledger_event(&ledger(1, "t", metadata_status(), &[])).is_empty());
    let artifact = trace_artifact(1, "trace.lifecycle", json!({"state": "started"}));
    assert!(decode_ledger_event(&ledger(2, "t", artifact, &[SIDEBAND_URI])).is_empty());
}

#[test]
fn history_decodes_every_event_in_order() {
    let history = [
        ledger(
            3,
            "a",
            trace_artifact(1, "trace.lifecycle", json!({"state": "started"})),
            &[TRACE_URI],
        ),
        ledger(4, "a", metadata_status(), &[SIDEBAND_URI]),
    ];
    let items = decode_history(&history);
    assert_eq!(
        ids(&items),
        [
            (3, "trace-1".into()),
            (4, "event-4-0".into()),
            (4, "ev-metric".into())
        ]
    );
}

#[test]
fn merge_keeps_sequence_order_and_drops_repeats() {
    let mut items = Vec::new();
    // Live events first.
    merge(
        &mut items,
        vec![item(5, "e", Level::Info, "t"), item(6, "f", Level::Info, "t")],
    );
    // Then the stored history, which repeats sequence 5.
    merge(
        &mut items,
        vec![item(2, "b", Level::Info, "t"), item(5, "e", Level::Info, "t")],
    );
    // A reconnect repeats 6 and adds a second event of sequence 5.
    merge(
        &mut items,
        vec![item(6, "f", Level::Info, "t"), item(5, "e2", Level::Info, "t")],
    );
    assert_eq!(
        ids(&items),
        [
            (2, "b".into()),
            (5, "e".into()),
            (5, "e2".into()),
            (6, "f".into())
        ]
    );
}

#[test]
fn merging_a_stored_event_twice_adds_nothing() {
    let event = ledger(9, "t", metadata_status(), &[SIDEBAND_URI]);
    let mut items = Vec::new();
    merge(&mut items, decode_ledger_event(&event));
    merge(&mut items, decode_ledger_event(&event));
    assert_eq!(items.len(), 2);
}

#[test]
fn the_filter_hides_lower_levels_and_groups_per_task() {
    let items = vec![
        item(1, "a", Level::Debug, "t1"),
        item(2, "b", Level::Info, "t2"),
        item(3, "c", Level::Warning, "t1"),
        item(4, "d", Level::Error, "t2"),
    ];
    assert_eq!(hidden_count(&items, Level::Debug), 0);
    assert_eq!(hidden_count(&items, Level::Info), 1);
    assert_eq!(hidden_count(&items, Level::Error), 3);
    let grouped: Vec<(String, Vec<String>)> = group_visible(&items, Level::Info)
        .into_iter()
        .map(|(task, items)| (task, items.into_iter().map(|i| i.event.id).collect()))
        .collect();
    assert_eq!(
        grouped,
        [
            ("t2".to_owned(), vec!["b".to_owned(), "d".to_owned()]),
            ("t1".to_owned(), vec!["c".to_owned()]),
        ]
    );
    assert_eq!(group_visible(&items, Level::Debug)[0].0, "t1");
    assert!(group_visible(&[], Level::Debug).is_empty());
}

#[test]
fn filter_values_and_labels() {
    for (level, _) in LEVEL_CHOICES {
        assert_eq!(parse_level(level.as_str()), level);
    }
    assert_eq!(parse_level("nonsense"), Level::Info);
    assert_eq!(level_label(Level::Warning), "Warning");
    assert_eq!(hidden_note(1), "1 event hidden by the filter.");
    assert_eq!(hidden_note(3), "3 events hidden by the filter.");
}

#[test]
fn group_headings_use_the_title_when_known() {
    let titles = Vec::from([
        ("t1".to_owned(), " Health check ".to_owned()),
        ("t2".to_owned(), "  ".to_owned()),
    ]);
    assert_eq!(group_heading("t1", &titles), "Health check");
    assert!(group_heading("t2", &titles).starts_with("Task t2"));
    let long = "0123456789abcdef0123456789abcdef";
    let heading = group_heading(long, &titles);
    assert!(
        heading.starts_with("Task ") && heading.len() < long.len() + 5,
        "{heading}"
    );
}

fn part(kind: PartKind, value: Value, media_type: &str, filename: Option<&str>) -> SidebandPart {
    SidebandPart {
        id: "e:0".into(),
        kind,
        value,
        media_type: media_type.into(),
        filename: filename.map(str::to_owned),
        metadata: None,
    }
}

#[test]
fn sideband_parts_become_a2a_parts() {
    let text = sideband_part_to_part(&part(PartKind::Text, json!("**hi**"), "text/markdown", None));
    assert_eq!(text.content, PartContent::Text("**hi**".into()));
    assert_eq!(text.media_type.as_deref(), Some("text/markdown"));
    let data = sideband_part_to_part(&part(PartKind::Data, json!({"a": 1}), "application/json", None));
    assert_eq!(data.content, PartContent::Data(json!({"a": 1})));
    let url = sideband_part_to_part(&part(
        PartKind::Url,
        json!("https://example.test/r.pdf"),
        "application/pdf",
        Some("r.pdf"),
    ));
    assert_eq!(url.content, PartContent::Url("https://example.test/r.pdf".into()));
    assert_eq!(url.filename.as_deref(), Some("r.pdf"));
    let raw = sideband_part_to_part(&part(PartKind::Raw, json!("aGk="), "text/plain", Some("hi.txt")));
    assert_eq!(raw.content, PartContent::Raw("aGk=".into()));
    assert_eq!(raw.media_type.as_deref(), Some("text/plain"));
    assert_eq!(raw.filename.as_deref(), Some("hi.txt"));
    let unknown = sideband_part_to_part(&part(
        PartKind::Unknown,
        json!({"weird": true}),
        "application/octet-stream",
        None,
    ));
    assert_eq!(unknown.content, PartContent::Data(json!({"weird": true})));
    assert_eq!(unknown.media_type.as_deref(), Some("application/json"));
}

/// Server-rendering checks (`AnyView` renders to HTML only with the `ssr` feature).
#[cfg(feature = "ssr")]
mod render {
    use leptos::prelude::*;
    use serde_json::json;

    use super::super::panel::{EMPTY_TEXT, Panel};
    use super::{TraceFeed, TraceHistory, TraceItem, TracePanel, item, part};
    use crate::ext::sideband::{Level, PartKind};

    fn render(items: Vec<TraceItem>, titles: Vec<(String, String)>) -> String {
        let owner = Owner::new();
        owner.with(|| {
            let items = Signal::stored(items);
            let titles = Signal::stored(titles);
            view! { <Panel items titles list=true/> }.to_html()
        })
    }

    /// The panel as it opens: the waterfall.
    fn render_waterfall(items: Vec<TraceItem>) -> String {
        let owner = Owner::new();
        owner.with(|| {
            let items = Signal::stored(items);
            let titles = Signal::stored(Vec::new());
            view! { <Panel items titles/> }.to_html()
        })
    }

    #[test]
    fn the_panel_opens_on_the_waterfall_with_titles_as_text() {
        let mut hostile = item(1, "x", Level::Info, "t1");
        hostile.event.title = "<script>alert(1)</script>".into();
        let debug = item(2, "quiet", Level::Debug, "t1");
        let html = render_waterfall(vec![hostile, debug]);
        assert!(!html.contains("<script>"), "{html}");
        assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "{html}");
        assert_eq!(html.matches("data-testid=\"trace-span\"").count(), 1, "{html}");
        assert!(html.contains("data-outcome=\"instant\""), "{html}");
        assert!(!html.contains("Event quiet"), "{html}");
        assert!(html.contains("1 event hidden by the filter."), "{html}");
        assert!(!html.contains("data-testid=\"trace-event\""), "{html}");
    }

    #[test]
    fn the_server_renders_the_panel_empty() {
        // The stored events are loaded, and live ones decoded, in the browser only.
        let owner = Owner::new();
        let html = owner.with(|| {
            let feed = TraceFeed::new();
            let history = TraceHistory {
                conversation_id: "c1".into(),
                task_id: None,
            };
            view! { <TracePanel feed history titles=Vec::new()/> }.to_html()
        });
        assert!(html.contains("No sideband events yet."), "{html}");
    }

    #[test]
    fn the_panel_renders_titles_as_text_and_hides_debug_by_default() {
        let mut hostile = item(1, "x", Level::Info, "t1");
        hostile.event.title = "<script>alert(1)</script>".into();
        hostile.event.parts = vec![part(
            PartKind::Text,
            json!("<img src=x onerror=alert(2)>"),
            "text/plain",
            None,
        )];
        let debug = item(2, "quiet", Level::Debug, "t1");
        let titles = Vec::from([("t1".to_owned(), "<b>Health</b>".to_owned())]);
        let html = render(vec![hostile, debug], titles);
        assert!(!html.contains("<script>"), "{html}");
        assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "{html}");
        assert!(!html.contains("<img"), "{html}");
        assert!(!html.contains("<b>Health"), "{html}");
        assert!(html.contains("data-testid=\"trace-panel\""));
        assert!(html.contains("aria-live=\"polite\""));
        assert_eq!(html.matches("data-testid=\"trace-event\"").count(), 1, "{html}");
        assert!(html.contains("data-level=\"info\""));
        assert!(!html.contains("Event quiet"), "{html}");
        assert!(html.contains("1 event hidden by the filter."), "{html}");
        assert_eq!(html.matches("data-testid=\"trace-group\"").count(), 1);
        assert!(html.contains("data-testid=\"trace-level\""));
        assert!(!html.contains(EMPTY_TEXT));
    }

    #[test]
    fn an_empty_panel_explains_why() {
        let html = render(Vec::new(), Vec::new());
        assert!(html.contains("<option value=\"info\" selected>"), "{html}");
        assert!(html.contains("No sideband events yet."), "{html}");
        assert!(html.contains("A2A_SIDEBAND_EXTENSION_URIS"), "{html}");
        assert!(!html.contains("data-testid=\"trace-group\""));
    }
}
