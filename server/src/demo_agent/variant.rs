//! The demo agent's variants: what each advertises on its card and which skills it lists.
//! Behaviour lives in `scenario`.

use serde_json::{Value, json};

use super::extension::{
    A2UI_BASIC_CATALOG, A2UI_URI, A2UI_V08_CATALOG, A2UI_V08_URI, APPROVAL_URI, FORM_URI, SIDEBAND_URI,
    SKILL_ROUTING_URI, TRACE_URI, UNKNOWN_URI,
};
use super::scenario::forms;

/// Every variant name, in the order the CLI prints their card URLs.
pub const VARIANTS: &[&str] = &[
    "showcase", "form", "approver", "a2ui", "plain", "invalid", "rogue", "unknown", "trace", "skills",
    "slow", "files", "legacy", "flood", "apikey", "bearer", "oauth", "signed", "forged", "mtls",
];

/// One demo agent, served under `/<variant>/`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Variant {
    /// Form, A2UI and approval chosen by the message text (the quickstart agent).
    Showcase,
    /// Structured form with a start form.
    Form,
    /// Approval requests (`send_message`, `send_data`, malformed).
    Approver,
    /// An A2UI v0.9 surface.
    A2ui,
    /// Sends the form without advertising anything.
    Plain,
    /// Advertises forms but sends a nested-object schema.
    Invalid,
    /// Sends an approval request without advertising the extension.
    Rogue,
    /// Advertises only an unknown extension and sends every kind of payload.
    Unknown,
    /// Streams work with sideband events in both `urn:` formats.
    Trace,
    /// Advertises skill routing with several skills.
    Skills,
    /// Streams artifact chunks over about ten seconds.
    Slow,
    /// Answers with markdown, JSON, CSV, PNG, PDF and a binary file.
    Files,
    /// Speaks only A2A 0.3.
    Legacy,
    /// Emits N events per second on request, for benchmarks.
    Flood,
    /// Requires the header `X-API-Key` (issue #30).
    ApiKey,
    /// Requires a Bearer token.
    Bearer,
    /// Requires an OAuth access token from its client-credentials token endpoint.
    OAuth,
    /// Its card is signed with the demo card key (`GET /card-keys.json` has the pin).
    Signed,
    /// Its card carries a signature of the demo card key over other contents.
    Forged,
    /// Requires a client certificate of the demo CA; served over TLS only (`--tls-port`).
    Mtls,
}

impl Variant {
    /// Every variant, in [`VARIANTS`] order.
    pub const ALL: [Variant; 20] = [
        Variant::Showcase,
        Variant::Form,
        Variant::Approver,
        Variant::A2ui,
        Variant::Plain,
        Variant::Invalid,
        Variant::Rogue,
        Variant::Unknown,
        Variant::Trace,
        Variant::Skills,
        Variant::Slow,
        Variant::Files,
        Variant::Legacy,
        Variant::Flood,
        Variant::ApiKey,
        Variant::Bearer,
        Variant::OAuth,
        Variant::Signed,
        Variant::Forged,
        Variant::Mtls,
    ];

    /// The path segment and display name of the variant.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Showcase => "showcase",
            Variant::Form => "form",
            Variant::Approver => "approver",
            Variant::A2ui => "a2ui",
            Variant::Plain => "plain",
            Variant::Invalid => "invalid",
            Variant::Rogue => "rogue",
            Variant::Unknown => "unknown",
            Variant::Trace => "trace",
            Variant::Skills => "skills",
            Variant::Slow => "slow",
            Variant::Files => "files",
            Variant::Legacy => "legacy",
            Variant::Flood => "flood",
            Variant::ApiKey => "apikey",
            Variant::Bearer => "bearer",
            Variant::OAuth => "oauth",
            Variant::Signed => "signed",
            Variant::Forged => "forged",
            Variant::Mtls => "mtls",
        }
    }

    /// The variant named `name`, if any.
    pub fn parse(name: &str) -> Option<Variant> {
        Variant::ALL.into_iter().find(|v| v.name() == name)
    }

    /// The credential the variant requires, if any.
    pub fn lock(self) -> Option<super::locked::Lock> {
        use super::locked::Lock;
        match self {
            Variant::ApiKey => Some(Lock::ApiKey),
            Variant::Bearer => Some(Lock::Bearer),
            Variant::OAuth => Some(Lock::OAuth),
            Variant::Mtls => Some(Lock::Mtls),
            _ => None,
        }
    }

    /// Whether the variant speaks A2A 0.3 instead of 1.0.
    pub fn is_legacy(self) -> bool {
        self == Variant::Legacy
    }

    /// The card's `name`. The original fixture's variants keep its `Form fixture (…)` names.
    pub fn title(self) -> String {
        match self {
            Variant::Trace
            | Variant::Skills
            | Variant::Slow
            | Variant::Files
            | Variant::Legacy
            | Variant::Flood
            | Variant::ApiKey
            | Variant::Bearer
            | Variant::OAuth
            | Variant::Signed
            | Variant::Forged
            | Variant::Mtls => {
                format!("Demo agent ({})", self.name())
            }
            _ => format!("Form fixture ({})", self.name()),
        }
    }

    /// The card's `description`: what the variant does, for people choosing one.
    pub fn description(self) -> &'static str {
        match self {
            Variant::Showcase => {
                "Say \"surface\" for an A2UI surface, \"approve\" for an approval request, \"choose\" for quick replies, anything else for a deploy form."
            }
            Variant::Form => "Asks for a deploy request with a structured form; offers a start form.",
            Variant::Approver => {
                "Asks for approval: \"structured\" for a form-based action, \"invalid\" for a malformed request."
            }
            Variant::A2ui => {
                "Shows an A2UI surface to confirm a deployment: v0.9, or v0.8 when the message says \"v0.8\"."
            }
            Variant::Plain => "Sends the deploy form without advertising the extension.",
            Variant::Invalid => "Advertises structured forms but sends a schema the console must reject.",
            Variant::Rogue => "Sends an approval request without advertising the extension.",
            Variant::Unknown => {
                "Advertises only an unknown extension and sends form, A2UI and approval parts."
            }
            Variant::Trace => "Streams a health check with sideband trace events in both urn: formats.",
            Variant::Skills => {
                "Routes work by skill (skill-routing extension); refuses skills it does not have."
            }
            Variant::Slow => {
                "Streams a report in chunks over about ten seconds; cancel or resubscribe meanwhile."
            }
            Variant::Files => "Answers with markdown, JSON, CSV, PNG, PDF and a downloadable binary.",
            Variant::Legacy => {
                "Speaks only A2A 0.3: JSON-RPC (message/send, tasks/get, kind discriminators) and HTTP+JSON (/v1 routes, ProtoJSON bodies)."
            }
            Variant::Flood => {
                "Emits N status events per second, e.g. \"rate=200 count=1000\", for benchmarks."
            }
            Variant::ApiKey => {
                "Protected by an API key header (X-API-Key; the demo agent reference has the key). Say \"leak\" to see redaction."
            }
            Variant::Bearer => {
                "Protected by a Bearer token (the demo agent reference has it). Say \"leak\" to see redaction."
            }
            Variant::OAuth => {
                "Protected by OAuth client credentials at /oauth/token (the demo agent reference has the client)."
            }
            Variant::Signed => {
                "Its Agent Card is signed (EdDSA); pin the key from /card-keys.json in A2A_TRUSTED_CARD_KEYS."
            }
            Variant::Forged => {
                "Its Agent Card's signature does not match its contents: never called once pinned."
            }
            Variant::Mtls => {
                "Protected by a client certificate (mutual TLS): the demo CA's client.pem and client-key.pem in --tls-dir."
            }
        }
    }

    /// The card's `capabilities.extensions`.
    pub fn extensions(self) -> Vec<Value> {
        let form = |params: Value| json!({"uri": FORM_URI, "description": "Structured input forms", "required": false, "params": params});
        let start_form = || form(json!({"startForm": forms::start_form()}));
        let approval = || json!({"uri": APPROVAL_URI, "description": "Approval requests for risky actions", "required": false});
        let a2ui = || {
            json!({"uri": A2UI_URI, "description": "A2UI v0.9 surfaces", "required": false,
                   "params": {"supportedCatalogIds": [A2UI_BASIC_CATALOG]}})
        };
        match self {
            Variant::Showcase => vec![start_form(), a2ui(), approval()],
            Variant::Form | Variant::Legacy => vec![start_form()],
            Variant::Approver => vec![approval()],
            // v0.9 first (preferred); v0.8 for agents built on the older SDKs (say "v0.8").
            Variant::A2ui => vec![
                a2ui(),
                json!({"uri": A2UI_V08_URI, "description": "A2UI v0.8 surfaces", "required": false,
                       "params": {"supportedCatalogIds": [A2UI_V08_CATALOG]}}),
            ],
            Variant::Invalid => vec![form(json!({}))],
            Variant::Unknown => {
                vec![json!({"uri": UNKNOWN_URI, "description": "Nobody understands this", "required": false})]
            }
            Variant::Trace => vec![
                json!({"uri": SIDEBAND_URI, "description": "Generic sideband events", "required": false}),
                json!({"uri": TRACE_URI, "description": "a2a-wrapper trace artifacts", "required": false}),
            ],
            Variant::Skills => vec![json!({
                "uri": SKILL_ROUTING_URI, "description": "Bounded skill routing", "required": false
            })],
            Variant::Plain
            | Variant::Rogue
            | Variant::Slow
            | Variant::Files
            | Variant::Flood
            | Variant::ApiKey
            | Variant::Bearer
            | Variant::OAuth
            | Variant::Signed
            | Variant::Forged
            | Variant::Mtls => Vec::new(),
        }
    }

    /// The card's `skills`: one describing the variant, or the routed skills of `skills`.
    pub fn skills(self) -> Vec<Value> {
        if self == Variant::Skills {
            return super::scenario::skills::SKILLS
                .iter()
                .map(|skill| {
                    json!({"id": skill.id, "name": skill.name, "description": skill.description,
                           "tags": ["demo", "skill-routing"], "examples": [skill.example]})
                })
                .collect();
        }
        vec![json!({
            "id": self.name(),
            "name": self.title(),
            "description": self.description(),
            "tags": ["demo"],
            "examples": self.examples(),
        })]
    }

    /// What to say to the variant (its skill's `examples`; the chat offers them as starter
    /// prompts in an empty conversation).
    pub fn examples(self) -> &'static [&'static str] {
        match self {
            Variant::Showcase => &["surface", "approve", "choose", "deploy billing-api"],
            Variant::Form => &["deploy please", "choose an environment"],
            Variant::Approver => &["please approve the cleanup", "structured deploy"],
            Variant::A2ui => &["deploy", "deploy v0.8"],
            Variant::Trace => &["check staging health"],
            Variant::Slow => &["quarterly numbers"],
            Variant::Files => &["send me the files"],
            Variant::Flood => &["rate=200 count=1000"],
            _ => &[],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_in_variants_order() {
        let names: Vec<&str> = Variant::ALL.iter().map(|v| v.name()).collect();
        assert_eq!(names, VARIANTS);
        for name in VARIANTS {
            assert_eq!(Variant::parse(name).map(Variant::name), Some(*name));
        }
        assert_eq!(Variant::parse("nope"), None);
    }

    #[test]
    fn only_the_unknown_variant_advertises_the_unknown_extension() {
        let uris = |v: Variant| -> Vec<String> {
            v.extensions()
                .iter()
                .filter_map(|e| e["uri"].as_str().map(str::to_owned))
                .collect()
        };
        assert_eq!(uris(Variant::Unknown), vec![UNKNOWN_URI]);
        assert!(uris(Variant::Plain).is_empty() && uris(Variant::Rogue).is_empty());
        assert_eq!(uris(Variant::Showcase), vec![FORM_URI, A2UI_URI, APPROVAL_URI]);
        assert!(Variant::Skills.skills().len() >= 3);
    }
}
