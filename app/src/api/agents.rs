//! Server functions of the Agents screen.

use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::a2a::{AgentCard, ComplianceReport, InterfacePin};
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
    /// Whether the console can call it as far as credentials go.
    #[serde(default)]
    pub credential: crate::api::credentials::CredentialState,
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

/// What the "Add agent" flow shows before connecting: the card and its compliance report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentPreview {
    pub card_url: String,
    /// The URL the card was found at (after the discovery fallbacks).
    pub resolved_url: String,
    pub name: String,
    pub description: String,
    pub card_version: String,
    pub skills: Vec<String>,
    pub report: ComplianceReport,
}

/// One agent with its card, for the agent detail page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AgentDetail {
    pub id: String,
    pub card_url: String,
    pub removable: bool,
    /// Why fetching the card failed just now; the card shown is then the last stored one.
    pub error: Option<String>,
    /// The card (fresh, or the latest snapshot when the agent is unreachable).
    pub card: Option<AgentCard>,
    pub report: Option<ComplianceReport>,
    pub resolved_url: Option<String>,
    /// The interface the operator pinned the agent to; `None` uses the first one the console speaks.
    pub pin: Option<InterfacePin>,
    /// Whether the console can call it as far as credentials go.
    #[serde(default)]
    pub credential: crate::api::credentials::CredentialState,
    /// What the card's signatures prove (`unsigned` when no card was fetched).
    #[serde(default = "unsigned")]
    pub trust: crate::words::CardTrust,
    /// The card exactly as served (or stored), skills the viewer may not see left out: the
    /// agent page's "Card JSON".
    #[serde(default)]
    pub raw_card: Option<serde_json::Value>,
}

/// An agent as a filter offers it: its id and name, read from the database (no discovery).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentChoice {
    pub id: String,
    /// The card's name as last stored, else the card URL.
    pub name: String,
}

/// How one interface of an agent's card answered a reachability probe (the agent page).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InterfaceProbe {
    pub url: String,
    pub binding: String,
    pub protocol_version: String,
    /// The agent answered (whatever it said).
    pub reachable: bool,
    /// One line: "Answered in 12 ms (HTTP 404)", "No answer: …", "Not probed: …".
    pub outcome: String,
    pub latency_ms: Option<u64>,
}

fn unsigned() -> crate::words::CardTrust {
    crate::words::CardTrust::Unsigned
}

/// What the chat needs of an agent's card: its name and the modes it declares, not the whole
/// card (security schemes, interfaces, signatures).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatAgent {
    pub id: String,
    /// The card's name; `None` when no card was ever fetched.
    pub name: Option<String>,
    pub default_input_modes: Vec<String>,
    pub default_output_modes: Vec<String>,
    /// Whether the console can call it as far as credentials go (the chat says why not).
    #[serde(default)]
    pub credential: crate::api::credentials::CredentialState,
    /// Starter prompts for an empty chat: the card's skill `examples`, without repeats.
    #[serde(default)]
    pub starters: Vec<String>,
}

/// At most this many starter prompts are offered.
pub const MAX_STARTERS: usize = 6;

impl ChatAgent {
    /// The chat's view of an agent and its card (fresh or the latest snapshot).
    pub fn of(detail: &AgentDetail) -> ChatAgent {
        let card = detail.card.as_ref();
        ChatAgent {
            id: detail.id.clone(),
            name: card.map(|c| c.name.clone()),
            default_input_modes: card.map(|c| c.default_input_modes.clone()).unwrap_or_default(),
            default_output_modes: card.map(|c| c.default_output_modes.clone()).unwrap_or_default(),
            credential: detail.credential,
            starters: card.map(starters_of).unwrap_or_default(),
        }
    }
}

/// The card's skill examples in order, trimmed, without blanks or repeats, at most
/// [`MAX_STARTERS`].
fn starters_of(card: &crate::a2a::AgentCard) -> Vec<String> {
    let mut starters: Vec<String> = Vec::new();
    for example in card.skills.iter().flat_map(|s| s.examples.iter()) {
        let example = example.trim();
        if !example.is_empty() && !starters.iter().any(|s| s == example) && starters.len() < MAX_STARTERS {
            starters.push(example.to_owned());
        }
    }
    starters
}

/// What the Agents screen needs from the server.
#[cfg(feature = "ssr")]
pub trait AgentsBackend: Send + Sync {
    /// Every registered agent, each with a fresh discovery of its card.
    fn list_agents(&self) -> crate::api::BoxFuture<'_, Result<Vec<AgentSummary>, AppError>>;
    /// Fetches and checks a card without registering anything.
    fn preview_agent(&self, card_url: String) -> crate::api::BoxFuture<'_, Result<AgentPreview, AppError>>;
    /// Registers a card URL (the same URL twice is one agent) and returns the agent id.
    fn register_agent(&self, card_url: String) -> crate::api::BoxFuture<'_, Result<String, AppError>>;
    /// One agent with a fresh discovery of its card (the latest snapshot if that fails).
    fn get_agent(&self, agent_id: String) -> crate::api::BoxFuture<'_, Result<AgentDetail, AppError>>;
    /// The registered agents' ids and stored names, for filters (no card is fetched).
    fn agent_choices(&self) -> crate::api::BoxFuture<'_, Result<Vec<AgentChoice>, AppError>>;
    /// Asks each interface of the agent's latest card for a task that does not exist, to see
    /// which ones answer.
    fn probe_interfaces(
        &self,
        agent_id: String,
    ) -> crate::api::BoxFuture<'_, Result<Vec<InterfaceProbe>, AppError>>;
    /// Removes a managed agent from the list; its history stays.
    fn remove_agent(&self, agent_id: String) -> crate::api::BoxFuture<'_, Result<(), AppError>>;
    /// Pins the agent to one interface of its latest card, or unpins it with `None`.
    fn set_interface_pin(
        &self,
        agent_id: String,
        pin: Option<InterfacePin>,
    ) -> crate::api::BoxFuture<'_, Result<(), AppError>>;
    /// The agent's extensions from its stored card, for the chat.
    fn extensions(
        &self,
        agent_id: String,
        caller: Vec<String>,
        skill: Option<String>,
    ) -> crate::api::BoxFuture<'_, Result<crate::api::extensions::AgentExtensions, AppError>>;
}

/// The registered agents, discovered now (the list shows live reachability).
#[server(prefix = "/api/fn", endpoint = "list_agents")]
pub async fn list_agents() -> Result<Vec<AgentSummary>, AppError> {
    crate::api::respond(async { crate::api::backend()?.agents.list_agents().await }.await)
}

/// Fetches the card at `card_url` and reports on it; nothing is stored.
#[server(prefix = "/api/fn", endpoint = "preview_agent")]
pub async fn preview_agent(card_url: String) -> Result<AgentPreview, AppError> {
    crate::api::respond(async { crate::api::backend()?.agents.preview_agent(card_url).await }.await)
}

/// Registers the agent whose card is at `card_url`.
#[server(prefix = "/api/fn", endpoint = "register_agent")]
pub async fn register_agent(card_url: String) -> Result<String, AppError> {
    crate::api::respond(async { crate::api::backend()?.agents.register_agent(card_url).await }.await)
}

/// One agent and its card, fetched again now.
#[server(prefix = "/api/fn", endpoint = "get_agent")]
pub async fn get_agent(agent_id: String) -> Result<AgentDetail, AppError> {
    crate::api::respond(async { crate::api::backend()?.agents.get_agent(agent_id).await }.await)
}

/// The registered agents by name, for the Tasks screen's agent filter.
#[server(prefix = "/api/fn", endpoint = "list_agent_choices")]
pub async fn list_agent_choices() -> Result<Vec<AgentChoice>, AppError> {
    crate::api::respond(async { crate::api::backend()?.agents.agent_choices().await }.await)
}

/// Which interfaces of the agent's card answer now (the agent page's reachability).
#[server(prefix = "/api/fn", endpoint = "probe_agent_interfaces")]
pub async fn probe_agent_interfaces(agent_id: String) -> Result<Vec<InterfaceProbe>, AppError> {
    crate::api::respond(async { crate::api::backend()?.agents.probe_interfaces(agent_id).await }.await)
}

/// One agent and its card fetched again now, as the chat needs it ([`ChatAgent`]).
#[server(prefix = "/api/fn", endpoint = "get_chat_agent")]
pub async fn get_chat_agent(agent_id: String) -> Result<ChatAgent, AppError> {
    crate::api::respond(
        async {
            let detail = crate::api::backend()?.agents.get_agent(agent_id).await?;
            Ok(ChatAgent::of(&detail))
        }
        .await,
    )
}

/// Removes a managed agent (agents from `A2A_REGISTERED_AGENTS` answer `Conflict`).
#[server(prefix = "/api/fn", endpoint = "remove_agent")]
pub async fn remove_agent(agent_id: String) -> Result<(), AppError> {
    crate::api::respond(async { crate::api::backend()?.agents.remove_agent(agent_id).await }.await)
}

/// "Connection setup": pins the agent to an interface of its card (`None` = automatic).
#[server(prefix = "/api/fn", endpoint = "set_interface_pin", input = leptos::server_fn::codec::Json)]
pub async fn set_interface_pin(agent_id: String, pin: Option<InterfacePin>) -> Result<(), AppError> {
    crate::api::respond(
        async {
            crate::api::backend()?
                .agents
                .set_interface_pin(agent_id, pin)
                .await
        }
        .await,
    )
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
            credential: Default::default(),
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

    /// Issue #32: an empty chat offers the card's skill examples as starter prompts.
    #[test]
    fn starters_are_the_skill_examples_once_each_at_most_six() {
        let card = crate::a2a::AgentCard::decode(&serde_json::json!({
            "name": "Deploy bot",
            "skills": [
                {"id": "a", "name": "A", "examples": ["deploy billing", "  ", "roll back"]},
                {"id": "b", "name": "B", "examples": [" deploy billing ", "one", "two", "three", "four", "five"]},
                {"id": "c", "name": "C"}
            ]
        }))
        .unwrap();
        assert_eq!(
            starters_of(&card),
            ["deploy billing", "roll back", "one", "two", "three", "four"]
        );
    }
}
