//! What an open task row's transaction knows its task holds: the ledger keys of the group's
//! events and the de-duplication keys of their messages, read with one probe when the row is
//! opened (on SQLite with the row and the counter, ADR 0050). Events and messages known to be
//! new are written with the task row, all in one statement ([`Deferred`]); anything not probed
//! is written at once with `ON CONFLICT DO NOTHING`, whose count says whether it was new.

use std::collections::HashSet;

use app::a2a::{Message, StreamEvent};
use sea_orm::DatabaseBackend;

use super::{Observation, Prepared, Source};
use crate::db::entity::task_message;
use crate::store::deferred::Deferred;
use crate::store::ledger::{self, EventRows, NewEvent};
use crate::store::probe::{EventKey, Probe, Taken};
use crate::store::projections;

/// The stream events of one open task row in a group, and its messages' keys.
#[derive(Default)]
pub(super) struct Batch {
    /// The `(source, key)` pairs checked against the ledger when the row was opened.
    covered: HashSet<(String, String)>,
    /// Those already in the ledger, or taken by an earlier event of the group.
    taken: HashSet<(String, String)>,
    rows: EventRows,
    pub messages: MessageKeys,
}

/// The keys of a run of observations to probe for the task `task_id`: the first observation's
/// event, the stream events that follow it for the same task (a command response moves the
/// turn the keys are made of, so nothing after one is covered), and the messages of every
/// event of the task in the run.
pub(super) fn probe_of(task_id: &str, run: &[(&Observation, &Prepared)]) -> Probe {
    let mut probe = Probe::new(task_id);
    let same_task = |observation: &Observation| observation.local_task_id.as_deref() == Some(task_id);
    let mut events_open = true;
    for (n, (observation, prepared)) in run.iter().enumerate() {
        if n > 0 && !same_task(observation) {
            break;
        }
        let stream_like = matches!(observation.source, Source::Stream | Source::Reconcile);
        if n == 0 || (events_open && stream_like) {
            probe.event(observation.source.as_str(), event_key(observation, prepared));
        }
        events_open &= stream_like;
        for message in messages_of(&prepared.event) {
            if !message.message_id.is_empty() {
                probe.message(message_key(&message.message_id));
            }
        }
    }
    probe
}

impl Batch {
    /// The batch of a row opened at `turn`, from what the probe found.
    pub(super) fn known(probe: &Probe, turn: i64, taken: Taken) -> Self {
        Self {
            covered: probe
                .events()
                .map(|(source, key)| (source.to_owned(), key.at(turn)))
                .collect(),
            taken: taken.events,
            rows: EventRows::default(),
            messages: MessageKeys {
                probed: probe.messages().cloned().collect(),
                taken: taken.messages,
                all_new: false,
                rows: Vec::new(),
            },
        }
    }

    /// Whether this batch decides about the event `(source, key)`.
    pub(super) fn covers(&self, source: &str, key: &str) -> bool {
        self.covered.contains(&(source.to_owned(), key.to_owned()))
    }

    /// Gathers a covered event; `false` for a duplicate.
    pub(super) fn add(&mut self, event: NewEvent<'_>) -> bool {
        if !self
            .taken
            .insert((event.source.to_owned(), event.source_key.clone()))
        {
            return false;
        }
        self.rows.push(event);
        true
    }

    /// The gathered events' and messages' statements, added to `writes`.
    pub(super) fn defer(mut self, backend: DatabaseBackend, writes: &mut Deferred) {
        if let Some(statement) = ledger::append_all_statement(backend, self.rows) {
            writes.push(statement);
        }
        self.messages.defer(backend, writes);
    }
}

/// What the transaction knows of the open task's message de-duplication keys.
#[derive(Default)]
pub(super) struct MessageKeys {
    /// Checked against the task's messages when the row was opened.
    probed: HashSet<String>,
    /// Stored already, or added by this transaction.
    taken: HashSet<String>,
    /// The task has no messages but those this transaction adds (a rebuild).
    all_new: bool,
    /// New messages not written yet, in order.
    rows: Vec<task_message::Model>,
}

/// Whether a message is to be added.
pub(super) enum MessageFate {
    /// The task has it.
    Duplicate,
    /// The task does not have it: it is added with the row's other writes.
    New,
    /// Not probed: insert it now and count what was inserted. The probe covers every message
    /// of the events an open row folds ([`probe_of`]), so this is the fallback that keeps the
    /// count right should the two ever differ, not a path ingestion takes today.
    Unknown,
}

impl MessageKeys {
    /// Keys of a task whose messages were all dropped in this transaction.
    pub(super) fn all_new() -> Self {
        Self {
            all_new: true,
            ..Self::default()
        }
    }

    /// The fate of a message with `key`; `unique`: a key made up for a message without an id,
    /// which nothing else has. A key found new is taken from then on.
    pub(super) fn claim(&mut self, key: &str, unique: bool) -> MessageFate {
        if self.taken.contains(key) {
            MessageFate::Duplicate
        } else if unique || self.all_new || self.probed.contains(key) {
            self.taken.insert(key.to_owned());
            MessageFate::New
        } else {
            MessageFate::Unknown
        }
    }

    /// A message not probed was inserted.
    pub(super) fn inserted(&mut self, key: &str) {
        self.taken.insert(key.to_owned());
    }

    /// Gathers a message [`MessageKeys::claim`] found new.
    pub(super) fn add(&mut self, row: task_message::Model) {
        self.rows.push(row);
    }

    /// How many gathered messages are not written yet.
    pub(super) fn pending(&self) -> usize {
        self.rows.len()
    }

    /// The gathered messages' statements (multi-row inserts), added to `writes`.
    pub(super) fn defer(&mut self, backend: DatabaseBackend, writes: &mut Deferred) {
        for statement in projections::messages_insert(backend, std::mem::take(&mut self.rows)) {
            writes.push(statement);
        }
    }
}

/// A message's de-duplication key by its id.
pub(super) fn message_key(message_id: &str) -> String {
    format!("id:{message_id}")
}

/// The messages an event carries (what folding it may add).
fn messages_of(event: &StreamEvent) -> Vec<&Message> {
    match event {
        StreamEvent::Task(task) => task.history.iter().chain(task.status.message.as_ref()).collect(),
        StreamEvent::StatusUpdate(update) => update.status.message.iter().collect(),
        StreamEvent::Message(message) => vec![message],
        StreamEvent::ArtifactUpdate(_) => Vec::new(),
    }
}

/// The event's de-duplication key: identical stream events are told apart by the user turn they
/// belong to; an event without a key of its own is known by its digest.
pub(super) fn event_key(observation: &Observation, prepared: &Prepared) -> EventKey {
    match &observation.source_key {
        Some(key) if matches!(observation.source, Source::Stream | Source::Reconcile) => {
            EventKey::OfTurn(key.clone())
        }
        Some(key) => EventKey::Exact(key.clone()),
        None => EventKey::OfTurn(prepared.digest.clone()),
    }
}

/// [`event_key`] at the task's `turn`.
pub(super) fn source_key(turn: i64, observation: &Observation, prepared: &Prepared) -> String {
    event_key(observation, prepared).at(turn)
}
