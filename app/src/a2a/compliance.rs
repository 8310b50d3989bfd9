//! The advisory compliance report for an Agent Card (reference §4.3, product "Compliance
//! report"): detected version (`1.0` / `0.3` / `unknown`), a score, and issues with a field
//! path. It reads the raw JSON, so it can name wrong types that normalisation drops. A card
//! with errors can still be registered; nothing here refuses a card.

mod fields;
mod interfaces;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::card::CardVersion;
use super::lenient::{index, join};
use super::security::{SecurityScheme, decode_security_requirement};
use fields::type_name;

/// Score of a card without issues.
pub const MAX_SCORE: u32 = 100;
/// Points an error costs (advisory score, reference §4.3).
pub const ERROR_PENALTY: u32 = 20;
/// Points a warning costs (advisory score, reference §4.3). Info issues cost nothing.
pub const WARNING_PENALTY: u32 = 5;

/// How bad an issue is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Violates a REQUIRED field or type; parts of the card may be unusable.
    Error,
    /// Allowed but likely to cause trouble.
    Warning,
    /// Worth knowing (legacy fields, dual-version cards).
    Info,
}

/// One finding.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ComplianceIssue {
    /// How bad it is.
    pub severity: Severity,
    /// Dotted field path, e.g. `supportedInterfaces[0].url`; `$` is the card itself.
    pub path: String,
    /// What is wrong, in a sentence.
    pub message: String,
}

/// The report for one card.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ComplianceReport {
    /// The detected card shape.
    pub version: CardVersion,
    /// 0–100; errors and warnings subtract [`ERROR_PENALTY`] / [`WARNING_PENALTY`].
    pub score: u32,
    /// Findings, in the order the card was checked.
    pub issues: Vec<ComplianceIssue>,
}

/// Start of every finding of the interface-origin rule (issue #26). The server adds these
/// ([`ComplianceReport::refuse_interface`]): only it can tell where an origin's host lies.
pub const INTERFACE_REFUSED: &str = "The console will not call this interface: ";

impl ComplianceReport {
    /// Records that the interface at `path` is refused by the interface-origin rule, for the
    /// `reason` given; an error, so the score drops by [`ERROR_PENALTY`].
    pub fn refuse_interface(&mut self, path: impl Into<String>, reason: &str) {
        self.issues.push(ComplianceIssue {
            severity: Severity::Error,
            path: path.into(),
            message: format!("{INTERFACE_REFUSED}{reason}"),
        });
        self.score = self.score.saturating_sub(ERROR_PENALTY);
    }

    /// Records what the card's signatures prove (`shared/spec/security-and-durability.md` §2.4):
    /// an error when the console will not call the agent because of it, a note otherwise.
    pub fn record_trust(&mut self, trust: crate::words::CardTrust, signatures_required: bool) {
        use crate::words::CardTrust;
        let (severity, message) = match trust {
            CardTrust::Verified => (Severity::Info, trust.describe().to_owned()),
            CardTrust::Unsigned if signatures_required => (
                Severity::Error,
                "Unsigned card: this deployment requires signed cards (A2A_REQUIRE_SIGNED_CARDS), so the console will not call it.".to_owned(),
            ),
            // Every state is in the report (issue #30), an unsigned card as a note.
            CardTrust::Unsigned => (Severity::Info, trust.describe().to_owned()),
            CardTrust::Untrusted | CardTrust::Invalid => (Severity::Error, trust.describe().to_owned()),
        };
        if severity == Severity::Error {
            self.score = self.score.saturating_sub(ERROR_PENALTY);
        }
        self.issues.push(ComplianceIssue {
            severity,
            path: "signatures".into(),
            message,
        });
    }

    /// The findings of the interface-origin rule, in order.
    pub fn refused_interfaces(&self) -> impl Iterator<Item = &ComplianceIssue> {
        self.issues
            .iter()
            .filter(|issue| issue.message.starts_with(INTERFACE_REFUSED))
    }

    /// True when any issue is an error.
    pub fn has_errors(&self) -> bool {
        self.issues.iter().any(|i| i.severity == Severity::Error)
    }

    /// The issue at `path`, if any (first one).
    pub fn issue_at(&self, path: &str) -> Option<&ComplianceIssue> {
        self.issues.iter().find(|i| i.path == path)
    }
}

/// Checks a fetched card (raw JSON).
pub fn check_card(card: &Value) -> ComplianceReport {
    let mut c = Checker::default();
    let Some(obj) = card.as_object() else {
        c.push(Severity::Error, "$", "The Agent Card must be a JSON object.");
        return c.finish(CardVersion::Unknown);
    };
    let version = CardVersion::detect(obj);
    for key in ["name", "description", "version"] {
        c.required_string(obj, key, "");
    }
    match version {
        CardVersion::V1_0 => c.v1_interfaces(obj),
        CardVersion::V0_3 => c.v03_interfaces(obj),
        CardVersion::Unknown => c.push(
            Severity::Error,
            "supportedInterfaces",
            "Neither supportedInterfaces (1.0) nor url (0.3) is present; the protocol version cannot be detected.",
        ),
    }
    c.capabilities(obj);
    c.mode_list(obj, "defaultInputModes", "", true);
    c.mode_list(obj, "defaultOutputModes", "", true);
    c.skills(obj);
    c.security(obj);
    c.provider(obj);
    if version != CardVersion::Unknown {
        c.usable_interface(card, version);
    }
    c.finish(version)
}

#[derive(Default)]
struct Checker {
    issues: Vec<ComplianceIssue>,
}

impl Checker {
    fn capabilities(&mut self, obj: &Map<String, Value>) {
        let caps = match obj.get("capabilities") {
            None | Some(Value::Null) => {
                self.push(Severity::Error, "capabilities", "capabilities is required.");
                return;
            }
            Some(Value::Object(caps)) => caps,
            Some(other) => {
                self.push(
                    Severity::Error,
                    "capabilities",
                    format!("capabilities must be an object, not {}.", type_name(other)),
                );
                return;
            }
        };
        for key in ["streaming", "pushNotifications", "extendedAgentCard"] {
            self.optional_bool(caps, key, "capabilities");
        }
        if caps.contains_key("stateTransitionHistory") {
            self.push(
                Severity::Info,
                "capabilities.stateTransitionHistory",
                "stateTransitionHistory was removed in 1.0.",
            );
        }
        let Some(exts) = caps.get("extensions").filter(|v| !v.is_null()) else {
            return;
        };
        let Some(items) = exts.as_array() else {
            self.push(
                Severity::Error,
                "capabilities.extensions",
                "extensions must be an array.",
            );
            return;
        };
        for (i, item) in items.iter().enumerate() {
            let path = index("capabilities.extensions", i);
            let Some(ext) = item.as_object() else {
                self.push(Severity::Error, path, "An extension must be an object.");
                continue;
            };
            self.required_string(ext, "uri", &path);
            self.optional_bool(ext, "required", &path);
            self.optional_string(ext, "description", &path);
            if let Some(p) = ext.get("params").filter(|p| !p.is_null() && !p.is_object()) {
                self.push(
                    Severity::Warning,
                    join(&path, "params"),
                    format!("params should be an object, not {}.", type_name(p)),
                );
            }
        }
    }

    fn skills(&mut self, obj: &Map<String, Value>) {
        let Some(items) = self.required_array(obj, "skills", "") else {
            return;
        };
        if items.is_empty() {
            self.push(Severity::Warning, "skills", "The card lists no skills.");
        }
        let mut ids: Vec<&str> = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let path = index("skills", i);
            let Some(skill) = item.as_object() else {
                self.push(Severity::Error, path, "A skill must be an object.");
                continue;
            };
            if let Some(id) = self.required_string(skill, "id", &path) {
                if ids.contains(&id) {
                    self.push(
                        Severity::Error,
                        join(&path, "id"),
                        format!("Duplicate skill id {id}."),
                    );
                }
                ids.push(id);
            }
            self.required_string(skill, "name", &path);
            self.required_string(skill, "description", &path);
            match skill.get("tags") {
                None | Some(Value::Null) => {
                    self.push(Severity::Warning, join(&path, "tags"), "tags should be present.")
                }
                Some(_) => self.string_list(skill, "tags", &path),
            }
            self.string_list(skill, "examples", &path);
            self.mode_list(skill, "inputModes", &path, false);
            self.mode_list(skill, "outputModes", &path, false);
        }
    }

    fn security(&mut self, obj: &Map<String, Value>) {
        let mut declared: Vec<&str> = Vec::new();
        match obj.get("securitySchemes") {
            None | Some(Value::Null) => {}
            Some(Value::Object(schemes)) => {
                for (name, scheme) in schemes {
                    declared.push(name);
                    let at = join("securitySchemes", name);
                    match SecurityScheme::decode(scheme) {
                        SecurityScheme::Unknown { .. } => self.push(
                            Severity::Warning,
                            at,
                            "Unrecognised security scheme in either the 1.0 or 0.3 spelling.",
                        ),
                        SecurityScheme::ApiKey {
                            name: key_name,
                            location,
                            ..
                        } if key_name.is_empty() || location.is_empty() => self.push(
                            Severity::Error,
                            at,
                            "An API key scheme needs a name and a location.",
                        ),
                        _ => {}
                    }
                }
            }
            Some(other) => self.push(
                Severity::Error,
                "securitySchemes",
                format!("securitySchemes must be an object, not {}.", type_name(other)),
            ),
        }
        for key in ["securityRequirements", "security"] {
            let Some(value) = obj.get(key).filter(|v| !v.is_null()) else {
                continue;
            };
            let Some(items) = value.as_array() else {
                self.push(Severity::Error, key, format!("{key} must be an array."));
                continue;
            };
            for (i, item) in items.iter().enumerate() {
                for name in decode_security_requirement(item).keys() {
                    if !declared.contains(&name.as_str()) {
                        self.push(
                            Severity::Warning,
                            index(key, i),
                            format!("Requirement names {name}, which securitySchemes does not declare."),
                        );
                    }
                }
            }
        }
    }

    fn provider(&mut self, obj: &Map<String, Value>) {
        match obj.get("provider") {
            None | Some(Value::Null) => {}
            Some(Value::Object(p)) => {
                for key in ["organization", "url"] {
                    if !p.get(key).is_some_and(Value::is_string) {
                        self.push(
                            Severity::Warning,
                            join("provider", key),
                            format!("provider.{key} should be a string."),
                        );
                    }
                }
            }
            Some(other) => self.push(
                Severity::Error,
                "provider",
                format!("provider must be an object, not {}.", type_name(other)),
            ),
        }
        for key in ["documentationUrl", "iconUrl"] {
            self.optional_string(obj, key, "");
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::a2a::card::fixtures::{dual_card, v1_card, v03_card};

    fn paths(report: &ComplianceReport, severity: Severity) -> Vec<&str> {
        report
            .issues
            .iter()
            .filter(|i| i.severity == severity)
            .map(|i| i.path.as_str())
            .collect()
    }

    #[test]
    fn good_v1_card() {
        let r = check_card(&v1_card());
        assert_eq!(r.version, CardVersion::V1_0);
        assert_eq!(r.issues, vec![]);
        assert_eq!(r.score, 100);
        assert!(!r.has_errors());
        assert_eq!(
            serde_json::to_value(&r).expect("ser"),
            json!({"version": "1.0", "score": 100, "issues": []})
        );
    }

    #[test]
    fn legacy_v03_card() {
        let r = check_card(&v03_card());
        assert_eq!(r.version, CardVersion::V0_3);
        assert!(!r.has_errors(), "{:?}", r.issues);
        assert_eq!(
            paths(&r, Severity::Warning),
            vec!["additionalInterfaces[1].transport"]
        );
        assert_eq!(
            paths(&r, Severity::Info),
            vec!["capabilities.stateTransitionHistory"]
        );
        assert_eq!(r.score, 95);
    }

    #[test]
    fn dual_card_is_1_0_with_info() {
        let r = check_card(&dual_card());
        assert_eq!(r.version, CardVersion::V1_0);
        assert!(!r.has_errors(), "{:?}", r.issues);
        assert_eq!(paths(&r, Severity::Info), vec!["url"]);
        assert_eq!(
            paths(&r, Severity::Warning),
            vec!["skills[0].inputModes", "skills[0].outputModes"]
        );
        assert_eq!(r.score, 90);
    }

    #[test]
    fn missing_name_and_wrong_types() {
        let mut card = v1_card();
        let obj = card.as_object_mut().expect("object");
        obj.remove("name");
        obj.insert("description".into(), json!(42));
        obj.insert("capabilities".into(), json!({"streaming": "yes"}));
        let r = check_card(&card);
        assert_eq!(
            paths(&r, Severity::Error),
            vec!["name", "description", "capabilities.streaming"]
        );
        assert_eq!(
            r.issue_at("name").map(|i| i.message.as_str()),
            Some("name is required.")
        );
        assert_eq!(
            r.issue_at("description").map(|i| i.message.as_str()),
            Some("description must be a string, not a number.")
        );
        assert_eq!(r.score, 40);
    }

    #[test]
    fn interface_without_url() {
        let mut card = v1_card();
        card["supportedInterfaces"] = json!([
            {"protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
            {"url": "ftp://x", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
            {"url": "https://x", "protocolVersion": "1.0"},
            "nope"
        ]);
        let r = check_card(&card);
        assert_eq!(
            paths(&r, Severity::Error),
            vec![
                "supportedInterfaces[0].url",
                "supportedInterfaces[1].url",
                "supportedInterfaces[2].protocolBinding",
                "supportedInterfaces[3]"
            ]
        );
    }

    #[test]
    fn empty_mode_lists() {
        let mut card = v1_card();
        card["defaultInputModes"] = json!([]);
        card["defaultOutputModes"] = json!(["text/plain", 7]);
        card["skills"][0]["outputModes"] = json!([]);
        let r = check_card(&card);
        assert_eq!(
            paths(&r, Severity::Error),
            vec!["defaultInputModes", "defaultOutputModes[1]"]
        );
        assert_eq!(paths(&r, Severity::Warning), vec!["skills[0].outputModes"]);
        assert_eq!(
            r.issue_at("defaultInputModes").map(|i| i.message.as_str()),
            Some("defaultInputModes must list at least one media type.")
        );
    }

    #[test]
    fn skills_missing_ids() {
        let mut card = v1_card();
        card["skills"] = json!([
            {"name": "A", "description": "a", "tags": []},
            {"id": "x", "name": "X", "description": "x", "tags": []},
            {"id": "x", "name": "X2", "description": "x", "tags": "t"},
            {"id": "", "name": "E", "description": "e"}
        ]);
        let r = check_card(&card);
        assert_eq!(
            paths(&r, Severity::Error),
            vec!["skills[0].id", "skills[2].id", "skills[2].tags", "skills[3].id"]
        );
        assert_eq!(paths(&r, Severity::Warning), vec!["skills[3].tags"]);
        assert_eq!(
            r.issue_at("skills[2].id").map(|i| i.message.as_str()),
            Some("Duplicate skill id x.")
        );
    }

    #[test]
    fn unknown_version_and_non_object() {
        let r = check_card(
            &json!({"name": "n", "description": "d", "version": "1", "capabilities": {},
            "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"], "skills": []}),
        );
        assert_eq!(r.version, CardVersion::Unknown);
        assert_eq!(paths(&r, Severity::Error), vec!["supportedInterfaces"]);
        assert_eq!(paths(&r, Severity::Warning), vec!["skills"]);

        let r = check_card(&json!("card"));
        assert_eq!(
            (r.version, r.score, paths(&r, Severity::Error)),
            (CardVersion::Unknown, 80, vec!["$"])
        );
    }

    #[test]
    fn grpc_only_and_security_references() {
        let mut card = v1_card();
        card["supportedInterfaces"] =
            json!([{"url": "https://g", "protocolBinding": "GRPC", "protocolVersion": "1.0"}]);
        card["securityRequirements"] = json!([{"schemes": {"oauth": {"list": ["r"]}}}]);
        card["securitySchemes"]["key"] = json!({"apiKeySecurityScheme": {"location": "header"}});
        let r = check_card(&card);
        assert_eq!(
            paths(&r, Severity::Warning),
            vec![
                "supportedInterfaces[0].protocolBinding",
                "securityRequirements[0]",
                "supportedInterfaces"
            ]
        );
        assert_eq!(paths(&r, Severity::Error), vec!["securitySchemes.key"]);
        assert!(
            r.issue_at("supportedInterfaces")
                .is_some_and(|i| i.message.contains(crate::a2a::GRPC_REFUSED))
        );
    }

    #[test]
    fn score_never_underflows() {
        let r = check_card(
            &json!({"name": 1, "description": 2, "version": 3, "supportedInterfaces": 4,
            "capabilities": 5, "defaultInputModes": 6, "defaultOutputModes": 7, "skills": 8}),
        );
        assert_eq!(r.score, 0);
        assert!(r.issues.len() >= 8);
    }

    /// Issue #30: every signature state is in the report: unsigned and verified as notes,
    /// untrusted, invalid and (when signatures are required) unsigned as errors that cost score.
    #[test]
    fn every_signature_state_is_reported_issue_30() {
        use crate::words::CardTrust;
        for (trust, required, severity) in [
            (CardTrust::Unsigned, false, Severity::Info),
            (CardTrust::Verified, false, Severity::Info),
            (CardTrust::Unsigned, true, Severity::Error),
            (CardTrust::Untrusted, false, Severity::Error),
            (CardTrust::Invalid, false, Severity::Error),
        ] {
            let mut r = check_card(&v1_card());
            let before = r.score;
            r.record_trust(trust, required);
            let issue = r.issue_at("signatures").expect("a signatures row");
            assert_eq!(issue.severity, severity, "{trust:?}");
            if severity == Severity::Error {
                assert_eq!(r.score, before.saturating_sub(ERROR_PENALTY));
            } else {
                assert_eq!(r.score, before);
                assert_eq!(issue.message, trust.describe());
            }
        }
    }

    #[test]
    fn a_refused_interface_is_an_error_row_issue_26() {
        let mut r = check_card(&v1_card());
        let before = (r.score, r.issues.len());
        assert_eq!(r.refused_interfaces().count(), 0);
        r.refuse_interface("supportedInterfaces[0].url", "http://10.0.0.5 is internal.");
        assert_eq!(r.score, before.0.saturating_sub(ERROR_PENALTY));
        assert_eq!(r.issues.len(), before.1 + 1);
        let refused: Vec<_> = r.refused_interfaces().collect();
        assert_eq!(refused.len(), 1);
        assert_eq!(refused[0].severity, Severity::Error);
        assert_eq!(refused[0].path, "supportedInterfaces[0].url");
        assert_eq!(
            refused[0].message,
            "The console will not call this interface: http://10.0.0.5 is internal."
        );
        assert!(r.has_errors());
    }
}
