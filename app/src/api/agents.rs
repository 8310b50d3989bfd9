//! Server functions of the Agents screen.

use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::AppError;

/// One row of the agent list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentSummary {
    pub id: String,
    pub card_url: String,
    /// False for agents seeded from `A2A_REGISTERED_AGENTS`.
    pub removable: bool,
    /// The card's name; `None` when the card could not be fetched.
    pub name: Option<String>,
    pub description: Option<String>,
    /// The card's protocol version (`1.0`, `0.3`).
    pub protocol_version: Option<String>,
    /// The card's own version string.
    pub card_version: Option<String>,
    /// Skill names, for display and search.
    pub skills: Vec<String>,
    /// The first security scheme's name, or `None` for "no auth".
    pub auth: Option<String>,
    /// Why discovery failed, when it did.
    pub error: Option<String>,
}

impl AgentSummary {
    /// Whether the latest discovery reached the agent.
    pub fn reachable(&self) -> bool {
        self.error.is_none()
    }

    /// Whether the row matches a search over name, description, skill names and card URL.
    pub fn matches(&self, query: &str) -> bool {
        let query = query.trim().to_lowercase();
        if query.is_empty() {
            return true;
        }
        let hit = |text: &str| text.to_lowercase().contains(&query);
        self.name.as_deref().is_some_and(hit)
            || self.description.as_deref().is_some_and(hit)
            || self.skills.iter().any(|s| hit(s))
            || hit(&self.card_url)
    }
}

/// What the Agents screen needs from the server.
#[cfg(feature = "ssr")]
pub trait AgentsBackend: Send + Sync {
    /// Every registered agent, each with a fresh discovery of its card.
    fn list_agents(&self) -> crate::api::BoxFuture<'_, Result<Vec<AgentSummary>, AppError>>;
}

/// The registered agents, discovered now (the list shows live reachability).
#[server(prefix = "/api/fn", endpoint = "list_agents")]
pub async fn list_agents() -> Result<Vec<AgentSummary>, AppError> {
    crate::api::backend()?.agents.list_agents().await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary() -> AgentSummary {
        AgentSummary {
            id: "a".into(),
            card_url: "http://127.0.0.1:4010/form/card.json".into(),
            removable: true,
            name: Some("Deploy bot".into()),
            description: Some("Ships services".into()),
            protocol_version: Some("1.0".into()),
            card_version: Some("1.0.0".into()),
            skills: vec!["Rollback".into()],
            auth: None,
            error: None,
        }
    }

    #[test]
    fn search_covers_name_description_skills_and_url() {
        let row = summary();
        for query in ["deploy", "SHIPS", "rollback", "4010/form", "", "  "] {
            assert!(row.matches(query), "{query}");
        }
        assert!(!row.matches("billing"));
    }
}
