//! The in-process bus: after a commit, ingestion and the command paths publish what changed, and
//! the live SSE routes wake up and read the committed rows (the approval sweep publishes what it
//! changed too). A notice is only a wake-up call;
//! subscribers always re-read the database, so a lagging receiver loses nothing (they also
//! re-read on an interval, the safety net). On PostgreSQL the [`super::relay`] carries every
//! locally published notice to the other processes sharing the database (`LISTEN/NOTIFY`), and
//! publishes theirs here with [`Bus::publish_here`]; ledger notices are not carried after the
//! fact: ingestion sends them inside the transaction that commits their events (ADR 0059).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::sync::broadcast;

/// Notices kept for slow receivers before they lag (and fall back to re-reading).
pub const BUS_CAPACITY: usize = 4096;

/// Something committed.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum Notice {
    /// A ledger event was appended.
    Ledger {
        organization_id: String,
        task_id: String,
        conversation_id: String,
        sequence: i64,
        /// The task row was created by this event.
        new_task: bool,
    },
    /// A command changed status.
    Command {
        organization_id: String,
        command_id: String,
        conversation_id: Option<String>,
    },
    /// Decision requests changed status: a decision, or a change the server made on its own
    /// (the sweep's expiry and supersede). Open pages re-read (`/api/tasks/events`).
    Approvals,
}

/// Cheap to clone; every clone publishes to the same receivers.
#[derive(Clone, Debug)]
pub struct Bus {
    sender: broadcast::Sender<Notice>,
    /// Only what this process committed: what the relay sends to the others.
    local: broadcast::Sender<Notice>,
    /// This process among those sharing the database: relayed notices name it, so none comes
    /// back to it.
    origin: Arc<str>,
    /// Whether ingestion sends its ledger notices inside its transactions (ADR 0059); off while
    /// PostgreSQL's notification queue is half full, so a stuck listener cannot stop ingestion.
    notify_inside: Arc<AtomicBool>,
}

impl Default for Bus {
    fn default() -> Bus {
        Bus {
            sender: broadcast::channel(BUS_CAPACITY).0,
            local: broadcast::channel(BUS_CAPACITY).0,
            origin: uuid::Uuid::new_v4().to_string().into(),
            notify_inside: Arc::new(AtomicBool::new(true)),
        }
    }
}

impl Bus {
    /// Publishes a notice of something this process committed; having no receivers is normal.
    pub fn publish(&self, notice: Notice) {
        let _ = self.local.send(notice.clone());
        let _ = self.sender.send(notice);
    }

    /// Publishes a notice to this process's receivers only, never relayed: one another process
    /// committed (the relay heard it), or one already sent to the others with `NOTIFY` inside
    /// the transaction that committed it (ingestion's ledger notices).
    pub fn publish_here(&self, notice: Notice) {
        let _ = self.sender.send(notice);
    }

    /// This process's name on the relay (a random UUID per bus).
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// Whether ingestion sends its ledger notices inside its transactions; when not, it
    /// publishes them with [`Bus::publish`] and the relay sends them after the fact.
    pub fn notify_inside(&self) -> bool {
        self.notify_inside.load(Ordering::Relaxed)
    }

    /// Set by the relay from PostgreSQL's notification queue usage.
    pub fn set_notify_inside(&self, inside: bool) {
        self.notify_inside.store(inside, Ordering::Relaxed);
    }

    /// A receiver of the notices this process publishes (not the remote ones).
    pub fn subscribe_local(&self) -> broadcast::Receiver<Notice> {
        self.local.subscribe()
    }

    /// A receiver of every notice published from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<Notice> {
        self.sender.subscribe()
    }
}
