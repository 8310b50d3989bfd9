//! Group commit across tasks (issue #33, ADR 0032): the stream groups of every followed task go
//! through one queue, and what queued while a transaction was committing is committed together
//! in the next one.
//!
//! A process following a hundred streams would otherwise run a hundred transactions at once,
//! each taking the organization's ledger counter (its row lock on PostgreSQL, the one writer on
//! SQLite) in turn: one commit, one fsync, per group of each task. Here the groups of many tasks
//! share one transaction, one counter update and one commit, each still acknowledged only after
//! it (nothing is published or answered before commit). Groups are prepared (decoded, digested,
//! archived) by their callers, in parallel, before they queue.
//!
//! All or nothing per transaction: when one group fails it (its lease was lost, an event broke
//! a rule), every group of that transaction is committed again on its own, so each meets the
//! fate it would alone.

use std::sync::{Arc, OnceLock};

use std::sync::atomic::Ordering;

use sea_orm::sqlx::Connection;
use sea_orm::sqlx::postgres::PgPoolOptions;
use sea_orm::{DatabaseBackend, DatabaseConnection, DbErr, SqlxPostgresConnector};
use tokio::sync::{mpsc, oneshot};

use crate::db::connect::PING_WHEN_IDLE_FOR;

use super::{IngestError, Ingested, Ingestor, Observation, Prepared};

/// Observations a transaction of the queue takes at most (several groups; a group alone may
/// pass it).
pub const TRANSACTION_LIMIT: usize = 1024;
/// Groups waiting at most; past it a caller waits for room.
const QUEUE_DEPTH: usize = 1024;

type Reply = oneshot::Sender<Result<Vec<Ingested>, IngestError>>;

/// One group waiting for its transaction.
struct Job {
    observations: Arc<[Observation]>,
    prepared: Vec<Prepared>,
    reply: Reply,
}

/// The sending side of the queue; the committing task ends when every sender is gone.
#[derive(Clone, Debug)]
pub struct CommitQueue(mpsc::Sender<Job>, Arc<OnceLock<DatabaseConnection>>);

impl CommitQueue {
    /// Groups waiting for a transaction (not counting those being committed).
    pub fn waiting(&self) -> usize {
        self.0.max_capacity() - self.0.capacity()
    }

    /// The queue's own one-connection pool (PostgreSQL, ADR 0056), once its thread opened it;
    /// `None` on SQLite, whose one writer the queue shares. For `/metrics`.
    pub fn own_pool(&self) -> Option<&DatabaseConnection> {
        self.1.get()
    }
}

impl Ingestor {
    /// The same ingestor, with a commit queue: [`Ingestor::ingest_queued`] then commits the
    /// groups of many tasks together.
    ///
    /// The queue commits on a thread of its own (ADR 0056): its transaction is a
    /// sequence of round trips, and each answer is taken as soon as it arrives instead of when
    /// one of the runtime's threads, busy reading and preparing streams, gets to it. On
    /// PostgreSQL it has its own connection, so the answers wake that thread directly; SQLite's
    /// one writer is shared (its driver answers from a thread of its own either way).
    pub fn with_commit_queue(mut self) -> Ingestor {
        let (sender, receiver) = mpsc::channel(QUEUE_DEPTH);
        // The committing task's own ingestor has no queue, so the channel closes with the last
        // outside clone.
        let committer = self.clone();
        let own_pool = Arc::new(OnceLock::new());
        let shown = own_pool.clone();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .thread_name("taskbay-commit")
            .build();
        let spawned = runtime.and_then(|runtime| {
            std::thread::Builder::new()
                .name("taskbay-commit".into())
                .spawn(move || runtime.block_on(commit_thread(committer, receiver, shown)))
        });
        if let Err(error) = spawned {
            tracing::warn!(%error, "no commit thread: groups commit one by one");
            return self;
        }
        self.queue = Some(CommitQueue(sender, own_pool));
        self
    }

    /// [`Ingestor::ingest_group`], committed in the same transaction as the groups other tasks
    /// queued meanwhile (without a queue: alone). Prepared here, in the caller's task.
    pub async fn ingest_queued(
        &self,
        observations: Arc<[Observation]>,
    ) -> Result<Vec<Ingested>, IngestError> {
        let Some(CommitQueue(queue, _)) = &self.queue else {
            return self.ingest_group(&observations).await;
        };
        if observations.is_empty() {
            return Ok(Vec::new());
        }
        let prepared = self.prepare_all(&observations).await?;
        let (reply, answer) = oneshot::channel();
        let job = Job {
            observations,
            prepared,
            reply,
        };
        if let Err(mpsc::error::SendError(job)) = queue.send(job).await {
            // The committing task is gone (shutdown): commit alone.
            return self.ingest_group(&job.observations).await;
        }
        answer
            .await
            .map_err(|_| IngestError::Db(DbErr::Custom("the commit queue stopped".into())))?
    }
}

/// The committing thread's work: on PostgreSQL with a connection of its own, opened on this
/// thread's runtime (so its answers are this runtime's to wake), shown in `shown` (for
/// `/metrics`), closed when the queue is.
async fn commit_thread(
    mut committer: Ingestor,
    receiver: mpsc::Receiver<Job>,
    shown: Arc<OnceLock<DatabaseConnection>>,
) {
    let own = own_writer(&committer.db.write);
    if let Some(own) = &own {
        committer.db.write = own.clone();
        let _ = shown.set(own.clone());
    }
    commit_loop(committer, receiver).await;
    if let Some(own) = own {
        let _ = own.close().await;
    }
}

/// A one-connection pool with the options of `pool`, when it is PostgreSQL's; it connects on
/// first use.
fn own_writer(pool: &DatabaseConnection) -> Option<DatabaseConnection> {
    if pool.get_database_backend() != DatabaseBackend::Postgres {
        return None;
    }
    let shared = pool.get_postgres_connection_pool();
    let options = (*shared.connect_options()).clone();
    let own = PgPoolOptions::new()
        .max_connections(1)
        .acquire_timeout(shared.options().get_acquire_timeout())
        // As the shared pool does (`db::connect`): a connection idle a while is pinged first.
        .test_before_acquire(false)
        .before_acquire(|connection, meta| {
            Box::pin(async move {
                if meta.idle_for >= PING_WHEN_IDLE_FOR {
                    connection.ping().await?;
                }
                Ok(true)
            })
        })
        .connect_lazy_with(options);
    Some(SqlxPostgresConnector::from_sqlx_postgres_pool(own))
}

/// Takes a group, then every group that queued meanwhile (up to [`TRANSACTION_LIMIT`]
/// observations), and commits them in one transaction.
async fn commit_loop(ingestor: Ingestor, mut receiver: mpsc::Receiver<Job>) {
    while let Some(first) = receiver.recv().await {
        let mut size = first.observations.len();
        let mut jobs = vec![first];
        while size < TRANSACTION_LIMIT {
            match receiver.try_recv() {
                Ok(job) => {
                    size += job.observations.len();
                    jobs.push(job);
                }
                Err(_) => break,
            }
        }
        ingestor
            .counters
            .queue_groups
            .fetch_add(jobs.len() as u64, Ordering::Relaxed);
        commit(&ingestor, jobs).await;
    }
}

/// Commits `jobs` together and answers each; when that fails, each alone.
async fn commit(ingestor: &Ingestor, jobs: Vec<Job>) {
    let mut replies = Vec::with_capacity(jobs.len());
    let mut runs = Vec::with_capacity(jobs.len());
    let mut groups = Vec::with_capacity(jobs.len());
    for job in jobs {
        replies.push(job.reply);
        groups.push(job.observations);
        runs.push(job.prepared);
    }
    let together = ingestor
        .commit_runs(groups.iter().map(|group| &group[..]).zip(runs).collect())
        .await;
    match together {
        Ok(results) => {
            ingestor.counters.queue_commits.fetch_add(1, Ordering::Relaxed);
            for (reply, result) in replies.into_iter().zip(results) {
                let _ = reply.send(Ok(result));
            }
        }
        Err(error) if replies.len() == 1 => {
            let _ = replies.pop().expect("one reply").send(Err(error));
        }
        Err(_) => {
            // One of them failed the transaction: each again alone (prepared again; archiving
            // is content-addressed, so a second time writes nothing new).
            for (reply, observations) in replies.into_iter().zip(groups) {
                let alone = ingestor.ingest_group(&observations).await;
                if alone.is_ok() {
                    ingestor.counters.queue_commits.fetch_add(1, Ordering::Relaxed);
                }
                let _ = reply.send(alone);
            }
        }
    }
}
