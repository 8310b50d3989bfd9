//! Push notification configs of the demo agent (A2A 1.0 JSON-RPC, spec A.6): Create, Get,
//! List and Delete `TaskPushNotificationConfig`, and delivery: while a config exists, every
//! event of its task is POSTed to the config's URL as an A2A 1.0 `StreamResponse`, with
//! `Authorization: <scheme> <credentials>`, retried three times on failure. The config id the
//! client supplies is kept (a client detects a create whose answer it lost by reading it back).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use app::a2a::{ProtocolVersion, PushConfig, TaskState};
use futures::StreamExt as _;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::error::A2aError;
use super::service::Agent;
use super::task_json::task_state;
use super::variant::Variant;

/// The configs of each (variant name, task id), each with the token that stops its delivery.
type ByTask = HashMap<(&'static str, String), Vec<(PushConfig, CancellationToken)>>;

/// Configs by (variant, task id), each by config id.
#[derive(Clone, Default)]
pub(crate) struct Configs(Arc<Mutex<ByTask>>);

impl Configs {
    fn lock(&self) -> std::sync::MutexGuard<'_, ByTask> {
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn get(&self, variant: Variant, task: &str, id: &str) -> Option<PushConfig> {
        self.lock()
            .get(&(variant.name(), task.to_owned()))?
            .iter()
            .find(|(c, _)| c.id.as_deref() == Some(id))
            .map(|(c, _)| c.clone())
    }

    /// Removes config `id` of the task and stops its delivery; whether there was one.
    fn remove(&self, variant: Variant, task: &str, id: &str) -> bool {
        let mut configs = self.lock();
        let Some(list) = configs.get_mut(&(variant.name(), task.to_owned())) else {
            return false;
        };
        let before = list.len();
        list.retain(|(c, stop)| {
            let keep = c.id.as_deref() != Some(id);
            if !keep {
                stop.cancel();
            }
            keep
        });
        list.len() != before
    }
}

fn param<'a>(params: &'a Value, key: &str) -> Result<&'a str, A2aError> {
    params
        .get(key)
        .and_then(Value::as_str)
        .filter(|v| !v.is_empty())
        .ok_or_else(|| A2aError::InvalidParams(format!("params.{key} is required")))
}

impl Agent {
    /// `CreateTaskPushNotificationConfig`: stores the config (replacing one with the same id)
    /// and starts delivering the task's events to it.
    pub(crate) fn push_create(&self, variant: Variant, params: &Value) -> Result<Value, A2aError> {
        let task_id = param(params, "taskId")?.to_owned();
        self.get(variant, &json!({ "id": task_id }))?;
        let mut config =
            PushConfig::decode(params).map_err(|e| A2aError::InvalidParams(format!("push config: {e}")))?;
        let id = config
            .id
            .clone()
            .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
        config.id = Some(id.clone());
        config.task_id = Some(task_id.clone());
        // A config with the same id is replaced: its delivery stops, the new one starts.
        self.push_configs().remove(variant, &task_id, &id);
        let stop = self.shutdown_token().child_token();
        self.push_configs()
            .lock()
            .entry((variant.name(), task_id.clone()))
            .or_default()
            .push((config.clone(), stop.clone()));
        self.tracker()
            .spawn(deliver(self.clone(), variant, task_id, config.clone(), stop));
        Ok(config.encode(ProtocolVersion::V1_0))
    }

    /// `GetTaskPushNotificationConfig`.
    pub(crate) fn push_get(&self, variant: Variant, params: &Value) -> Result<Value, A2aError> {
        let (task_id, id) = (param(params, "taskId")?, param(params, "id")?);
        self.push_configs()
            .get(variant, task_id, id)
            .map(|c| c.encode(ProtocolVersion::V1_0))
            .ok_or_else(|| A2aError::TaskNotFound(format!("{task_id} has no push config {id}")))
    }

    /// `ListTaskPushNotificationConfigs`.
    pub(crate) fn push_list(&self, variant: Variant, params: &Value) -> Result<Value, A2aError> {
        let task_id = param(params, "taskId")?;
        let configs: Vec<Value> = self
            .push_configs()
            .lock()
            .get(&(variant.name(), task_id.to_owned()))
            .into_iter()
            .flatten()
            .map(|(c, _)| c.encode(ProtocolVersion::V1_0))
            .collect();
        Ok(json!({ "configs": configs, "nextPageToken": "" }))
    }

    /// `DeleteTaskPushNotificationConfig`; an unknown config is `TaskNotFound`.
    pub(crate) fn push_delete(&self, variant: Variant, params: &Value) -> Result<Value, A2aError> {
        let (task_id, id) = (param(params, "taskId")?, param(params, "id")?);
        if !self.push_configs().remove(variant, task_id, id) {
            return Err(A2aError::TaskNotFound(format!(
                "{task_id} has no push config {id}"
            )));
        }
        Ok(json!({}))
    }
}

/// Delivers the task's events to `config` until `stop` (the config deleted or replaced, or
/// shutdown) or the task finishes: the task now, then each event; after a pause in the work
/// (input required), again once it moves on.
async fn deliver(
    agent: Agent,
    variant: Variant,
    task_id: String,
    config: PushConfig,
    stop: CancellationToken,
) {
    let Some(tls) = crate::gateway::client::client_tls(None, None) else {
        return;
    };
    let Ok(client) = reqwest::Client::builder()
        .tls_backend_preconfigured(tls)
        .timeout(Duration::from_secs(10))
        .build()
    else {
        return;
    };
    let mut last_snapshot = Value::Null;
    while !stop.is_cancelled() {
        let Ok(mut events) = agent.subscribe(variant, &json!({ "id": task_id })) else {
            return;
        };
        loop {
            let event = tokio::select! {
                () = stop.cancelled() => return,
                event = events.next() => event,
            };
            let Some(event) = event else { break };
            if event.get("task").is_some() {
                if event == last_snapshot {
                    continue;
                }
                last_snapshot = event.clone();
            }
            tokio::select! {
                () = stop.cancelled() => return,
                () = post(&client, &config, &event) => {}
            }
        }
        let finished = agent
            .get(variant, &json!({ "id": task_id }))
            .map(|task| TaskState::parse(task_state(&task)).is_terminal())
            .unwrap_or(true);
        if finished {
            return;
        }
        // Paused: look again in a second (a reply starts a new run to follow).
        tokio::select! {
            () = stop.cancelled() => return,
            () = tokio::time::sleep(Duration::from_secs(1)) => {}
        }
    }
}

/// One delivery, tried up to three times.
async fn post(client: &reqwest::Client, config: &PushConfig, event: &Value) {
    for attempt in 1..=3u64 {
        let mut request = client.post(&config.url).json(event);
        if let Some(auth) = &config.authentication {
            let credentials = auth.credentials.as_deref().unwrap_or_default();
            request = request.header("authorization", format!("{} {credentials}", auth.scheme));
        }
        match request.send().await {
            Ok(answer) if answer.status().is_success() => return,
            // A refusal the receiver means (authentication, identity): not retried.
            Ok(answer) if answer.status().is_client_error() && answer.status().as_u16() != 429 => return,
            _ => tokio::time::sleep(Duration::from_millis(200 * attempt)).await,
        }
    }
}
