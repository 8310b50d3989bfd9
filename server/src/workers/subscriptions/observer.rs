//! Observing one followed task: its stream (a resubscription or the dispatch worker's send
//! stream) or one `GetTask` read, every event ingested under the subscription's lease.
//!
//! Following ends only at a terminal state (issue #27). A task waiting for input is polled:
//! the agent may move on by itself, and the stream of a reply may open with an artifact or a
//! stale input-required snapshot before the agent's work, so a paused state never stops a
//! stream that is still delivering.
//!
//! A `SubscribeToTask` stream starts after a gap (the previous stream closed, or the task was
//! created by a `SendMessage`), and an agent whose resubscription sends no snapshot first
//! (a2a-sdk 0.3) would lose what it emitted meanwhile. So every resubscription is preceded by
//! one `GetTask`, folded like any snapshot of an unfinished task; it is read before the stream
//! opens because a2a-sdk 0.3.26 counts every chunk appended while a resubscription is open twice
//! in its own store. A task that finishes through such a stream is read once more (again, a few
//! times, while the agent's snapshot still says it is unfinished: its store may lag its
//! stream), and that snapshot of a finished task only adds a tail the streams missed, never rewrites what they
//! delivered ([`app::projection::missing_tail`]).

use std::collections::HashMap;
use std::sync::Arc;

use app::a2a::{TaskState, encode_get_task, encode_task_id};
use futures::{FutureExt, StreamExt};
use serde_json::Value;

use super::read_ahead::read_ahead;
use super::{GROUP_LIMIT, HEALTHY_STREAM, Outcome, Target};
use crate::gateway::{EventStream, GatewayError};
use crate::ingest::archive::digest;
use crate::ingest::{Fence, IngestError, Observation, Source};
use crate::store::leases::Held;
use crate::workers::WorkerDeps;
use app::ext::canonical::ledger_json;

/// Attempts at the read after a task finished through a resubscription: an agent may answer an
/// error for a moment right after it finished, and its own store may not yet hold what its
/// stream already said (a2a-sdk 0.3 saves each event from every open stream's consumer, so a
/// `GetTask` right after the final event can still show the task working, without its last
/// chunks). Read again, 200 ms doubling, until the snapshot says the task finished.
const FINAL_READS: u32 = 6;
const FINAL_READ_PAUSE: std::time::Duration = std::time::Duration::from_millis(200);

pub(super) struct Observer<'a> {
    pub deps: &'a WorkerDeps,
    /// The subscription's lease, which fences every ingested event.
    pub lease: &'a Held,
    pub target: &'a Target,
}

impl Observer<'_> {
    /// Reconciles the gap with `GetTask`, resubscribes with `SubscribeToTask` and follows the
    /// stream.
    pub async fn stream(&self) -> Outcome {
        // What the agent emitted while nothing was subscribed.
        let mut state = self.target.task.state.clone();
        match self.reconcile().await {
            Ok(Some(now)) if now.is_terminal() => return Outcome::Stopped,
            Ok(now) => state = now.unwrap_or(state),
            Err(Outcome::Again(reason)) => {
                tracing::info!(task = %self.target.task.id, %reason, "gap reconciliation failed; subscribing");
            }
            Err(outcome) => return outcome,
        }
        let params = encode_task_id(
            &self.target.remote_task_id,
            &self.target.task.tenant,
            self.target.endpoint.version,
        );
        let events = match self
            .target
            .gateway
            .subscribe_to_task(&self.target.endpoint, params, &self.target.negotiated)
            .await
        {
            Ok(events) => events,
            // Finished (or unknown) by now: one GetTask settles it.
            Err(GatewayError::JsonRpc(_) | GatewayError::Http { .. }) => return self.read_once().await,
            Err(error) => return Outcome::Again(error.to_string()),
        };
        match self.consume(events, state).await {
            Outcome::Stopped => {
                // Finished through a stream that followed a gap: the final snapshot may hold a
                // tail the streams missed.
                self.final_read().await;
                Outcome::Stopped
            }
            other => other,
        }
    }

    /// Reads the task once it finished through a resubscription, until the agent's snapshot says
    /// it finished too ([`FINAL_READS`]), and ingests it: only a missing tail is taken from it.
    async fn final_read(&self) {
        let mut pause = FINAL_READ_PAUSE;
        for attempt in 1..=FINAL_READS {
            match self.read_snapshot().await {
                Ok(Some(snapshot)) if !snapshot.is_terminal() => {
                    tracing::info!(task = %self.target.task.id, attempt, "the agent's snapshot lags its stream; reading again");
                }
                Err(Outcome::Again(reason)) => {
                    tracing::info!(task = %self.target.task.id, %reason, attempt, "final reconciliation failed");
                }
                _ => return,
            }
            if attempt < FINAL_READS {
                tokio::time::sleep(pause).await;
                pause *= 2;
            }
        }
    }

    /// Ingests every event of an open stream under the lease (the task was in `state` when it
    /// opened), each keyed by its fingerprint and occurrence in this stream. `Stopped` at a
    /// terminal state; when the stream closes, `PollLater` if the task is waiting for input (it
    /// is polled from then on), else `Closed`.
    ///
    /// Events that have already arrived when one is taken are ingested with it in one
    /// transaction (group commit, at most [`GROUP_LIMIT`]): a stream that outpaces the
    /// database is stored in fewer, larger transactions instead of queueing (issue #6). No
    /// event waits for another. The stream is read ahead by a task of its own
    /// ([`read_ahead`]): what arrives while a group is stored is the next group.
    pub async fn consume(&self, events: EventStream, mut state: TaskState) -> Outcome {
        // Read ahead while a group is stored, so the next group is what arrived meanwhile.
        // Fused: draining may find the stream's end, and the loop asks once more.
        let mut events = read_ahead(events, GROUP_LIMIT).fuse();
        let opened = std::time::Instant::now();
        let mut seen: HashMap<String, u32> = HashMap::new();
        let mut key = |payload: &Value| {
            let fingerprint = digest(ledger_json(payload).as_bytes());
            let occurrence = seen.entry(fingerprint.clone()).or_default();
            *occurrence += 1;
            format!("{fingerprint}:{occurrence}")
        };
        while let Some(first) = events.next().await {
            let mut group = Vec::new();
            let mut failed = None;
            let mut next = Some(first);
            while let Some(event) = next.take() {
                match event {
                    Ok(payload) => group.push(self.observation(Source::Stream, Some(key(&payload)), payload)),
                    Err(error) => {
                        failed = Some(Outcome::Again(error.to_string()));
                        break;
                    }
                }
                if group.len() < GROUP_LIMIT {
                    next = events.next().now_or_never().flatten();
                }
            }
            match self.ingest_group(group).await {
                Ok(Some(last)) if last.is_terminal() => return Outcome::Stopped,
                Ok(Some(last)) => state = last,
                Ok(None) => {}
                Err(outcome) => return outcome,
            }
            if let Some(outcome) = failed {
                return outcome;
            }
        }
        if state.is_paused() {
            return self.poll_later();
        }
        Outcome::Closed {
            healthy: opened.elapsed() >= HEALTHY_STREAM,
        }
    }

    /// Ingests a stream's events in one transaction, shared with the groups other followed tasks
    /// queued meanwhile (`ingest::queue`); if that fails, one at a time, so each
    /// event meets the fate it would alone (a bad event is skipped, the rest stored). Returns
    /// the task's state after the last event stored (`None`: nothing was); `Err` is how
    /// following ends (lease lost, or an error to retry).
    async fn ingest_group(&self, group: Vec<Observation>) -> Result<Option<TaskState>, Outcome> {
        let group: Arc<[Observation]> = group.into();
        // Committed with what other followed tasks queued meanwhile (group commit across tasks).
        match self.deps.ingestor.ingest_queued(group.clone()).await {
            Ok(done) => return Ok(done.last().map(|last| last.state.clone())),
            Err(IngestError::LeaseLost) => return Err(Outcome::Abandoned),
            Err(_) if group.len() > 1 => {}
            // One event: its own error decides, as below.
            Err(error) => return Self::failed(&self.target.task.id, error).map(|()| None),
        }
        let mut state = None;
        for observation in group.iter().cloned() {
            if let Some(now) = self.ingest(observation).await? {
                let terminal = now.is_terminal();
                state = Some(now);
                if terminal {
                    break;
                }
            }
        }
        Ok(state)
    }

    /// One GetTask, ingested: `Stopped` at a terminal state, else `PollLater` (a waiting task is
    /// read again after the interval too, until it finishes).
    pub async fn read_once(&self) -> Outcome {
        match self.reconcile().await {
            Ok(Some(state)) if state.is_terminal() => Outcome::Stopped,
            Ok(_) => self.poll_later(),
            Err(outcome) => outcome,
        }
    }

    fn poll_later(&self) -> Outcome {
        Outcome::PollLater {
            turn: self.target.task.turn,
        }
    }

    /// Reads the task with `GetTask` and ingests the snapshot; the task's state after it
    /// (`None` when the answer was not A2A and was skipped).
    async fn reconcile(&self) -> Result<Option<TaskState>, Outcome> {
        self.read(false).await
    }

    /// [`reconcile`](Self::reconcile), answering the state the agent's snapshot reports
    /// instead of the local task's (`None` when it has none).
    async fn read_snapshot(&self) -> Result<Option<TaskState>, Outcome> {
        self.read(true).await
    }

    async fn read(&self, snapshot_state: bool) -> Result<Option<TaskState>, Outcome> {
        let params = encode_get_task(
            &self.target.remote_task_id,
            None,
            &self.target.task.tenant,
            self.target.endpoint.version,
        );
        let answer = self
            .target
            .gateway
            .get_task(&self.target.endpoint, params, &self.target.negotiated)
            .await
            .map_err(|error| Outcome::Again(error.to_string()))?;
        // GetTask returns a bare Task; store it as a 1.0 stream response.
        let payload = if answer.get("task").is_some() || answer.get("kind").is_some() {
            answer
        } else {
            serde_json::json!({ "task": answer })
        };
        // The state the agent's snapshot reports, decoded as ingestion decodes it.
        let reported = match app::a2a::decode_stream_event(&payload).map(|d| d.event) {
            Ok(app::a2a::StreamEvent::Task(snapshot)) => Some(snapshot.status.state),
            _ => None,
        };
        let local = self
            .ingest(self.observation(Source::Reconcile, None, payload))
            .await?;
        Ok(if snapshot_state { reported } else { local })
    }

    /// An observation of the followed task, fenced by the lease.
    fn observation(&self, source: Source, source_key: Option<String>, payload: Value) -> Observation {
        let task = &self.target.task;
        Observation {
            organization_id: task.organization_id.clone(),
            agent_id: task.agent_id.clone(),
            tenant: task.tenant.clone(),
            conversation_id: task.conversation_id.clone(),
            local_task_id: Some(task.id.clone()),
            source,
            source_key,
            payload,
            extensions: self.target.negotiated.clone(),
            protocol_version: Some(self.target.endpoint.version.as_str().to_owned()),
            skill_id: None,
            fence: Some(Fence::Lease(self.lease.clone())),
            rearm: false,
        }
    }

    /// Ingests one observation under the lease; the task's state after it, `None` when the
    /// event was skipped.
    async fn ingest(&self, observation: Observation) -> Result<Option<TaskState>, Outcome> {
        let task = &self.target.task;
        match self.deps.ingestor.ingest(&observation).await {
            Ok(done) => Ok(Some(done.state.clone())),
            Err(error) => Self::failed(&task.id, error).map(|()| None),
        }
    }

    /// What an ingestion error means for following: a bad event is skipped (`Ok`: it is not
    /// the record, the stream goes on); a lost lease abandons the task; anything else is retried.
    fn failed(task_id: &str, error: IngestError) -> Result<(), Outcome> {
        match error {
            IngestError::LeaseLost => Err(Outcome::Abandoned),
            IngestError::Invalid(reason) => {
                tracing::info!(task = %task_id, %reason, "agent sent an event that is not A2A; skipped");
                Ok(())
            }
            error => Err(Outcome::Again(error.to_string())),
        }
    }
}
