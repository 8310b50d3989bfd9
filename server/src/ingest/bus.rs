//! The in-process bus: after a commit, ingestion and the command paths publish what changed, and
//! the live SSE routes wake up and read the committed rows (the approval sweep publishes what it
//! changed too). A notice is only a wake-up call;
//! subscribers always re-read the database, so a lagging receiver loses nothing (they also
//! re-read on an interval, the safety net). On PostgreSQL the [`super::relay`] carries every
//! locally published notice to the other processes sharing the database (`LISTEN/NOTIFY`), and
//! publishes theirs here with [`Bus::publish_remote`].

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
}

impl Default for Bus {
    fn default() -> Bus {
        Bus {
            sender: broadcast::channel(BUS_CAPACITY).0,
            local: broadcast::channel(BUS_CAPACITY).0,
        }
    }
}

impl Bus {
    /// Publishes a notice of something this process committed; having no receivers is normal.
    pub fn publish(&self, notice: Notice) {
        let _ = self.local.send(notice.clone());
        let _ = self.sender.send(notice);
    }

    /// Publishes a notice another process committed (the relay): to this process's receivers
    /// only, never sent on again.
    pub fn publish_remote(&self, notice: Notice) {
        let _ = self.sender.send(notice);
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
