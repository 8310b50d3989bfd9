//! The A2A operations of the demo agent, shared by both bindings and both protocol versions:
//! send (blocking or streaming), get, list, cancel and subscribe, over one store per variant.
//! Background runs are owned by a `TaskTracker` and stop at shutdown.

use std::pin::Pin;
use std::sync::Arc;

use app::a2a::TaskState;
use futures::Stream;
use futures::StreamExt as _;
use serde_json::{Value, json};
use tokio::sync::broadcast::error::RecvError;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::error::A2aError;
use super::runner::{self, Run};
use super::scenario;
use super::store::{Attached, ListQuery, TaskStore};
use super::task_json::task_state;
use super::variant::Variant;
use super::wire::Incoming;

/// A stream of 1.0 StreamResponse objects (`{"task"}`, `{"statusUpdate"}`, …).
pub(crate) type EventStream = Pin<Box<dyn Stream<Item = Value> + Send>>;

/// The whole demo agent: every variant's tasks, the runs working on them and the shutdown
/// signal. Cheap to clone.
#[derive(Clone)]
pub(crate) struct Agent {
    inner: Arc<Inner>,
}

struct Inner {
    /// One store per variant, in `Variant::ALL` order.
    stores: Vec<TaskStore>,
    /// Owns every background run; awaited at shutdown.
    tracker: TaskTracker,
    /// Cancelled at shutdown: stops runs and ends open streams.
    shutdown: CancellationToken,
    /// Push notification configs, by task.
    push: super::push::Configs,
}

impl Agent {
    /// An agent with empty stores.
    pub(crate) fn new() -> Agent {
        let shutdown = CancellationToken::new();
        let stores = Variant::ALL
            .iter()
            .map(|v| TaskStore::new(v.name(), shutdown.clone()))
            .collect();
        Agent {
            inner: Arc::new(Inner {
                stores,
                tracker: TaskTracker::new(),
                shutdown,
                push: super::push::Configs::default(),
            }),
        }
    }

    /// Stops every run and stream, then waits for the runs to finish.
    pub(crate) async fn shut_down(&self) {
        self.inner.shutdown.cancel();
        self.inner.tracker.close();
        self.inner.tracker.wait().await;
    }

    /// A future that resolves at shutdown.
    pub(crate) fn shutdown_token(&self) -> CancellationToken {
        self.inner.shutdown.clone()
    }

    pub(crate) fn push_configs(&self) -> &super::push::Configs {
        &self.inner.push
    }

    /// Owns background work (runs, push deliveries); awaited at shutdown.
    pub(crate) fn tracker(&self) -> &TaskTracker {
        &self.inner.tracker
    }

    fn store(&self, variant: Variant) -> &TaskStore {
        let index = Variant::ALL.iter().position(|v| *v == variant).unwrap_or(0);
        &self.inner.stores[index]
    }

    /// SendMessage: runs the scenario and answers at a terminal or interrupted state (or at
    /// once with `returnImmediately`). Returns the Task.
    pub(crate) async fn send(&self, variant: Variant, params: &Value) -> Result<Value, A2aError> {
        let incoming = Incoming::from_params(params)?;
        let attached = self.launch(variant, &incoming)?;
        if incoming.return_immediately {
            return Ok(attached.snapshot);
        }
        let task_id = attached.task_id.clone();
        // Following to the end is how a blocking send waits; the events themselves are not needed.
        self.follow(variant, attached).for_each(|_| async {}).await;
        self.store(variant).get(&task_id, history_length(params))
    }

    /// SendStreamingMessage: the task, then its updates until a terminal or interrupted state.
    pub(crate) fn stream(&self, variant: Variant, params: &Value) -> Result<EventStream, A2aError> {
        let incoming = Incoming::from_params(params)?;
        let attached = self.launch(variant, &incoming)?;
        Ok(self.follow(variant, attached))
    }

    /// GetTask.
    pub(crate) fn get(&self, variant: Variant, params: &Value) -> Result<Value, A2aError> {
        self.store(variant).get(&task_id(params)?, history_length(params))
    }

    /// CancelTask.
    pub(crate) fn cancel(&self, variant: Variant, params: &Value) -> Result<Value, A2aError> {
        self.store(variant).cancel(&task_id(params)?)
    }

    /// SubscribeToTask: the current task, then live updates until it stops.
    pub(crate) fn subscribe(&self, variant: Variant, params: &Value) -> Result<EventStream, A2aError> {
        let attached = self.store(variant).subscribe(&task_id(params)?)?;
        Ok(self.follow(variant, attached))
    }

    /// ListTasks.
    pub(crate) fn list(&self, variant: Variant, query: &ListQuery) -> Result<Value, A2aError> {
        self.store(variant).list(query)
    }

    /// Starts (or continues) the task and plays the variant's script on it in the background.
    fn launch(&self, variant: Variant, incoming: &Incoming) -> Result<Attached, A2aError> {
        let store = self.store(variant);
        let started = store.start(incoming)?;
        let run = Run {
            store: store.clone(),
            task_id: started.attached.task_id.clone(),
            cancel: started.cancel,
            finished: started.attached.run_finished.clone(),
            detached: incoming.return_immediately,
        };
        self.inner
            .tracker
            .spawn(runner::run(run, scenario::plan(variant, incoming)));
        Ok(started.attached)
    }

    /// The attached task's snapshot, then its events until the stream should close.
    fn follow(&self, variant: Variant, attached: Attached) -> EventStream {
        let state = Follow {
            first: Some(json!({ "task": attached.snapshot })),
            events: attached.events,
            run_finished: attached.run_finished,
            store: self.store(variant).clone(),
            task_id: attached.task_id,
            done: false,
        };
        let shutdown = self.inner.shutdown.clone();
        futures::stream::unfold(state, Follow::next)
            .take_until(shutdown.cancelled_owned())
            .boxed()
    }
}

/// The state of one follower.
struct Follow {
    first: Option<Value>,
    events: tokio::sync::broadcast::Receiver<Value>,
    run_finished: CancellationToken,
    store: TaskStore,
    task_id: String,
    done: bool,
}

impl Follow {
    async fn next(mut self) -> Option<(Value, Follow)> {
        if let Some(first) = self.first.take() {
            self.done = TaskState::parse(task_state(&first["task"])).ends_stream();
            return Some((first, self));
        }
        if self.done {
            return None;
        }
        tokio::select! {
            biased;
            received = self.events.recv() => match received {
                Ok(event) => {
                    let state = event.pointer("/statusUpdate/status/state").and_then(Value::as_str).unwrap_or("");
                    self.done = TaskState::parse(state).ends_stream();
                    Some((event, self))
                }
                Err(RecvError::Lagged(_)) => {
                    // Too slow for the buffer: resynchronise with a snapshot.
                    let task = self.store.snapshot(&self.task_id)?;
                    self.done = TaskState::parse(task_state(&task)).ends_stream();
                    Some((json!({ "task": task }), self))
                }
                Err(RecvError::Closed) => None,
            },
            // The run ended without a closing status (shutdown, or a subscriber on an idle task).
            () = self.run_finished.cancelled() => None,
        }
    }
}

fn task_id(params: &Value) -> Result<String, A2aError> {
    params
        .get("id")
        .and_then(Value::as_str)
        .filter(|id| !id.is_empty())
        .map(str::to_owned)
        .ok_or_else(|| A2aError::InvalidParams("params.id must be a task id".into()))
}

fn history_length(params: &Value) -> Option<usize> {
    params
        .get("historyLength")
        .or_else(|| params.pointer("/configuration/historyLength"))
        .and_then(|v| v.as_u64().or_else(|| v.as_str().and_then(|s| s.parse().ok())))
        .and_then(|n| usize::try_from(n).ok())
}

/// ListTasks parameters from a JSON object (JSON-RPC params or REST query).
pub(crate) fn list_query(params: &Value) -> ListQuery {
    let text = |key: &str| params.get(key).and_then(Value::as_str).map(str::to_owned);
    let number = |key: &str| {
        params
            .get(key)
            .and_then(|v| v.as_u64().or_else(|| v.as_str().and_then(|s| s.parse().ok())))
            .and_then(|n| usize::try_from(n).ok())
    };
    ListQuery {
        context_id: text("contextId"),
        status: text("status"),
        page_size: number("pageSize"),
        page_token: text("pageToken"),
        history_length: number("historyLength"),
        include_artifacts: params
            .get("includeArtifacts")
            .and_then(|v| v.as_bool().or_else(|| v.as_str().map(|s| s == "true")))
            .unwrap_or(false),
    }
}
