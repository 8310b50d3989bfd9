//! The server's implementation of the `app::api` backend traits, over [`services`](crate::services).
//! Provided as Leptos context for server rendering and server-function requests alike.

use std::sync::Arc;

use app::api::agents::{AgentDetail, AgentPreview, AgentSummary, AgentsBackend};
use app::api::{Backend, BoxFuture};
use app::error::AppError;

use crate::config::validate_card_url;
use crate::services::agents::{self as agent_services, AgentServiceError, CardPreview};
use crate::state::AppState;
use crate::store::StoreError;
use crate::store::access::Access;
use crate::store::agents::{self as agent_store, AgentSource};

mod approvals;
pub(crate) mod credentials;
mod tasks;

/// The backend handed to the app for one state.
pub fn backend(state: &AppState) -> Backend {
    Backend {
        access: Arc::new(AccessAdmin(state.clone())),
        agents: Arc::new(Agents(state.clone())),
        approvals: Arc::new(approvals::Approvals(state.clone())),
        credentials: Arc::new(credentials::Credentials(state.clone())),
        identity: Arc::new(Identity(state.clone())),
        tasks: Arc::new(tasks::Tasks(state.clone())),
    }
}

/// The caller the request guard identified for this request (every server function and page
/// render is behind the guard).
pub(crate) async fn caller() -> Result<crate::http::api::principal::Principal, AppError> {
    let axum::Extension(principal) =
        leptos_axum::extract::<axum::Extension<crate::http::api::principal::Principal>>()
            .await
            .map_err(|_| AppError::Internal)?;
    Ok(principal)
}

/// What the caller may reach: every read and change goes through it.
pub(crate) async fn access() -> Result<Access, AppError> {
    Ok(caller().await?.access)
}

/// The Access screen's backend (admins only: the request guard checks `administer` first).
struct AccessAdmin(AppState);

impl app::api::access::AccessBackend for AccessAdmin {
    fn overview(&self) -> BoxFuture<'_, Result<app::api::access::AccessOverview, AppError>> {
        Box::pin(async move {
            let caller = caller().await?;
            crate::store::access_admin::overview(&self.0.db, caller.organization_id())
                .await
                .map_err(store_error)
        })
    }

    fn change(&self, change: app::api::access::AccessChange) -> BoxFuture<'_, Result<String, AppError>> {
        Box::pin(async move {
            let caller = caller().await?;
            crate::store::access_admin::apply(
                &self.0.db,
                caller.organization_id(),
                &crate::store::audit::Actor::User(caller.user_id.clone()),
                change,
            )
            .await
            .map_err(store_error)
        })
    }
}

/// The identity menu's backend: the caller the request guard identified.
struct Identity(AppState);

impl app::api::identity::IdentityBackend for Identity {
    fn current(&self) -> BoxFuture<'_, Result<app::api::identity::Identity, AppError>> {
        Box::pin(async move {
            let principal = caller().await?;
            Ok(app::api::identity::Identity {
                membership_id: principal.membership_id,
                display_name: principal.display_name,
                role: principal.role,
                signed_in: matches!(*self.0.auth, crate::http::identity::Auth::Oidc(_)),
            })
        })
    }

    fn sign_out(&self) -> BoxFuture<'_, Result<(), AppError>> {
        Box::pin(async move {
            let parts = leptos_axum::extract::<http::request::Parts>()
                .await
                .map_err(|_| AppError::Internal)?;
            let cleared = crate::http::identity::end_session(&self.0, &parts.headers)
                .await
                .map_err(store_error)?;
            if let Some(response) = leptos::prelude::use_context::<leptos_axum::ResponseOptions>() {
                response.append_header(http::header::SET_COOKIE, cleared);
            }
            Ok(())
        })
    }
}

struct Agents(AppState);

impl AgentsBackend for Agents {
    fn list_agents(&self) -> BoxFuture<'_, Result<Vec<AgentSummary>, AppError>> {
        Box::pin(async move {
            let access = access().await?;
            agent_services::list_summaries(&self.0.db, &self.0.gateway, &self.0.vault, &access)
                .await
                .map_err(store_error)
        })
    }

    fn preview_agent(&self, card_url: String) -> BoxFuture<'_, Result<AgentPreview, AppError>> {
        Box::pin(async move {
            let url = validate_card_url(&card_url).map_err(invalid_card_url)?;
            let preview = agent_services::preview_card(&self.0.gateway, url.as_str())
                .await
                .map_err(service_error)?;
            Ok(preview_view(url.as_str(), preview))
        })
    }

    fn register_agent(&self, card_url: String) -> BoxFuture<'_, Result<String, AppError>> {
        Box::pin(async move {
            let url = validate_card_url(&card_url).map_err(invalid_card_url)?;
            let access = access().await?;
            let agent = agent_store::register(
                &self.0.db,
                &access.organization_id,
                url.as_str(),
                AgentSource::Managed,
            )
            .await
            .map_err(store_error)?;
            // The card is fetched now so the list shows it; a failure is recorded on the agent.
            if let Err(error) =
                agent_services::discover(&self.0.db, &self.0.gateway, &self.0.vault, &agent).await
            {
                tracing::info!(agent = %agent.id, %error, "registered agent is not reachable yet");
            }
            Ok(agent.id)
        })
    }

    fn get_agent(&self, agent_id: String) -> BoxFuture<'_, Result<AgentDetail, AppError>> {
        Box::pin(async move {
            let access = access().await?;
            let agent = agent_store::find(&self.0.db, &access, &agent_id)
                .await
                .map_err(store_error)?;
            agent_services::detail(&self.0.db, &self.0.gateway, &self.0.vault, agent, &access)
                .await
                .map_err(store_error)
        })
    }

    fn agent_choices(&self) -> BoxFuture<'_, Result<Vec<app::api::agents::AgentChoice>, AppError>> {
        Box::pin(async move {
            let access = access().await?;
            let agents = agent_store::list(&self.0.db, &access)
                .await
                .map_err(store_error)?;
            Ok(agents
                .into_iter()
                .map(|a| app::api::agents::AgentChoice {
                    name: a.display_name.unwrap_or_else(|| a.card_url.clone()),
                    id: a.id,
                })
                .collect())
        })
    }

    fn probe_interfaces(
        &self,
        agent_id: String,
    ) -> BoxFuture<'_, Result<Vec<app::api::agents::InterfaceProbe>, AppError>> {
        Box::pin(async move {
            let access = access().await?;
            let agent = agent_store::find(&self.0.db, &access, &agent_id)
                .await
                .map_err(store_error)?;
            agent_services::probe::interfaces(&self.0.db, &self.0.gateway, &self.0.vault, &agent)
                .await
                .map_err(store_error)
        })
    }

    fn set_interface_pin(
        &self,
        agent_id: String,
        pin: Option<app::a2a::InterfacePin>,
    ) -> BoxFuture<'_, Result<(), AppError>> {
        Box::pin(async move {
            let access = access().await?;
            let agent = agent_store::find(&self.0.db, &access, &agent_id)
                .await
                .map_err(store_error)?;
            let value = match pin {
                Some(pin) => {
                    // The pin must select an interface of the latest card the console can speak.
                    let snapshot = crate::store::card_snapshots::latest(&self.0.db, &agent.id)
                        .await
                        .map_err(store_error)?
                        .ok_or_else(|| {
                            invalid_interface("The agent's card has not been fetched yet.".into())
                        })?;
                    let card = app::a2a::AgentCard::decode(&snapshot.raw_card_json)
                        .map_err(|e| invalid_interface(e.to_string()))?;
                    app::a2a::choose_interface(&card.interfaces, &pin)
                        .map_err(|e| invalid_interface(e.to_string()))?;
                    Some(serde_json::to_value(&pin).map_err(|_| AppError::Internal)?)
                }
                None => None,
            };
            agent_store::set_interface_pin(&self.0.db, &access.organization_id, &agent.id, value)
                .await
                .map_err(store_error)?;
            Ok(())
        })
    }

    fn extensions(
        &self,
        agent_id: String,
        caller: Vec<String>,
        skill: Option<String>,
    ) -> BoxFuture<'_, Result<app::api::extensions::AgentExtensions, AppError>> {
        Box::pin(async move {
            let access = access().await?;
            let agent = agent_store::find(&self.0.db, &access, &agent_id)
                .await
                .map_err(store_error)?;
            let snapshot = crate::store::card_snapshots::latest(&self.0.db, &agent.id)
                .await
                .map_err(store_error)?;
            // A skill the member may not see is no skill at all to them (its name and routing
            // would show in the answer).
            let skill = skill.filter(|skill| access.shows_skill(&agent.id, skill));
            let mut extensions = snapshot.map_or_else(Default::default, |s| {
                app::api::extensions::AgentExtensions::from_card(
                    &s.raw_card_json,
                    &caller,
                    &self.0.understood_sideband(),
                    skill.as_deref(),
                )
            });
            // A skill-only member chooses among their skills only (§1.3).
            extensions
                .skills
                .retain(|choice| access.shows_skill(&agent.id, &choice.id));
            Ok(extensions)
        })
    }

    fn remove_agent(&self, agent_id: String) -> BoxFuture<'_, Result<(), AppError>> {
        Box::pin(async move {
            let access = access().await?;
            agent_store::remove(&self.0.db, &access.organization_id, &agent_id)
                .await
                .map_err(store_error)
        })
    }
}

fn invalid_interface(message: String) -> AppError {
    AppError::Invalid {
        field: "interface".into(),
        message,
    }
}

fn invalid_card_url(message: String) -> AppError {
    AppError::Invalid {
        field: "cardUrl".into(),
        message,
    }
}

/// Agent-side failures are shown as the reason the card could not be used.
fn service_error(error: AgentServiceError) -> AppError {
    match error {
        AgentServiceError::Store(error) => store_error(error),
        other => invalid_card_url(other.to_string()),
    }
}

fn preview_view(card_url: &str, preview: CardPreview) -> AgentPreview {
    AgentPreview {
        card_url: card_url.to_owned(),
        resolved_url: preview.resolved_url,
        skills: preview
            .card
            .skills
            .iter()
            .map(|skill| skill.name.clone())
            .collect(),
        name: preview.card.name,
        description: preview.card.description,
        card_version: preview.card.version,
        report: preview.report,
    }
}

/// Maps store failures for the browser: a database fault is logged and shown generically.
pub(crate) fn store_error(error: StoreError) -> AppError {
    match error {
        StoreError::NotFound => AppError::NotFound,
        StoreError::Conflict(message) => AppError::Conflict(message.to_owned()),
        StoreError::Db(error) => {
            tracing::error!(%error, "database error in a server function");
            AppError::Unavailable
        }
    }
}
