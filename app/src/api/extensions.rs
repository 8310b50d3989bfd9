//! What the chat needs to know about an agent's extensions (seed "Negotiation rules",
//! `shared/spec/reference.md` §2): computed by a server function from the agent's **stored**
//! card (§2.3) and the deployment's understood sideband URIs, with the same pure rules the
//! server uses when it sends.

use leptos::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::AppError;
use crate::ext::a2ui::A2uiVersion;
use crate::ext::form::start_form_definition;
use crate::ext::negotiation::{self, ActiveExtension};
use crate::ext::skill_routing::{self, SkillSummary};
use crate::ext::uri::{APPROVAL_URI, FORM_URI, SKILL_ROUTING_URI};

/// The extensions of one agent, as the chat shows and uses them.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentExtensions {
    /// Whether a card has been stored for the agent (nothing is honoured before).
    pub card_known: bool,
    /// What each send carries and why (the chat's "Extensions" panel).
    pub active: Vec<ActiveExtension>,
    /// Forms in the agent's prompts are rendered.
    pub forms: bool,
    /// Approval requests in the agent's prompts open a review.
    pub approvals: bool,
    /// The A2UI version the agent advertises (v0.9 preferred).
    pub a2ui: Option<A2uiVersion>,
    /// The skills a new task can be restricted to (empty unless skill routing is advertised).
    pub skills: Vec<SkillSummary>,
    /// The start-of-task form (`params.startForm`) as the card states it, when advertised and
    /// valid. Parsed where it is shown (the chat's start form).
    pub start_form: Option<Value>,
}

impl AgentExtensions {
    /// Everything from a stored card; `caller` are the Settings URIs, `understood` the
    /// deployment's sideband URIs, `skill` the skill chosen for the next new task.
    pub fn from_card(
        card: &Value,
        caller: &[String],
        understood: &[String],
        skill: Option<&str>,
    ) -> AgentExtensions {
        let a2ui = negotiation::a2ui_advertised(card).map(|(_, version)| version);
        let forms = negotiation::advertises(card, FORM_URI);
        AgentExtensions {
            card_known: true,
            active: negotiation::explain(card, caller, understood, skill),
            forms,
            approvals: negotiation::advertises(card, APPROVAL_URI),
            a2ui,
            skills: if negotiation::advertises(card, SKILL_ROUTING_URI) {
                skill_routing::skills(card)
            } else {
                Vec::new()
            },
            start_form: if forms { start_form_definition(card) } else { None },
        }
    }
}

/// The extensions of `agent_id` for the chat, given the Settings URIs and the chosen skill.
#[server(prefix = "/api/fn", endpoint = "get_agent_extensions", input = leptos::server_fn::codec::Json)]
pub async fn get_agent_extensions(
    agent_id: String,
    caller: Vec<String>,
    skill: Option<String>,
) -> Result<AgentExtensions, AppError> {
    crate::api::respond(
        async {
            crate::api::backend()?
                .agents
                .extensions(agent_id, caller, skill)
                .await
        }
        .await,
    )
}
