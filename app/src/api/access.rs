//! Who may reach what (`shared/spec/security-and-durability.md` §1.3, §1.4): the Access screen's
//! server functions and the one change type both it and `POST /api/admin/security` take. Admins
//! only: the request guard checks `administer` before either function runs.

use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::AppError;
use crate::words::{GrantPermission, GrantSubject, Role};

/// Longest team name, in characters.
pub const TEAM_NAME_MAX: usize = 100;
/// Longest display name of a provisioned person, in characters.
pub const PERSON_NAME_MAX: usize = 200;
/// Longest issuer URL.
pub const ISSUER_MAX: usize = 500;
/// Longest subject.
pub const SUBJECT_MAX: usize = 255;
/// Longest skill id.
pub const SKILL_MAX: usize = 200;

/// Everything the Access screen shows.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AccessOverview {
    pub organization_id: String,
    pub members: Vec<MemberRow>,
    pub teams: Vec<TeamRow>,
    pub grants: Vec<GrantRow>,
    /// The registered agents, to grant on (id and name).
    pub agents: Vec<AgentChoice>,
    /// The agents' stored credentials: which kind, whether enabled, when changed; never a value.
    #[serde(default)]
    pub credentials: Vec<CredentialRow>,
}

/// One agent's stored credential, as the security overview lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CredentialRow {
    pub agent_id: String,
    pub kind: crate::words::CredentialKind,
    pub enabled: bool,
    /// RFC 3339.
    pub updated_at: String,
}

/// One membership.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MemberRow {
    pub membership_id: String,
    pub display_name: String,
    pub role: Role,
    /// The membership is enabled (Disable / Enable change it).
    pub enabled: bool,
    /// The person's account is enabled in every organization (only the database changes it: a
    /// disabled account cannot sign in whatever its memberships say).
    pub account_enabled: bool,
    /// `issuer subject` of each identity the person signs in with.
    pub identities: Vec<String>,
}

/// One team and its members' membership ids.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TeamRow {
    pub team_id: String,
    pub name: String,
    pub enabled: bool,
    pub member_ids: Vec<String>,
}

/// One enabled grant.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GrantRow {
    pub grant_id: String,
    pub subject_type: GrantSubject,
    pub subject_id: String,
    pub agent_id: String,
    pub skill_id: Option<String>,
    pub permission: GrantPermission,
}

/// An agent a grant may name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentChoice {
    pub agent_id: String,
    pub name: String,
}

/// One change to people or access, discriminated by `action` (reference: `POST
/// /api/admin/security`); unknown fields are refused.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "camelCase", deny_unknown_fields)]
pub enum AccessChange {
    #[serde(rename_all = "camelCase")]
    CreateTeam { name: String },
    #[serde(rename_all = "camelCase")]
    AddTeamMember { team_id: String, membership_id: String },
    #[serde(rename_all = "camelCase")]
    RemoveTeamMember { team_id: String, membership_id: String },
    #[serde(rename_all = "camelCase")]
    DisableTeam { team_id: String },
    #[serde(rename_all = "camelCase")]
    Grant {
        subject_type: GrantSubject,
        subject_id: String,
        agent_id: String,
        #[serde(default)]
        skill_id: Option<String>,
        permission: GrantPermission,
    },
    #[serde(rename_all = "camelCase")]
    RevokeGrant { grant_id: String },
    /// Provisions a person (idempotent, as the CLI's `auth provision`).
    #[serde(rename_all = "camelCase")]
    ProvisionMember {
        issuer: String,
        subject: String,
        name: String,
        role: Role,
    },
    #[serde(rename_all = "camelCase")]
    SetRole { membership_id: String, role: Role },
    #[serde(rename_all = "camelCase")]
    DisableMember { membership_id: String },
    #[serde(rename_all = "camelCase")]
    EnableMember { membership_id: String },
}

fn invalid(field: &str, message: &str) -> AppError {
    AppError::Invalid {
        field: field.into(),
        message: message.into(),
    }
}

/// `value` trimmed, required and at most `max` characters.
fn text(field: &str, label: &str, value: &str, max: usize) -> Result<String, AppError> {
    let value = value.trim();
    if value.is_empty() {
        return Err(invalid(field, &format!("{label} is required.")));
    }
    if value.chars().count() > max {
        return Err(invalid(
            field,
            &format!("{label} must be at most {max} characters."),
        ));
    }
    if value.chars().any(char::is_control) {
        return Err(invalid(
            field,
            &format!("{label} must not contain control characters."),
        ));
    }
    Ok(value.to_owned())
}

impl AccessChange {
    /// The change with its text trimmed, or the first field that is not acceptable.
    pub fn validated(self) -> Result<AccessChange, AppError> {
        Ok(match self {
            AccessChange::CreateTeam { name } => AccessChange::CreateTeam {
                name: text("name", "Team name", &name, TEAM_NAME_MAX)?,
            },
            AccessChange::Grant {
                subject_type,
                subject_id,
                agent_id,
                skill_id,
                permission,
            } => AccessChange::Grant {
                subject_type,
                subject_id: text("subjectId", "Who", &subject_id, 36)?,
                agent_id: text("agentId", "Agent", &agent_id, 36)?,
                skill_id: match skill_id.as_deref().map(str::trim) {
                    None | Some("") => None,
                    Some(skill) => Some(text("skillId", "Skill", skill, SKILL_MAX)?),
                },
                permission,
            },
            AccessChange::ProvisionMember {
                issuer,
                subject,
                name,
                role,
            } => {
                let issuer = text("issuer", "Issuer", &issuer, ISSUER_MAX)?;
                if !issuer.starts_with("https://") {
                    return Err(invalid("issuer", "Issuer must be an https:// URL."));
                }
                AccessChange::ProvisionMember {
                    issuer: issuer.trim_end_matches('/').to_owned(),
                    subject: text("subject", "Subject", &subject, SUBJECT_MAX)?,
                    name: text("name", "Name", &name, PERSON_NAME_MAX)?,
                    role,
                }
            }
            other => other,
        })
    }
}

/// What the server provides.
#[cfg(feature = "ssr")]
pub trait AccessBackend: Send + Sync {
    fn overview(&self) -> crate::api::BoxFuture<'_, Result<AccessOverview, AppError>>;
    /// Applies a validated change; returns the id of what it created or changed.
    fn change(&self, change: AccessChange) -> crate::api::BoxFuture<'_, Result<String, AppError>>;
}

/// Members, teams and grants.
#[server(prefix = "/api/fn", endpoint = "get_access")]
pub async fn get_access() -> Result<AccessOverview, AppError> {
    crate::api::respond(async { crate::api::backend()?.access.overview().await }.await)
}

/// Applies one change to people or access (audited).
#[server(prefix = "/api/fn", endpoint = "change_access", input = leptos::server_fn::codec::Json)]
pub async fn change_access(change: AccessChange) -> Result<String, AppError> {
    crate::api::respond(
        async {
            let change = change.validated()?;
            crate::api::backend()?.access.change(change).await
        }
        .await,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_are_strict_and_discriminated_by_action() {
        let change: AccessChange = serde_json::from_str(
            r#"{"action":"grant","subjectType":"team","subjectId":"t1","agentId":"a1","permission":"operate"}"#,
        )
        .unwrap();
        assert_eq!(
            change,
            AccessChange::Grant {
                subject_type: GrantSubject::Team,
                subject_id: "t1".into(),
                agent_id: "a1".into(),
                skill_id: None,
                permission: GrantPermission::Operate,
            }
        );
        for hostile in [
            r#"{"action":"createTeam","name":"x","extra":1}"#,
            r#"{"action":"dropTables"}"#,
            r#"{"name":"x"}"#,
            r#"{"action":"setRole","membershipId":"m","role":"owner"}"#,
        ] {
            assert!(
                serde_json::from_str::<AccessChange>(hostile).is_err(),
                "{hostile}"
            );
        }
    }

    #[test]
    fn text_fields_are_trimmed_bounded_and_required() {
        let named = |name: &str| AccessChange::CreateTeam { name: name.into() }.validated();
        assert_eq!(
            named("  Support  ").unwrap(),
            AccessChange::CreateTeam {
                name: "Support".into()
            }
        );
        assert_eq!(named("   ").unwrap_err().to_string(), "Team name is required.");
        assert_eq!(
            named(&"x".repeat(101)).unwrap_err().to_string(),
            "Team name must be at most 100 characters."
        );
        assert_eq!(
            named("a\u{0}b").unwrap_err().to_string(),
            "Team name must not contain control characters."
        );
        let provision = AccessChange::ProvisionMember {
            issuer: "http://idp.example".into(),
            subject: "s".into(),
            name: "n".into(),
            role: Role::Viewer,
        };
        assert_eq!(
            provision.validated().unwrap_err().to_string(),
            "Issuer must be an https:// URL."
        );
        let skill = AccessChange::Grant {
            subject_type: GrantSubject::Organization,
            subject_id: "org".into(),
            agent_id: "a1".into(),
            skill_id: Some("  ".into()),
            permission: GrantPermission::Read,
        };
        assert!(matches!(
            skill.validated().unwrap(),
            AccessChange::Grant { skill_id: None, .. }
        ));
    }
}
