//! The agent page's credential panel (admins only: the request guard checks `administer`).
//! The HTTP API's `/api/agents/{id}/credential` routes call the same functions.

use app::api::BoxFuture;
use app::api::credentials::{AgentCredential, CredentialsBackend};
use app::error::AppError;

use super::{caller, store_error};
use crate::db::entity::agent;
use crate::services::credentials::{self, CredentialError};
use crate::state::AppState;
use crate::store::agents as agent_store;
use crate::store::audit::Actor;

pub(super) struct Credentials(pub(super) AppState);

impl CredentialsBackend for Credentials {
    fn get(&self, agent_id: String) -> BoxFuture<'_, Result<AgentCredential, AppError>> {
        Box::pin(async move {
            let caller = caller().await?;
            let agent = agent_store::find(&self.0.db, &caller.access, &agent_id)
                .await
                .map_err(store_error)?;
            describe(&self.0, &agent).await
        })
    }

    fn store(
        &self,
        agent_id: String,
        binding: serde_json::Value,
    ) -> BoxFuture<'_, Result<AgentCredential, AppError>> {
        Box::pin(async move {
            let caller = caller().await?;
            let agent = agent_store::find(&self.0.db, &caller.access, &agent_id)
                .await
                .map_err(store_error)?;
            let json = serde_json::to_vec(&binding).map_err(|_| AppError::Internal)?;
            let actor = Actor::User(caller.user_id.clone());
            credentials::store_binding(
                &self.0.db,
                &self.0.vault,
                &agent.organization_id,
                &agent.id,
                &json,
                &actor,
            )
            .await
            .map_err(credential_error)?;
            describe(&self.0, &agent).await
        })
    }

    fn revoke(&self, agent_id: String) -> BoxFuture<'_, Result<AgentCredential, AppError>> {
        Box::pin(async move {
            let caller = caller().await?;
            let agent = agent_store::find(&self.0.db, &caller.access, &agent_id)
                .await
                .map_err(store_error)?;
            let actor = Actor::User(caller.user_id.clone());
            credentials::revoke(&self.0.db, &agent.organization_id, &agent.id, &actor)
                .await
                .map_err(credential_error)?;
            describe(&self.0, &agent).await
        })
    }
}

/// The panel's view of `agent`.
async fn describe(state: &AppState, agent: &agent::Model) -> Result<AgentCredential, AppError> {
    credentials::describe_agent(&state.db, &state.vault, agent)
        .await
        .map_err(store_error)
}

/// A refused change as the browser sees it: the binding's field, or the vault's fixed message.
pub(crate) fn credential_error(error: CredentialError) -> AppError {
    match error {
        CredentialError::Binding(error) => AppError::Invalid {
            field: "binding".into(),
            message: error.0,
        },
        CredentialError::Vault(error) => AppError::Conflict(error.to_string()),
        CredentialError::Store(error) => store_error(error),
    }
}
