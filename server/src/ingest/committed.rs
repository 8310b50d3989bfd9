//! The committed-event source both live SSE readers share (`/api/live/…` and the API's
//! `POST /api/agents/{id}/stream`): given an organization, a scope (a task or a conversation) and
//! a cursor, it yields the scope's committed ledger events in sequence order, and waits for more
//! by waking on the [`bus`](super::bus) with a periodic re-read as the safety net (a lagging
//! receiver, or another replica's commits). It never writes and never sends frames.

use std::pin::Pin;
use std::time::Duration;

use app::api::tasks::LedgerEvent;
use tokio::sync::broadcast::{self, error::RecvError};
use tokio::time::{Instant, Sleep};

use super::bus::{Bus, Notice};
use crate::db::Db;
use crate::store::StoreError;
use crate::store::access::Access;
use crate::store::tasks::{self as task_store, EVENTS_PER_READ, EventScope};

/// One read of the scope's committed events after the cursor.
#[derive(Debug, Default)]
pub struct Batch {
    pub events: Vec<LedgerEvent>,
    /// The read hit [`EVENTS_PER_READ`]: more are committed, read again without waiting.
    pub full: bool,
}

/// Why [`CommittedEvents::wait`] returned.
#[derive(Debug, PartialEq, Eq)]
pub enum Wake {
    /// Read again: the re-read interval passed, or the receiver lagged behind the bus.
    Reread,
    /// A notice about the scope or the watched command; [`CommittedEvents::advances`] says
    /// whether it means new events past the cursor.
    Notice(Notice),
    /// The bus is gone (the process is shutting down).
    Closed,
}

/// A cursor over one scope's committed ledger events that wakes on the bus.
pub struct CommittedEvents {
    db: Db,
    organization_id: String,
    /// `None` until the reader knows its task (a send whose task does not exist yet).
    scope: Option<EventScope>,
    /// A command whose status notices wake the reader too.
    command_id: Option<String>,
    /// The last sequence read.
    after: i64,
    notices: broadcast::Receiver<Notice>,
    reread: Duration,
    deadline: Pin<Box<Sleep>>,
}

impl CommittedEvents {
    /// A cursor after `after`. It subscribes to the bus now, before the first read, so no
    /// commit between that read and the first wait is missed.
    pub fn new(
        bus: &Bus,
        db: Db,
        organization_id: String,
        scope: Option<EventScope>,
        after: i64,
        reread: Duration,
    ) -> CommittedEvents {
        CommittedEvents {
            notices: bus.subscribe(),
            db,
            organization_id,
            scope,
            command_id: None,
            after,
            deadline: Box::pin(tokio::time::sleep(reread)),
            reread,
        }
    }

    /// Also wakes on status notices of `command_id`.
    pub fn with_command(mut self, command_id: Option<String>) -> CommittedEvents {
        self.command_id = command_id;
        self
    }

    /// The last sequence read (where a resumed reader continues).
    pub fn after(&self) -> i64 {
        self.after
    }

    /// Moves the cursor: a reader that wants only what follows `after` (the scope's head).
    pub fn set_after(&mut self, after: i64) {
        self.after = after;
    }

    /// Whether the cursor has a scope yet.
    pub fn has_scope(&self) -> bool {
        self.scope.is_some()
    }

    /// Starts reading `scope` from the cursor (the reader learnt its task).
    pub fn set_scope(&mut self, scope: EventScope) {
        self.scope = Some(scope);
    }

    /// The scope's committed events after the cursor, at most [`EVENTS_PER_READ`], in order;
    /// the cursor moves past them. Nothing without a scope. Restarts the re-read interval.
    pub async fn read(&mut self) -> Result<Batch, StoreError> {
        self.restart_interval();
        let Some(scope) = &self.scope else {
            return Ok(Batch::default());
        };
        let events = task_store::events_after(
            &self.db.read,
            // The stream's caller was checked when it opened (§1.3).
            &Access::everything(self.organization_id.as_str()),
            scope,
            self.after,
        )
        .await?;
        if let Some(last) = events.last() {
            self.after = last.sequence;
        }
        Ok(Batch {
            full: events.len() as u64 >= EVENTS_PER_READ,
            events,
        })
    }

    /// Waits for a notice about the scope or the watched command, or for the re-read interval.
    /// Cancel-safe: it can be one branch of a `select!`.
    pub async fn wait(&mut self) -> Wake {
        loop {
            tokio::select! {
                () = &mut self.deadline => {
                    self.restart_interval();
                    return Wake::Reread;
                }
                notice = self.notices.recv() => match notice {
                    Ok(notice) if self.concerns(&notice) => return Wake::Notice(notice),
                    Ok(_) => {}
                    Err(RecvError::Lagged(_)) => return Wake::Reread,
                    Err(RecvError::Closed) => return Wake::Closed,
                },
            }
        }
    }

    /// Waits until a read may find something new: a ledger notice past the cursor, a status
    /// notice of the watched command, a lag or the re-read interval. `false` once the bus is gone.
    pub async fn changed(&mut self) -> bool {
        loop {
            match self.wait().await {
                Wake::Reread => return true,
                Wake::Closed => return false,
                Wake::Notice(notice)
                    if self.advances(&notice) || matches!(notice, Notice::Command { .. }) =>
                {
                    return true;
                }
                Wake::Notice(_) => {}
            }
        }
    }

    /// Whether `notice` reports an event of the scope past the cursor. Sequences commit in
    /// order, so an event at or below the cursor was already read: a group commit's events are
    /// read at its first notice, and the rest wake nothing (issue #6).
    pub fn advances(&self, notice: &Notice) -> bool {
        matches!(notice, Notice::Ledger { sequence, .. } if *sequence > self.after) && self.concerns(notice)
    }

    fn concerns(&self, notice: &Notice) -> bool {
        match notice {
            Notice::Ledger {
                task_id,
                conversation_id,
                ..
            } => match &self.scope {
                Some(EventScope::Task(id)) => id == task_id,
                Some(EventScope::Conversation(id)) => id == conversation_id,
                None => false,
            },
            Notice::Command {
                command_id,
                conversation_id,
                ..
            } => {
                self.command_id.as_deref() == Some(command_id.as_str())
                    || matches!(&self.scope, Some(EventScope::Conversation(id)) if conversation_id.as_deref() == Some(id.as_str()))
            }
            Notice::Approvals => false,
        }
    }

    fn restart_interval(&mut self) {
        self.deadline.as_mut().reset(Instant::now() + self.reread);
    }
}
