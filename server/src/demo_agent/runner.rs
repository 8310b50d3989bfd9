//! Plays a scenario's script onto one task: updates, pauses and floods, stopping when the task
//! is canceled, the server shuts down, or nobody has followed the task for a while.

use std::time::Duration;

use app::a2a::TaskState;
use serde_json::json;
use tokio::time::{Instant, MissedTickBehavior};
use tokio_util::sync::CancellationToken;

use super::store::TaskStore;
use super::wire::{Update, text_part};

/// How long work continues after its last follower (stream or waiting SendMessage) went away,
/// so a client can resubscribe after a dropped connection.
pub(crate) const ORPHAN_GRACE: Duration = Duration::from_secs(2);

/// One step of a scenario.
#[derive(Debug, Clone)]
pub(crate) enum Step {
    /// Apply an update (broadcast to followers).
    Do(Update),
    /// Wait, as a real agent working would.
    Sleep(Duration),
    /// `count` events at `rate` per second (the store stamps `emittedAtMs`).
    Flood(Flood),
}

/// A flood: `count` WORKING status updates at `rate` per second; with `chunks`, every second
/// event is instead the next chunk of one text artifact (`flood`), the last one closing it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Flood {
    pub(crate) rate: u32,
    pub(crate) count: u32,
    pub(crate) chunks: bool,
}

/// Where a run writes and what stops it.
pub(crate) struct Run {
    pub(crate) store: TaskStore,
    pub(crate) task_id: String,
    /// Cancelled by CancelTask and at shutdown.
    pub(crate) cancel: CancellationToken,
    /// Cancelled when the run ends, however it ends (followers stop on it).
    pub(crate) finished: CancellationToken,
    /// Nobody waits for this run (`returnImmediately`): do not stop when unobserved.
    pub(crate) detached: bool,
}

/// Why a run stopped early.
struct Stop;

/// Plays `steps` to the end or until the run must stop.
pub(crate) async fn run(run: Run, steps: Vec<Step>) {
    let _finished = run.finished.clone().drop_guard();
    let mut orphaned_since = None;
    for step in steps {
        let outcome = match step {
            Step::Do(update) => run.store.apply(&run.task_id, update).map_err(|_| Stop),
            Step::Sleep(duration) => {
                tokio::select! {
                    () = run.cancel.cancelled() => Err(Stop),
                    () = tokio::time::sleep(duration) => run.check_watched(&mut orphaned_since),
                }
            }
            Step::Flood(spec) => flood(&run, spec, &mut orphaned_since).await,
        };
        if outcome.is_err() {
            return;
        }
    }
}

impl Run {
    /// Stops (and cancels the task) once nobody has followed it for [`ORPHAN_GRACE`].
    fn check_watched(&self, orphaned_since: &mut Option<Instant>) -> Result<(), Stop> {
        if self.detached || self.store.watchers(&self.task_id) > 0 {
            *orphaned_since = None;
            return Ok(());
        }
        let since = *orphaned_since.get_or_insert_with(Instant::now);
        if since.elapsed() < ORPHAN_GRACE {
            return Ok(());
        }
        tracing::debug!(task_id = %self.task_id, "demo agent: no follower left, stopping work");
        let _ = self.store.apply(
            &self.task_id,
            Update::say(TaskState::Canceled, "Stopped: no client is listening any more."),
        );
        Err(Stop)
    }
}

async fn flood(run: &Run, spec: Flood, orphaned_since: &mut Option<Instant>) -> Result<(), Stop> {
    let count = spec.count;
    let rate = f64::from(spec.rate.max(1));
    let tick = Duration::from_secs_f64(1.0 / rate).max(Duration::from_millis(1));
    let mut interval = tokio::time::interval(tick);
    interval.set_missed_tick_behavior(MissedTickBehavior::Skip);
    let start = Instant::now();
    let mut emitted: u32 = 0;
    while emitted < count {
        tokio::select! {
            () = run.cancel.cancelled() => return Err(Stop),
            _ = interval.tick() => {}
        }
        // Catch up on every tick so high rates stay accurate with a millisecond timer.
        let due = ((start.elapsed().as_secs_f64() * rate).floor() as u64 + 1).min(u64::from(count)) as u32;
        while emitted < due {
            emitted += 1;
            run.store
                .apply(&run.task_id, flood_event(spec, emitted))
                .map_err(|_| Stop)?;
        }
        run.check_watched(orphaned_since)?;
    }
    Ok(())
}

/// The `seq`-th event of a flood (from 1).
fn flood_event(spec: Flood, seq: u32) -> Update {
    let metadata = json!({"seq": seq, "count": spec.count});
    if spec.chunks && seq.is_multiple_of(2) {
        return Update::Artifact {
            artifact: json!({
                "artifactId": "flood",
                "name": "flood.txt",
                "parts": [text_part(format!("{seq} "))],
                "metadata": metadata,
            }),
            // The first chunk (seq 2) creates the artifact; the last even one closes it.
            append: seq > 2,
            last_chunk: seq + 2 > spec.count,
        };
    }
    Update::Status {
        state: TaskState::Working,
        parts: Vec::new(),
        message_metadata: None,
        event_metadata: Some(metadata),
    }
}
