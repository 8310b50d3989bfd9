//! What a member may read and operate (`shared/spec/security-and-durability.md` §1.3, §1.4,
//! ADR 0038): an [`Access`] is built once per request from the member's role and every enabled
//! grant that applies to them (given to the organization, to their membership, or to an enabled
//! team they are in), and every read of tasks, approvals, commands, artifacts, conversations and
//! ledger events filters by it **in SQL, before paging** ([`Access::rows`]), so a page never holds
//! a hidden row and anything unreadable is simply not found (`404`).
//!
//! - Admins, and the workers (which act for no one), reach everything.
//! - A non-admin with no grant reaches nothing.
//! - A grant on an agent covers all its tasks; a grant on one skill covers only tasks of that
//!   skill. `operate` implies `read`.
//! - The role is a ceiling: a viewer's `operate` grants read only.

use app::words::{GrantPermission, GrantSubject, Role};
use sea_orm::sea_query::{Expr, ExprTrait, Query};
use sea_orm::{ColumnTrait, Condition, ConnectionTrait, EntityTrait, QueryFilter};

use super::StoreError;
use crate::db::entity::{access_grant, team, team_membership};

/// What one caller may reach in their organization.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Access {
    /// Every query is scoped to it.
    pub organization_id: String,
    reach: Reach,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Reach {
    Everything,
    Granted(Vec<Grant>),
}

/// One applicable grant, as a request uses it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grant {
    pub agent_id: String,
    /// `None`: the whole agent.
    pub skill_id: Option<String>,
    pub permission: GrantPermission,
}

impl Access {
    /// Everything in `organization_id`: an admin, or a worker acting for no one.
    pub fn everything(organization_id: impl Into<String>) -> Access {
        Access {
            organization_id: organization_id.into(),
            reach: Reach::Everything,
        }
    }

    /// Exactly `grants` in `organization_id` (a non-admin; also tests).
    pub fn granted(organization_id: impl Into<String>, grants: Vec<Grant>) -> Access {
        Access {
            organization_id: organization_id.into(),
            reach: Reach::Granted(grants),
        }
    }

    /// The access of membership `membership_id` with `role`: everything for an admin, otherwise
    /// the enabled grants that apply to it, read in one query, capped by the role.
    pub async fn of_member<C: ConnectionTrait>(
        db: &C,
        organization_id: &str,
        membership_id: &str,
        role: Role,
    ) -> Result<Access, StoreError> {
        if role == Role::Admin {
            return Ok(Access::everything(organization_id));
        }
        let teams = Query::select()
            .column((team_membership::Entity, team_membership::Column::TeamId))
            .from(team_membership::Entity)
            .inner_join(
                team::Entity,
                Expr::col((team::Entity, team::Column::Id))
                    .equals((team_membership::Entity, team_membership::Column::TeamId)),
            )
            .and_where(
                Expr::col((team_membership::Entity, team_membership::Column::MembershipId)).eq(membership_id),
            )
            .and_where(Expr::col((team::Entity, team::Column::Enabled)).eq(true))
            .to_owned();
        let rows = access_grant::Entity::find()
            .filter(access_grant::Column::OrganizationId.eq(organization_id))
            .filter(access_grant::Column::Enabled.eq(true))
            .filter(
                Condition::any()
                    .add(access_grant::Column::SubjectType.eq(GrantSubject::Organization))
                    .add(
                        Condition::all()
                            .add(access_grant::Column::SubjectType.eq(GrantSubject::Membership))
                            .add(access_grant::Column::SubjectId.eq(membership_id)),
                    )
                    .add(
                        Condition::all()
                            .add(access_grant::Column::SubjectType.eq(GrantSubject::Team))
                            .add(access_grant::Column::SubjectId.in_subquery(teams)),
                    ),
            )
            .all(db)
            .await?;
        let grants = rows
            .into_iter()
            .map(|row| Grant {
                agent_id: row.agent_id,
                skill_id: row.skill_id,
                // The role is a ceiling: a viewer never operates (§1.3).
                permission: if role == Role::Viewer {
                    GrantPermission::Read
                } else {
                    row.permission
                },
            })
            .collect();
        Ok(Access::granted(organization_id, grants))
    }

    /// Whether this is everything (an admin or a worker).
    pub fn is_everything(&self) -> bool {
        self.reach == Reach::Everything
    }

    /// The rows whose agent and skill columns are `agent` and `skill` that this access reads, as
    /// a condition for the query's `WHERE` (the organization is filtered by the caller): any
    /// grant on the agent, or on the row's skill. Nothing at all without a grant.
    pub fn rows<A: ColumnTrait, S: ColumnTrait>(&self, agent: A, skill: S) -> Condition {
        let grants = match &self.reach {
            Reach::Everything => return Condition::all(),
            Reach::Granted(grants) => grants,
        };
        let whole: Vec<&str> = grants
            .iter()
            .filter(|g| g.skill_id.is_none())
            .map(|g| g.agent_id.as_str())
            .collect();
        // `1 = 0` keeps an empty grant list explicit: no row.
        let mut any = Condition::any().add(Expr::val(1).eq(0));
        if !whole.is_empty() {
            any = any.add(agent.is_in(whole));
        }
        for grant in grants {
            if let Some(skill_id) = &grant.skill_id {
                any = any.add(
                    Condition::all()
                        .add(agent.eq(grant.agent_id.as_str()))
                        .add(skill.eq(skill_id.as_str())),
                );
            }
        }
        any
    }

    /// The agents this access sees at all (a grant on the agent or on one of its skills), as a
    /// condition on `agent`'s id column.
    pub fn agents<A: ColumnTrait>(&self, id: A) -> Condition {
        match &self.reach {
            Reach::Everything => Condition::all(),
            // `1 = 0` keeps an empty grant list explicit: no agent.
            Reach::Granted(grants) if grants.is_empty() => Condition::any().add(Expr::val(1).eq(0)),
            Reach::Granted(grants) => {
                Condition::any().add(id.is_in(grants.iter().map(|g| g.agent_id.as_str())))
            }
        }
    }

    /// Whether a row of `agent_id` with `skill_id` is readable.
    pub fn reads(&self, agent_id: &str, skill_id: Option<&str>) -> bool {
        self.allows(agent_id, skill_id, GrantPermission::Read)
    }

    /// Whether the whole agent is readable (every task of it, whatever its skill): a
    /// conversation's history and live stream need it.
    pub fn reads_agent(&self, agent_id: &str) -> bool {
        self.allows(agent_id, None, GrantPermission::Read)
    }

    /// Whether work of `agent_id` with `skill_id` may be operated (sent, replied to, cancelled,
    /// decided). A send without a skill needs a grant on the whole agent: a skill-only grant
    /// never authorizes a generic send (§1.3). The role's own ceiling is checked by the route.
    pub fn operates(&self, agent_id: &str, skill_id: Option<&str>) -> bool {
        self.allows(agent_id, skill_id, GrantPermission::Operate)
    }

    fn allows(&self, agent_id: &str, skill_id: Option<&str>, needed: GrantPermission) -> bool {
        let grants = match &self.reach {
            Reach::Everything => return true,
            Reach::Granted(grants) => grants,
        };
        grants.iter().any(|grant| {
            grant.agent_id == agent_id
                && (grant.skill_id.is_none() || grant.skill_id.as_deref() == skill_id)
                && (needed == GrantPermission::Read || grant.permission == GrantPermission::Operate)
        })
    }

    /// Whether skill `skill_id` of `agent_id` is visible: every skill of an agent read as a whole,
    /// only the granted ones otherwise (a skill-only member's reduced card, §1.3).
    pub fn shows_skill(&self, agent_id: &str, skill_id: &str) -> bool {
        self.skills_of(agent_id)
            .is_none_or(|granted| granted.iter().any(|g| g == skill_id))
    }

    /// `report` as this access may see it: a member limited to some skills of `agent_id` does not
    /// see the findings about the card's skills (their paths and messages name hidden ones).
    pub fn reduce_report(&self, agent_id: &str, report: &mut app::a2a::ComplianceReport) {
        if self.skills_of(agent_id).is_some() {
            report.issues.retain(|issue| !issue.path.starts_with("skills"));
        }
    }

    /// The skills of `agent_id` this access is limited to: `None` when it reads the whole
    /// agent, otherwise the granted skills (a skill-only member sees a reduced card).
    pub fn skills_of(&self, agent_id: &str) -> Option<Vec<String>> {
        if self.reads_agent(agent_id) {
            return None;
        }
        let Reach::Granted(grants) = &self.reach else {
            return None;
        };
        Some(
            grants
                .iter()
                .filter(|g| g.agent_id == agent_id)
                .filter_map(|g| g.skill_id.clone())
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grant(agent: &str, skill: Option<&str>, permission: GrantPermission) -> Grant {
        Grant {
            agent_id: agent.into(),
            skill_id: skill.map(Into::into),
            permission,
        }
    }

    #[test]
    fn operate_implies_read_and_skill_grants_cover_only_their_skill_security_1_3() {
        let access = Access::granted(
            "org",
            vec![
                grant("a1", None, GrantPermission::Read),
                grant("a2", Some("summarize"), GrantPermission::Operate),
            ],
        );
        assert!(access.reads("a1", None) && access.reads("a1", Some("any")));
        assert!(!access.operates("a1", None), "read does not operate");
        assert!(access.reads("a2", Some("summarize")) && access.operates("a2", Some("summarize")));
        assert!(!access.reads("a2", Some("translate")));
        assert!(!access.reads_agent("a2"));
        assert!(
            !access.operates("a2", None),
            "a skill-only grant never authorizes a generic send"
        );
        assert!(!access.reads("a3", None), "no grant, nothing");
        assert_eq!(access.skills_of("a2"), Some(vec!["summarize".to_owned()]));
        assert_eq!(access.skills_of("a1"), None);
    }

    #[test]
    fn a_skill_only_member_sees_no_finding_about_skills() {
        use app::a2a::{CardVersion, ComplianceIssue, ComplianceReport, Severity};
        let report = ComplianceReport {
            version: CardVersion::V1_0,
            score: 90,
            issues: ["skills[1].id", "supportedInterfaces[0].url"]
                .into_iter()
                .map(|path| ComplianceIssue {
                    severity: Severity::Warning,
                    path: path.into(),
                    message: format!("about {path}"),
                })
                .collect(),
        };
        let paths = |access: &Access| {
            let mut seen = report.clone();
            access.reduce_report("a1", &mut seen);
            seen.issues.into_iter().map(|i| i.path).collect::<Vec<_>>()
        };
        let skill_only = Access::granted("org", vec![grant("a1", Some("s1"), GrantPermission::Read)]);
        assert_eq!(paths(&skill_only), ["supportedInterfaces[0].url"]);
        let whole = Access::granted("org", vec![grant("a1", None, GrantPermission::Read)]);
        assert_eq!(paths(&whole).len(), 2);
        assert_eq!(paths(&Access::everything("org")).len(), 2);
    }

    #[test]
    fn everything_reaches_every_agent() {
        let access = Access::everything("org");
        assert!(access.is_everything());
        assert!(access.operates("any", None) && access.reads_agent("any"));
        assert_eq!(access.skills_of("any"), None);
    }
}
