//! The single ingestion path (`shared/spec/security-and-durability.md` §3.1–§3.2): every
//! observation of a task — a send's response, a stream event, a poll — is validated,
//! de-duplicated, appended to the ledger and folded into the projections in one transaction,
//! then published on the [`bus`].
//!
//! Inside the transaction: lock the task row (create it on first sight), check the task
//! identity and the caller's lease, de-duplicate on `(task, source, source_key)`, allocate the
//! next ledger sequence of the organization (under the counter's row lock, so sequences
//! commit in order and a reader following them never skips one), append, fold, bump the
//! task's version, and record the intent to keep following an active task.
//!
//! Submodules: [`prepare`](Ingestor::prepare) (before the transaction), `apply` and `locate`
//! (inside it), `rebuild` (projections again from the ledger), [`verify`], [`archive`], [`gc`],
//! [`bus`] and [`committed`] (what readers wait on). Queries live in `store::ledger`,
//! `store::sequences` and `store::task_rows`; `ingest` calls no layer above it ([`TaskChanged`] is how one joins in).

mod apply;
pub mod archive;
mod artifacts;
mod batch;
pub mod bus;
pub mod committed;
mod counters;
mod fold;
pub mod gc;
mod hook;
mod locate;
mod observation;
mod prepare;
pub mod queue;
mod rebuild;
pub mod relay;
pub mod verify;

use std::sync::atomic::Ordering;

pub use self::counters::{IngestCounters, Subscribed};
pub use self::hook::TaskChanged;
pub use self::observation::{Fence, IngestError, Ingested, Observation, Source};
pub use self::prepare::Prepared;
pub use self::rebuild::{rebuild, task_ids};

use self::archive::ArtifactStore;
use self::bus::{Bus, Notice};
use crate::db::Db;

/// The ingestion service: the database, the artifact store and the bus.
#[derive(Clone, Debug)]
pub struct Ingestor {
    pub db: Db,
    pub store: ArtifactStore,
    pub bus: Bus,
    pub subscribed: Subscribed,
    /// What this process stored, for `/metrics`.
    pub counters: std::sync::Arc<IngestCounters>,
    /// Run after an event changed a task; none in an ingestor built without one (tests, tools).
    pub on_change: Option<std::sync::Arc<dyn TaskChanged>>,
    /// Where followed streams queue their groups to be committed together
    /// ([`Ingestor::with_commit_queue`]); none: each group commits alone.
    pub queue: Option<queue::CommitQueue>,
}

impl Ingestor {
    pub fn new(db: Db, store: ArtifactStore, bus: Bus) -> Ingestor {
        Ingestor {
            db,
            store,
            bus,
            subscribed: Subscribed::default(),
            counters: Default::default(),
            on_change: None,
            queue: None,
        }
    }

    /// The same ingestor, running `hook` after every event that changes a task.
    pub fn with_task_hook(mut self, hook: std::sync::Arc<dyn TaskChanged>) -> Ingestor {
        self.on_change = Some(hook);
        self
    }

    /// Ingests one observation in its own transaction and publishes it.
    pub async fn ingest(&self, observation: &Observation) -> Result<Ingested, IngestError> {
        let mut done = self.ingest_group(std::slice::from_ref(observation)).await?;
        Ok(done.pop().expect("one observation is ingested or fails"))
    }

    /// The statement that sends the ledger notices of `ingested` to the other processes sharing
    /// the database, inside the transaction, before it commits (PostgreSQL; none on SQLite, which
    /// has one process). [`Ingestor::publish`] then publishes them in this process only (ADR
    /// 0059). None either while the relay finds PostgreSQL's notification queue half full
    /// ([`Bus::notify_inside`]): the relay then sends them after the commit, where a full queue
    /// fails only the notice.
    pub fn notices_statement<'a>(
        &self,
        ingested: impl IntoIterator<Item = &'a Ingested>,
    ) -> Result<Option<sea_orm::Statement>, sea_orm::DbErr> {
        if self.db.is_sqlite() || !self.bus.notify_inside() {
            return Ok(None);
        }
        relay::notify_statement(self.bus.origin(), ingested.into_iter().filter_map(notice))
    }

    /// Sends [`Ingestor::notices_statement`] inside `tx` on its own (a transaction with no
    /// ingestion writes left to send).
    pub async fn notify_in<'a>(
        &self,
        tx: &impl sea_orm::ConnectionTrait,
        ingested: impl IntoIterator<Item = &'a Ingested>,
    ) -> Result<(), sea_orm::DbErr> {
        if let Some(statement) = self.notices_statement(ingested)? {
            tx.execute_raw(statement).await?;
        }
        Ok(())
    }

    /// Publishes what a committed [`Ingestor::apply`] did, and remembers that its task has a
    /// subscription row. In this process only when the others heard of it through
    /// [`Ingestor::notices_statement`], inside the transaction; if the relay's switch flipped in
    /// between, a notice goes twice or not at all, which the readers' re-read covers.
    pub fn publish(&self, ingested: &Ingested) {
        if ingested.subscribed {
            self.subscribed.remember(&ingested.task_id);
        }
        if let Some(notice) = notice(ingested) {
            self.counters.events.fetch_add(1, Ordering::Relaxed);
            if self.bus.notify_inside() {
                self.bus.publish_here(notice);
            } else {
                self.bus.publish(notice);
            }
        }
    }
}

/// The ledger notice of what was ingested, when it appended an event.
fn notice(ingested: &Ingested) -> Option<Notice> {
    Some(Notice::Ledger {
        organization_id: ingested.organization_id.clone(),
        task_id: ingested.task_id.clone(),
        conversation_id: ingested.conversation_id.clone(),
        sequence: ingested.sequence?,
        new_task: ingested.new_task,
    })
}
