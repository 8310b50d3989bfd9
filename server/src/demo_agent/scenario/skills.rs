//! `skills`: bounded skill routing (`reference.md` §1.3). The skill comes from request metadata
//! (or message metadata) under the skill-routing URI; unknown skills are refused.

use std::time::Duration;

use app::a2a::TaskState;
use serde_json::{Value, json};

use crate::demo_agent::extension::SKILL_ROUTING_URI;
use crate::demo_agent::runner::Step;
use crate::demo_agent::wire::{Incoming, Update};

/// One skill the variant advertises.
pub(crate) struct Skill {
    pub(crate) id: &'static str,
    pub(crate) name: &'static str,
    pub(crate) description: &'static str,
    pub(crate) example: &'static str,
    /// What the agent answers when routed to this skill.
    answer: &'static str,
}

/// The advertised skills, in card order.
pub(crate) const SKILLS: &[Skill] = &[
    Skill {
        id: "deploy",
        name: "Deploy a service",
        description: "Rolls a service out to staging or production.",
        example: "Deploy billing-api to staging",
        answer: "Deployment scheduled.",
    },
    Skill {
        id: "rollback",
        name: "Roll back a release",
        description: "Returns a service to its previous release.",
        example: "Roll back billing-api",
        answer: "Rollback prepared; the previous release is 1.41.2.",
    },
    Skill {
        id: "status-report",
        name: "Status report",
        description: "Summarises the health of every service.",
        example: "How is production doing?",
        answer: "All 12 services are healthy.",
    },
    Skill {
        id: "incident-triage",
        name: "Incident triage",
        description: "Groups alerts and suggests who should look at them.",
        example: "Triage the paging alerts",
        answer: "3 alerts grouped into 1 incident; the payments on-call should look.",
    },
];

/// The requested skill id, if any.
fn requested_skill(incoming: &Incoming) -> Option<String> {
    [&incoming.request_metadata, &incoming.metadata]
        .into_iter()
        .find_map(|metadata| metadata.get(SKILL_ROUTING_URI))
        .and_then(|routing| routing.get("skillId"))
        .and_then(Value::as_str)
        .map(str::to_owned)
}

/// The script: answer within the requested skill, or refuse it.
pub(crate) fn plan(incoming: &Incoming) -> Vec<Step> {
    let Some(skill_id) = requested_skill(incoming) else {
        return vec![Step::Do(Update::say(
            TaskState::Completed,
            format!(
                "No skill was requested, so I answered generally: {}",
                incoming.text.trim()
            ),
        ))];
    };
    let Some(skill) = SKILLS.iter().find(|skill| skill.id == skill_id) else {
        return vec![Step::Do(Update::say(
            TaskState::Rejected,
            format!("This agent has no skill \"{skill_id}\"."),
        ))];
    };
    let metadata = json!({ SKILL_ROUTING_URI: {"skillId": skill.id} });
    vec![
        Step::Do(Update::say(
            TaskState::Working,
            format!("Working within the skill \"{}\".", skill.name),
        )),
        Step::Sleep(Duration::from_millis(100)),
        Step::Do(
            Update::say(TaskState::Completed, format!("[{}] {}", skill.name, skill.answer))
                .with_message_metadata(metadata),
        ),
    ]
}
