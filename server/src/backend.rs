//! The server's implementation of the `app::api` backend traits, over [`services`](crate::services).
//! Provided as Leptos context for server rendering and server-function requests alike.

use std::sync::Arc;

use app::api::agents::{AgentSummary, AgentsBackend};
use app::api::{Backend, BoxFuture};
use app::error::AppError;

use crate::services::agents as agent_services;
use crate::state::AppState;
use crate::store::StoreError;

/// The backend handed to the app for one state.
pub fn backend(state: &AppState) -> Backend {
    Backend {
        agents: Arc::new(Agents(state.clone())),
    }
}

struct Agents(AppState);

impl AgentsBackend for Agents {
    fn list_agents(&self) -> BoxFuture<'_, Result<Vec<AgentSummary>, AppError>> {
        Box::pin(async move {
            agent_services::list_summaries(&self.0.db, &self.0.gateway)
                .await
                .map_err(store_error)
        })
    }
}

/// Maps store failures for the browser: a database fault is logged and shown generically.
fn store_error(error: StoreError) -> AppError {
    match error {
        StoreError::NotFound => AppError::NotFound,
        StoreError::Conflict(message) => AppError::Conflict(message.to_owned()),
        StoreError::Db(error) => {
            tracing::error!(%error, "database error in a server function");
            AppError::Unavailable
        }
    }
}
