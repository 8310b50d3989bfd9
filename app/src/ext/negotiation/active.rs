//! "Active for this agent, and why" (seed "Negotiation rules" and "Limits", `reference.md` §1.0, §2):
//! one short, plain line per extension URI, shown by the chat next to an agent. Pure: derived from
//! the card, the caller's (Settings) list, the understood sideband set and the send's skill; it
//! decides nothing that is sent.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{a2ui_uri, advertised_uris, is_content_convention, message_extensions, negotiated_sideband};
use crate::ext::skill_routing::{card_supports_skill, skills};
use crate::ext::uri::{
    A2UI_URI, A2UI_V08_URI, APPROVAL_URI, FORM_URI, SIDEBAND_URI, SKILL_ROUTING_URI, TRACE_URI,
};

/// Reason for a URI the caller lists that the agent advertises but the console has no feature for.
pub const REASON_LISTED: &str = "listed in Settings";
/// Reason for a URI the caller lists that the agent does not advertise (seed "Limits": listing a
/// URI only affects what is sent).
pub const REASON_NOT_ADVERTISED: &str =
    "listed in Settings but not advertised by the agent: sent, not honoured";
/// Suffix when a URI with its own reason is also in the caller's list.
pub const SUFFIX_ALSO_LISTED: &str = "; also listed in Settings";

/// One extension URI that is active for an agent, with a human label and the reason.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ActiveExtension {
    /// The extension URI.
    pub uri: String,
    /// A human label ("Structured forms", "Sideband events", or the URI itself when unknown).
    pub name: String,
    /// Why it is active, in a few plain words.
    pub reason: String,
}

/// A human label for an extension URI; deployment sideband URIs (members of `understood` that are
/// not built in) read "Sideband events (deployment)"; unknown URIs are shown as they are.
pub fn extension_name(uri: &str, understood: &[String]) -> String {
    let name = match uri {
        FORM_URI => "Structured forms",
        APPROVAL_URI => "Approval requests",
        SKILL_ROUTING_URI => "Skill routing",
        A2UI_URI => "A2UI",
        A2UI_V08_URI => "A2UI v0.8",
        SIDEBAND_URI => "Sideband events",
        TRACE_URI => "Trace events",
        _ if understood.iter().any(|known| known == uri) => "Sideband events (deployment)",
        _ => uri,
    };
    name.to_owned()
}

/// What the chat shows as "active for this agent and why". Order: the message `extensions` field
/// of a send (see [`super::message_extensions`]), then advertised reply-side conventions (forms,
/// approvals) in card order, then skill routing when the send's skill cannot be routed. Unknown URIs
/// the agent advertises but nobody lists are not active (§1.0) and are left out.
pub fn explain(
    card: &Value,
    caller: &[String],
    understood: &[String],
    skill: Option<&str>,
) -> Vec<ActiveExtension> {
    let routed = skill.is_some_and(|id| card_supports_skill(card, id));
    let facts = Facts {
        advertised: advertised_uris(card),
        negotiated: negotiated_sideband(card, understood),
        caller,
        skill: skill.map(|id| skill_label(card, id)),
        routed,
    };
    // The chat adds the A2UI URI after the Settings URIs; the server then appends skill
    // routing and the negotiated sideband URIs: the order the agent receives.
    let mut from_chat = caller.to_vec();
    from_chat.extend(a2ui_uri(card).map(str::to_owned));
    let sent = message_extensions(&from_chat, routed, None, &facts.negotiated);
    let conventions = facts.advertised.iter().filter(|uri| is_content_convention(uri));
    let mut uris: Vec<&str> = sent.iter().map(String::as_str).collect();
    uris.extend(
        conventions
            .map(String::as_str)
            .filter(|uri| !sent.iter().any(|s| s == uri)),
    );
    if skill.is_some() && !uris.contains(&SKILL_ROUTING_URI) {
        uris.push(SKILL_ROUTING_URI);
    }
    let entry = |uri: &str| ActiveExtension {
        uri: uri.to_owned(),
        name: extension_name(uri, understood),
        reason: facts.reason(uri),
    };
    uris.into_iter().map(entry).collect()
}

/// What `explain` knows about one agent and send.
struct Facts<'a> {
    advertised: Vec<String>,
    negotiated: Vec<String>,
    caller: &'a [String],
    skill: Option<String>,
    routed: bool,
}

impl Facts<'_> {
    /// The full reason line for `uri`.
    fn reason(&self, uri: &str) -> String {
        let listed = self.caller.iter().any(|own| own == uri);
        match self.feature_reason(uri) {
            Some(reason) if listed => format!("{reason}{SUFFIX_ALSO_LISTED}"),
            Some(reason) => reason,
            None if self.is_advertised(uri) => REASON_LISTED.to_owned(),
            None => REASON_NOT_ADVERTISED.to_owned(),
        }
    }

    /// The reason given by a console feature, if `uri` is one that applies to this agent.
    fn feature_reason(&self, uri: &str) -> Option<String> {
        if self.negotiated.iter().any(|known| known == uri) {
            let what = if uri == TRACE_URI {
                "trace events"
            } else {
                "sideband events"
            };
            return Some(format!("advertised by the agent and understood: {what}"));
        }
        if uri == SKILL_ROUTING_URI {
            return self.skill_reason();
        }
        if !self.is_advertised(uri) {
            return None;
        }
        let reason = match uri {
            FORM_URI => "advertised: forms are shown",
            APPROVAL_URI => "advertised: approval requests open a review",
            A2UI_URI | A2UI_V08_URI => "advertised: A2UI screens are shown",
            _ => return None,
        };
        Some(reason.to_owned())
    }

    /// Skill routing: sent for a routed send, refused for an unsupported one, else no reason.
    fn skill_reason(&self) -> Option<String> {
        let skill = self.skill.as_deref()?;
        Some(if self.routed {
            format!("sent because this send is restricted to skill {skill}")
        } else {
            format!("this send is restricted to skill {skill}, which the agent does not route: it is refused")
        })
    }

    /// Whether the card advertises `uri`.
    fn is_advertised(&self, uri: &str) -> bool {
        self.advertised.iter().any(|advertised| advertised == uri)
    }
}

/// The skill's name from the card, else its id.
fn skill_label(card: &Value, id: &str) -> String {
    skills(card)
        .into_iter()
        .find(|skill| skill.id == id)
        .map_or_else(|| id.to_owned(), |skill| skill.name)
}

#[cfg(test)]
mod tests;
