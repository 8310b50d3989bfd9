//! The live Trace panel (`reference.md` §1.5, §1.6, §3): sideband events decoded in the browser
//! from committed ledger events, with the same decoder the server's `sideband` SSE event uses.
//!
//! - [`decode_ledger_event`] / [`decode_history`]: ledger events → [`TraceItem`]s (pure).
//! - [`merge`]: adds items in sequence order, dropping ones already shown (§3.5 dedupe key).
//! - [`group_visible`], [`hidden_count`]: the level filter and the per-task grouping (pure).
//! - [`spans`]: the waterfall's rows, started/completed events paired into nested spans (pure).
//! - [`sideband_part_to_part`]: a normalised sideband part as an A2A part for the content renderers.
//! - [`TracePanel`]: the component, fed by a page's [`TraceFeed`] and its stored history.
//!
//! The decoding runs in the panel: a page hands it the ledger events it receives live, raw, and
//! the panel decodes them with the stored history.
//!
//! Decoded content is data: it is rendered as text or through the inert content renderers only.

use std::collections::HashSet;

use crate::a2a::{Part, PartContent};
use crate::api::tasks::LedgerEvent;
use crate::ext::sideband::{self, DecodeContext, Level, PartKind, SidebandEvent, SidebandPart};

mod panel;
pub mod spans;

pub use panel::TracePanel;

/// The ledger events a page receives live, handed raw to its [`TracePanel`]: the panel takes
/// them as they come and decodes them; until its code has loaded they wait here.
#[derive(Clone, Copy)]
pub struct TraceFeed {
    pending: leptos::prelude::RwSignal<Vec<LedgerEvent>>,
}

impl TraceFeed {
    /// An empty feed, owned by the calling component.
    pub fn new() -> TraceFeed {
        TraceFeed {
            pending: leptos::prelude::RwSignal::new(Vec::new()),
        }
    }

    /// Hands a live ledger event to the panel.
    pub fn push(self, event: LedgerEvent) {
        use leptos::prelude::Update;
        self.pending.try_update(|pending| pending.push(event));
    }

    /// The events not taken yet, oldest first; subscribes the calling effect to new ones.
    fn take(self) -> Vec<LedgerEvent> {
        use leptos::prelude::{Track, UpdateUntracked};
        self.pending.track();
        self.pending
            .try_update_untracked(std::mem::take)
            .unwrap_or_default()
    }
}

impl Default for TraceFeed {
    fn default() -> Self {
        TraceFeed::new()
    }
}

/// Where a [`TracePanel`] loads the stored events it shows from: a conversation's events, or
/// only one task's of them.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceHistory {
    /// The conversation; empty for a chat not started yet (nothing is stored).
    pub conversation_id: String,
    /// Only this local task's events, when set.
    pub task_id: Option<String>,
}

/// One decoded sideband event with the ledger event it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceItem {
    /// The local task id of the ledger event (not `references.taskId`, which is the agent's).
    pub task_id: String,
    /// The ledger sequence of the event it was decoded from.
    pub sequence: i64,
    /// The decoded event.
    pub event: SidebandEvent,
}

impl TraceItem {
    /// What identifies the item in a list: its sequence and the §3.5 dedupe key.
    pub fn key(&self) -> (i64, String) {
        (self.sequence, sideband::dedupe_key(&self.event))
    }
}

/// The level filter's choices, lowest first, with their labels; `Info` is the default.
pub const LEVEL_CHOICES: [(Level, &str); 4] = [
    (Level::Debug, "Debug and up"),
    (Level::Info, "Info and up (default)"),
    (Level::Warning, "Warnings and up"),
    (Level::Error, "Errors only"),
];

/// Decodes one stored ledger event under the URIs negotiated for it: "now" is the time it was
/// received and generated ids are `event-<sequence>-<n>`, so decoding it again (history, then
/// live, or after a reconnect) gives the same events.
pub fn decode_ledger_event(event: &LedgerEvent) -> Vec<TraceItem> {
    let ctx = DecodeContext {
        now: event.received_at.clone(),
        id_prefix: format!("event-{}", event.sequence),
        session_id: None,
        request_id: None,
    };
    sideband::decode(&event.payload, &event.extensions, &ctx)
        .into_iter()
        .map(|decoded| TraceItem {
            task_id: event.task_id.clone(),
            sequence: event.sequence,
            event: decoded,
        })
        .collect()
}

/// Decodes stored ledger events (oldest first) into items.
pub fn decode_history<'a>(events: impl IntoIterator<Item = &'a LedgerEvent>) -> Vec<TraceItem> {
    events.into_iter().flat_map(decode_ledger_event).collect()
}

/// Adds `new` to `items`, keeping `items` in sequence order (items of one sequence in the order
/// they arrived) and dropping any whose [`sideband::dedupe_key`] is already present: the same
/// stored event arrives twice with the history and the live stream, or after a reconnect.
pub fn merge(items: &mut Vec<TraceItem>, new: Vec<TraceItem>) {
    let mut seen: HashSet<String> = items.iter().map(|i| sideband::dedupe_key(&i.event)).collect();
    for item in new {
        if !seen.insert(sideband::dedupe_key(&item.event)) {
            continue;
        }
        let at = items.partition_point(|i| i.sequence <= item.sequence);
        items.insert(at, item);
    }
}

/// How many items the filter hides (their level is below `min`).
pub fn hidden_count(items: &[TraceItem], min: Level) -> usize {
    items.iter().filter(|i| i.event.level < min).count()
}

/// The items at `min` or above, grouped by local task id: groups in order of their first item,
/// items in list order within a group.
pub fn group_visible(items: &[TraceItem], min: Level) -> Vec<(String, Vec<TraceItem>)> {
    let mut groups: Vec<(String, Vec<TraceItem>)> = Vec::new();
    for item in items.iter().filter(|i| i.event.level >= min) {
        match groups.iter_mut().find(|(task, _)| *task == item.task_id) {
            Some((_, group)) => group.push(item.clone()),
            None => groups.push((item.task_id.clone(), vec![item.clone()])),
        }
    }
    groups
}

/// The filter value of a `<select>` option (`debug`, `info`, `warning`, `error`); anything else
/// is the default.
pub fn parse_level(value: &str) -> Level {
    Level::from_label(value)
}

/// The badge text of a level.
pub fn level_label(level: Level) -> &'static str {
    match level {
        Level::Debug => "Debug",
        Level::Info => "Info",
        Level::Warning => "Warning",
        Level::Error => "Error",
    }
}

/// A normalised sideband part as an A2A part for the content renderers: text → text with its
/// media type, data → data, URL → file by reference (never fetched), raw → inline bytes;
/// an unknown part shows its whole JSON as data. File name and metadata are kept.
pub fn sideband_part_to_part(part: &SidebandPart) -> Part {
    let as_text = || match &part.value {
        serde_json::Value::String(text) => text.clone(),
        other => other.to_string(),
    };
    let (content, media_type) = match part.kind {
        PartKind::Text => (PartContent::Text(as_text()), part.media_type.clone()),
        PartKind::Data => (PartContent::Data(part.value.clone()), part.media_type.clone()),
        PartKind::Url => (PartContent::Url(as_text()), part.media_type.clone()),
        PartKind::Raw => (PartContent::Raw(as_text()), part.media_type.clone()),
        PartKind::Unknown => (
            PartContent::Data(part.value.clone()),
            "application/json".to_owned(),
        ),
    };
    Part {
        content,
        media_type: Some(media_type),
        filename: part.filename.clone(),
        metadata: part.metadata.clone(),
    }
}

#[cfg(test)]
mod spans_tests;
#[cfg(test)]
mod tests;
