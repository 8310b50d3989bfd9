//! Skill routing (`reference.md` §1.3), the pure parts: the stored-card check, skill id validation,
//! the routing metadata entry, the exact error strings, and the skill picker's list. The command
//! path (task lookup, grants, persistence) lives on the server; nothing here reads a database.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::canonical::utf16_len;
use super::negotiation::advertises;
use super::uri::SKILL_ROUTING_URI;

/// Shortest skill id a command body accepts (§1.3, §4.4: `skillId` 1..255 chars).
pub const SKILL_ID_MIN: usize = 1;
/// Longest skill id a command body accepts, in UTF-16 code units as JS counts (§1.3, §4.4).
pub const SKILL_ID_MAX: usize = 255;
/// The key of the skill id inside the routing metadata entry (§1.3 rule 8).
pub const SKILL_ID_KEY: &str = "skillId";

/// The skill-routing refusals of §1.3 (exact wire strings), plus the body validation of `skillId`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SkillError {
    /// §1.3 rule 3: a requested skill differs from the known task's.
    #[error("Task skill cannot be changed.")]
    SkillChanged,
    /// §1.3 rule 3: a `contextId` differs from the known task's.
    #[error("Task context mismatch.")]
    ContextMismatch,
    /// §1.3 rule 7: a caller without whole-agent operate sent a `contextId` and no task.
    #[error("A skill-scoped send must start a new context.")]
    NewContextRequired,
    /// §1.3 rule 8: the stored card does not advertise the URI or list the skill.
    #[error("This agent does not support bounded skill routing.")]
    Unsupported,
    /// §4.4: `skillId` outside 1..255 chars. The original's schema library wrote its own text; this
    /// wording is ours.
    #[error("skillId must be 1 to 255 characters.")]
    InvalidSkillId,
}

impl SkillError {
    /// The HTTP status the server answers with (§1.3: 403; §4.4 validation: 400).
    pub fn status(self) -> u16 {
        match self {
            SkillError::InvalidSkillId => 400,
            _ => 403,
        }
    }
}

/// One advertised skill, as the skill picker shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SkillSummary {
    /// The skill id (the routing and grant key).
    pub id: String,
    /// Display name; the id when the card gives none.
    pub name: String,
    /// What the skill does; empty when absent.
    pub description: String,
    /// Keywords (never used for routing, §1.3).
    pub tags: Vec<String>,
    /// Example prompts (never used for routing, §1.3).
    pub examples: Vec<String>,
}

/// The opt-in of §1.3: the (stored) card advertises the skill-routing URI **and** lists a skill whose
/// `id` equals `skill_id` exactly.
pub fn card_supports_skill(card: &Value, skill_id: &str) -> bool {
    advertises(card, SKILL_ROUTING_URI)
        && skill_entries(card).any(|skill| skill_id_of(skill) == Some(skill_id))
}

/// Checks a command body's `skillId`: 1..=[`SKILL_ID_MAX`] UTF-16 code units (§4.4). Blank ids
/// are accepted, as in the original schema; they simply match no skill.
pub fn validate_skill_id(skill_id: &str) -> Result<(), SkillError> {
    let len = utf16_len(skill_id);
    if (SKILL_ID_MIN..=SKILL_ID_MAX).contains(&len) {
        Ok(())
    } else {
        Err(SkillError::InvalidSkillId)
    }
}

/// §1.3 rules 6 and 9: deletes any key equal to the skill-routing URI from caller-supplied metadata
/// (message metadata always; request metadata when no skill applies). Routing metadata is made by
/// the server only, never accepted from callers.
pub fn strip_caller_routing(metadata: &mut Map<String, Value>) {
    metadata.remove(SKILL_ROUTING_URI);
}

/// §1.3 rule 8: the request-level metadata entry for a routed send,
/// `("<skill-routing URI>", {"skillId": "<id>"})`, merged over the caller's request metadata.
pub fn routing_metadata(skill_id: &str) -> (String, Value) {
    (SKILL_ROUTING_URI.to_owned(), json!({ SKILL_ID_KEY: skill_id }))
}

/// The card's skills for the skill picker, card order: entries that are objects with a non-empty
/// string `id` (first one wins per id); `name` falls back to the id; non-string tags and examples
/// are dropped.
pub fn skills(card: &Value) -> Vec<SkillSummary> {
    let mut out: Vec<SkillSummary> = Vec::new();
    for entry in skill_entries(card) {
        let Some(summary) = summary(entry) else { continue };
        if !out.iter().any(|seen| seen.id == summary.id) {
            out.push(summary);
        }
    }
    out
}

/// The raw `skills` array entries of a card.
fn skill_entries(card: &Value) -> impl Iterator<Item = &Value> {
    card.get("skills").and_then(Value::as_array).into_iter().flatten()
}

/// A skill entry's string `id`.
fn skill_id_of(skill: &Value) -> Option<&str> {
    skill.get("id").and_then(Value::as_str)
}

/// One picker entry, `None` without a usable id.
fn summary(skill: &Value) -> Option<SkillSummary> {
    let id = skill_id_of(skill).filter(|id| !id.is_empty())?;
    let text = |key: &str| skill.get(key).and_then(Value::as_str).filter(|s| !s.is_empty());
    Some(SkillSummary {
        id: id.to_owned(),
        name: text("name").unwrap_or(id).to_owned(),
        description: text("description").unwrap_or_default().to_owned(),
        tags: strings(skill.get("tags")),
        examples: strings(skill.get("examples")),
    })
}

/// The non-empty strings of an optional JSON array.
fn strings(value: Option<&Value>) -> Vec<String> {
    let items = value.and_then(Value::as_array).into_iter().flatten();
    items
        .filter_map(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests;
