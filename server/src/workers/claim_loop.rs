//! The loop of the workers whose rows are adopted from the tasks, then claimed under leases and
//! worked on a few at a time (reconciliation sweeps, push registrations): every `poll` it adopts
//! (at most every `adopt_every`), claims what is due while fewer than `concurrent` run, and runs
//! each claimed row's work on the tracker until it ends or the process shuts down. A database
//! error is logged with the loop's name and tried again on the next pass.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use sea_orm::DbErr;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::store::leases::Held;

/// What a claim loop is called and how it paces itself.
pub(super) struct Pace {
    pub name: &'static str,
    pub poll: Duration,
    pub adopt_every: Duration,
    pub concurrent: usize,
}

/// Runs the loop until `shutdown`: `adopt` creates or wakes rows, `claim(n)` claims up to `n`
/// due rows, `work(row, lease)` is one row's work.
pub(super) async fn run<Row, Adopt, AdoptFut, Claim, ClaimFut, Work, WorkFut>(
    pace: Pace,
    tracker: TaskTracker,
    shutdown: CancellationToken,
    mut adopt: Adopt,
    mut claim: Claim,
    work: Work,
) where
    Adopt: FnMut() -> AdoptFut,
    AdoptFut: Future<Output = Result<u64, DbErr>>,
    Claim: FnMut(usize) -> ClaimFut,
    ClaimFut: Future<Output = Result<Vec<(Row, Held)>, DbErr>>,
    Work: Fn(Row, Held) -> WorkFut,
    WorkFut: Future<Output = ()> + Send + 'static,
{
    let running = Arc::new(AtomicUsize::new(0));
    let mut adopted_at: Option<tokio::time::Instant> = None;
    loop {
        tokio::select! {
            () = shutdown.cancelled() => return,
            () = tokio::time::sleep(pace.poll) => {}
        }
        if adopted_at.is_none_or(|at| at.elapsed() >= pace.adopt_every) {
            adopted_at = Some(tokio::time::Instant::now());
            if let Err(error) = adopt().await {
                tracing::warn!(%error, worker = pace.name, "adoption failed");
            }
        }
        let free = pace.concurrent.saturating_sub(running.load(Ordering::SeqCst));
        if free == 0 {
            continue;
        }
        match claim(free).await {
            Ok(claimed) => {
                for (row, lease) in claimed {
                    running.fetch_add(1, Ordering::SeqCst);
                    let (job, running, shutdown) = (work(row, lease), running.clone(), shutdown.clone());
                    tracker.spawn(async move {
                        tokio::select! {
                            () = job => {}
                            () = shutdown.cancelled() => {}
                        }
                        running.fetch_sub(1, Ordering::SeqCst);
                    });
                }
            }
            Err(error) => tracing::warn!(%error, worker = pace.name, "pass failed"),
        }
    }
}
