//! Teams, grants and members as an admin changes them (`shared/spec/security-and-durability.md`
//! §1.3 "Access management", §1.4): one [`AccessChange`] per call, applied in one transaction
//! with its audit fact. A change that is already true writes nothing and records nothing. A
//! revoked grant or a disabled team applies from the next request ([`super::access`] reads
//! grants per request); accepted work continues.

use app::api::access::{AccessChange, AccessOverview, AgentChoice, GrantRow, MemberRow, TeamRow};
use app::words::{GrantPermission, GrantSubject, Role};
use chrono::Utc;
use sea_orm::sea_query::Query;
use sea_orm::{
    ActiveModelTrait, ActiveValue::Set, ColumnTrait, ConnectionTrait, DatabaseTransaction, EntityTrait,
    PaginatorTrait, QueryFilter, QueryOrder, QuerySelect, TransactionTrait,
};
use serde_json::{Value, json};

use super::audit::{self, Actor};
use super::identity::{self, Provision, provision_in};
use super::{StoreError, new_id};
use crate::db::Db;
use crate::db::entity::{
    access_grant, agent, external_identity, membership, organization, team, team_membership, user,
};

pub const TEAM_EXISTS: &str = "A team with this name already exists.";
pub const TEAM_DISABLED: &str = "The team is disabled.";
pub const LAST_ADMIN: &str = "The organization needs at least one enabled admin.";

/// Members, teams, enabled grants and agents of `organization_id`, for the Access screen.
pub async fn overview(db: &Db, organization_id: &str) -> Result<AccessOverview, StoreError> {
    let conn = &db.read;
    let memberships = membership::Entity::find()
        .filter(membership::Column::OrganizationId.eq(organization_id))
        .order_by_asc(membership::Column::CreatedAt)
        .all(conn)
        .await?;
    let user_ids: Vec<&str> = memberships.iter().map(|m| m.user_id.as_str()).collect();
    let users = user::Entity::find()
        .filter(user::Column::Id.is_in(user_ids.clone()))
        .all(conn)
        .await?;
    let identities = external_identity::Entity::find()
        .filter(external_identity::Column::UserId.is_in(user_ids))
        .order_by_asc(external_identity::Column::CreatedAt)
        .all(conn)
        .await?;
    let members = memberships
        .into_iter()
        .filter_map(|m| {
            let person = users.iter().find(|u| u.id == m.user_id)?;
            Some(MemberRow {
                display_name: person.display_name.clone(),
                role: m.role,
                enabled: m.enabled,
                account_enabled: person.enabled,
                identities: identities
                    .iter()
                    .filter(|i| i.user_id == m.user_id)
                    .map(|i| format!("{} {}", i.issuer, i.subject))
                    .collect(),
                membership_id: m.id,
            })
        })
        .collect();
    let team_rows = team::Entity::find()
        .filter(team::Column::OrganizationId.eq(organization_id))
        .order_by_asc(team::Column::Name)
        .all(conn)
        .await?;
    let links = team_membership::Entity::find()
        .filter(team_membership::Column::TeamId.is_in(team_rows.iter().map(|t| t.id.as_str())))
        .order_by_asc(team_membership::Column::CreatedAt)
        .all(conn)
        .await?;
    let teams = team_rows
        .into_iter()
        .map(|t| TeamRow {
            member_ids: links
                .iter()
                .filter(|l| l.team_id == t.id)
                .map(|l| l.membership_id.clone())
                .collect(),
            team_id: t.id,
            name: t.name,
            enabled: t.enabled,
        })
        .collect();
    let grants = access_grant::Entity::find()
        .filter(access_grant::Column::OrganizationId.eq(organization_id))
        .filter(access_grant::Column::Enabled.eq(true))
        .order_by_asc(access_grant::Column::CreatedAt)
        .all(conn)
        .await?
        .into_iter()
        .map(|g| GrantRow {
            grant_id: g.id,
            subject_type: g.subject_type,
            subject_id: g.subject_id,
            agent_id: g.agent_id,
            skill_id: g.skill_id,
            permission: g.permission,
        })
        .collect();
    let agents = agent::Entity::find()
        .filter(agent::Column::OrganizationId.eq(organization_id))
        .filter(agent::Column::Enabled.eq(true))
        .filter(agent::Column::RemovedAt.is_null())
        .order_by_asc(agent::Column::CreatedAt)
        .all(conn)
        .await?
        .into_iter()
        .map(|a| AgentChoice {
            name: a.display_name.unwrap_or_else(|| a.card_url.clone()),
            agent_id: a.id,
        })
        .collect();
    // What is stored, never a value (§2.2: agent, kind, enabled, updated).
    let credentials = super::credentials::of_organization(db, organization_id)
        .await?
        .into_iter()
        .map(|c| app::api::access::CredentialRow {
            agent_id: c.agent_id,
            kind: c.kind,
            enabled: c.enabled,
            updated_at: c.updated_at.to_rfc3339(),
        })
        .collect();
    Ok(AccessOverview {
        organization_id: organization_id.to_owned(),
        members,
        teams,
        grants,
        agents,
        credentials,
    })
}

/// What one change did: its target, and the fact to record when it changed anything.
struct Applied {
    target_id: String,
    fact: Option<(&'static str, Value)>,
}

impl Applied {
    fn changed(target_id: String, action: &'static str, detail: Value) -> Applied {
        Applied {
            target_id,
            fact: Some((action, detail)),
        }
    }

    fn unchanged(target_id: String) -> Applied {
        Applied {
            target_id,
            fact: None,
        }
    }
}

/// Applies `change` (already validated) in `organization_id` for `actor`, with its audit fact, in
/// one transaction. Returns the id of the team, grant or membership it created or changed.
pub async fn apply(
    db: &Db,
    organization_id: &str,
    actor: &Actor,
    change: AccessChange,
) -> Result<String, StoreError> {
    let tx = db.write.begin().await?;
    serialize_changes(&tx, organization_id).await?;
    let applied = match change {
        AccessChange::CreateTeam { name } => create_team(&tx, organization_id, name).await?,
        AccessChange::AddTeamMember {
            team_id,
            membership_id,
        } => {
            let team = enabled_team(&tx, organization_id, &team_id).await?;
            member_row(&tx, organization_id, &membership_id).await?;
            add_team_member(&tx, &team, membership_id).await?
        }
        AccessChange::RemoveTeamMember {
            team_id,
            membership_id,
        } => {
            let team = team_row(&tx, organization_id, &team_id).await?;
            let removed = team_membership::Entity::delete_by_id((team.id.clone(), membership_id.clone()))
                .exec(&tx)
                .await?;
            if removed.rows_affected == 0 {
                Applied::unchanged(team.id)
            } else {
                Applied::changed(
                    team.id,
                    "team.member_removed",
                    json!({ "membershipId": membership_id }),
                )
            }
        }
        AccessChange::DisableTeam { team_id } => {
            let team = team_row(&tx, organization_id, &team_id).await?;
            if team.enabled {
                let mut active: team::ActiveModel = team.into();
                active.enabled = Set(false);
                active.updated_at = Set(Utc::now());
                let team = active.update(&tx).await?;
                Applied::changed(team.id, "team.disabled", json!({}))
            } else {
                Applied::unchanged(team.id)
            }
        }
        AccessChange::Grant {
            subject_type,
            subject_id,
            agent_id,
            skill_id,
            permission,
        } => {
            grant(
                &tx,
                organization_id,
                NewGrant {
                    subject_type,
                    subject_id,
                    agent_id,
                    skill_id,
                    permission,
                },
            )
            .await?
        }
        AccessChange::RevokeGrant { grant_id } => revoke(&tx, organization_id, &grant_id).await?,
        AccessChange::ProvisionMember {
            issuer,
            subject,
            name,
            role,
        } => {
            let who = Provision {
                issuer: &issuer,
                subject: &subject,
                organization: "",
                name: &name,
                role,
            };
            // Provisioning an admin who is already there with another role demotes them: the
            // organization keeps an admin, as with `setRole`.
            if role != Role::Admin
                && let Some(existing) = identity::member_of(&tx, organization_id, &issuer, &subject).await?
                && existing.role == Role::Admin
            {
                keep_an_admin(&tx, organization_id, &existing.membership_id).await?;
            }
            // Audited inside, as every provisioning is.
            let member = provision_in(&tx, organization_id, &who, actor).await?;
            Applied::unchanged(member.membership_id)
        }
        AccessChange::SetRole { membership_id, role } => {
            let row = member_row(&tx, organization_id, &membership_id).await?;
            if row.role == role {
                Applied::unchanged(row.id)
            } else {
                if row.role == Role::Admin {
                    keep_an_admin(&tx, organization_id, &row.id).await?;
                }
                let from = row.role;
                let row = update_membership(&tx, row, |m| m.role = Set(role)).await?;
                Applied::changed(
                    row.id,
                    "membership.role_changed",
                    json!({ "from": from, "to": role }),
                )
            }
        }
        AccessChange::DisableMember { membership_id } => {
            let row = member_row(&tx, organization_id, &membership_id).await?;
            if !row.enabled {
                Applied::unchanged(row.id)
            } else {
                if row.role == Role::Admin {
                    keep_an_admin(&tx, organization_id, &row.id).await?;
                }
                let row = update_membership(&tx, row, |m| m.enabled = Set(false)).await?;
                Applied::changed(row.id, "membership.disabled", json!({}))
            }
        }
        AccessChange::EnableMember { membership_id } => {
            let row = member_row(&tx, organization_id, &membership_id).await?;
            if row.enabled {
                Applied::unchanged(row.id)
            } else {
                let row = update_membership(&tx, row, |m| m.enabled = Set(true)).await?;
                Applied::changed(row.id, "membership.enabled", json!({}))
            }
        }
    };
    if let Some((action, detail)) = applied.fact {
        audit::record(
            &tx,
            audit::Fact {
                organization_id,
                event_key: format!("{action}:{}", new_id()),
                action,
                actor,
                target_id: &applied.target_id,
                detail,
            },
        )
        .await?;
    }
    tx.commit().await?;
    Ok(applied.target_id)
}

async fn create_team(
    tx: &DatabaseTransaction,
    organization_id: &str,
    name: String,
) -> Result<Applied, StoreError> {
    let taken = team::Entity::find()
        .filter(team::Column::OrganizationId.eq(organization_id))
        .filter(team::Column::Name.eq(&name))
        .count(tx)
        .await?;
    if taken > 0 {
        return Err(StoreError::Conflict(TEAM_EXISTS));
    }
    let now = Utc::now();
    let team = team::ActiveModel {
        id: Set(new_id()),
        organization_id: Set(organization_id.to_owned()),
        name: Set(name.clone()),
        enabled: Set(true),
        created_at: Set(now),
        updated_at: Set(now),
    }
    .insert(tx)
    .await?;
    Ok(Applied::changed(team.id, "team.created", json!({ "name": name })))
}

async fn add_team_member(
    tx: &DatabaseTransaction,
    team: &team::Model,
    membership_id: String,
) -> Result<Applied, StoreError> {
    let present = team_membership::Entity::find_by_id((team.id.clone(), membership_id.clone()))
        .one(tx)
        .await?;
    if present.is_some() {
        return Ok(Applied::unchanged(team.id.clone()));
    }
    team_membership::ActiveModel {
        team_id: Set(team.id.clone()),
        membership_id: Set(membership_id.clone()),
        created_at: Set(Utc::now()),
    }
    .insert(tx)
    .await?;
    Ok(Applied::changed(
        team.id.clone(),
        "team.member_added",
        json!({ "membershipId": membership_id }),
    ))
}

/// A grant to create.
struct NewGrant {
    subject_type: GrantSubject,
    subject_id: String,
    agent_id: String,
    skill_id: Option<String>,
    permission: GrantPermission,
}

async fn grant(
    tx: &DatabaseTransaction,
    organization_id: &str,
    new: NewGrant,
) -> Result<Applied, StoreError> {
    match new.subject_type {
        GrantSubject::Organization if new.subject_id != organization_id => return Err(StoreError::NotFound),
        GrantSubject::Organization => {}
        GrantSubject::Membership => {
            member_row(tx, organization_id, &new.subject_id).await?;
        }
        GrantSubject::Team => {
            enabled_team(tx, organization_id, &new.subject_id).await?;
        }
    }
    agent::Entity::find_by_id(new.agent_id.clone())
        .filter(agent::Column::OrganizationId.eq(organization_id))
        .filter(agent::Column::Enabled.eq(true))
        .filter(agent::Column::RemovedAt.is_null())
        .one(tx)
        .await?
        .ok_or(StoreError::NotFound)?;
    let mut same = access_grant::Entity::find()
        .filter(access_grant::Column::OrganizationId.eq(organization_id))
        .filter(access_grant::Column::Enabled.eq(true))
        .filter(access_grant::Column::SubjectType.eq(new.subject_type))
        .filter(access_grant::Column::SubjectId.eq(&new.subject_id))
        .filter(access_grant::Column::AgentId.eq(&new.agent_id))
        .filter(access_grant::Column::Permission.eq(new.permission));
    same = match &new.skill_id {
        Some(skill) => same.filter(access_grant::Column::SkillId.eq(skill)),
        None => same.filter(access_grant::Column::SkillId.is_null()),
    };
    if let Some(existing) = same.one(tx).await? {
        return Ok(Applied::unchanged(existing.id));
    }
    let row = access_grant::ActiveModel {
        id: Set(new_id()),
        organization_id: Set(organization_id.to_owned()),
        subject_type: Set(new.subject_type),
        subject_id: Set(new.subject_id),
        agent_id: Set(new.agent_id),
        skill_id: Set(new.skill_id),
        permission: Set(new.permission),
        enabled: Set(true),
        created_at: Set(Utc::now()),
        revoked_at: Set(None),
    }
    .insert(tx)
    .await?;
    let detail = json!({
        "subjectType": row.subject_type,
        "subjectId": row.subject_id,
        "agentId": row.agent_id,
        "skillId": row.skill_id,
        "permission": row.permission,
    });
    Ok(Applied::changed(row.id, "grant.created", detail))
}

async fn revoke(
    tx: &DatabaseTransaction,
    organization_id: &str,
    grant_id: &str,
) -> Result<Applied, StoreError> {
    let row = access_grant::Entity::find_by_id(grant_id.to_owned())
        .filter(access_grant::Column::OrganizationId.eq(organization_id))
        .one(tx)
        .await?
        .ok_or(StoreError::NotFound)?;
    if !row.enabled {
        return Ok(Applied::unchanged(row.id));
    }
    let mut active: access_grant::ActiveModel = row.into();
    active.enabled = Set(false);
    active.revoked_at = Set(Some(Utc::now()));
    let row = active.update(tx).await?;
    Ok(Applied::changed(row.id, "grant.revoked", json!({})))
}

async fn team_row<C: ConnectionTrait>(
    db: &C,
    organization_id: &str,
    team_id: &str,
) -> Result<team::Model, StoreError> {
    team::Entity::find_by_id(team_id.to_owned())
        .filter(team::Column::OrganizationId.eq(organization_id))
        .one(db)
        .await?
        .ok_or(StoreError::NotFound)
}

async fn enabled_team<C: ConnectionTrait>(
    db: &C,
    organization_id: &str,
    team_id: &str,
) -> Result<team::Model, StoreError> {
    let team = team_row(db, organization_id, team_id).await?;
    if !team.enabled {
        return Err(StoreError::Conflict(TEAM_DISABLED));
    }
    Ok(team)
}

async fn member_row<C: ConnectionTrait>(
    db: &C,
    organization_id: &str,
    membership_id: &str,
) -> Result<membership::Model, StoreError> {
    membership::Entity::find_by_id(membership_id.to_owned())
        .filter(membership::Column::OrganizationId.eq(organization_id))
        .one(db)
        .await?
        .ok_or(StoreError::NotFound)
}

async fn update_membership(
    tx: &DatabaseTransaction,
    row: membership::Model,
    change: impl FnOnce(&mut membership::ActiveModel),
) -> Result<membership::Model, StoreError> {
    let mut active: membership::ActiveModel = row.into();
    change(&mut active);
    active.updated_at = Set(Utc::now());
    Ok(active.update(tx).await?)
}

/// Makes the organization's access changes one at a time: on PostgreSQL the organization row is
/// locked until the transaction ends, so two admins demoting each other at once cannot both see
/// the other as the remaining admin. SQLite has one writer, which serializes them already.
async fn serialize_changes(tx: &DatabaseTransaction, organization_id: &str) -> Result<(), StoreError> {
    if tx.get_database_backend() == sea_orm::DatabaseBackend::Postgres {
        organization::Entity::find_by_id(organization_id.to_owned())
            // NO KEY UPDATE: agents and other rows that reference the organization go on.
            .lock(sea_orm::sea_query::LockType::NoKeyUpdate)
            .one(tx)
            .await?;
    }
    Ok(())
}

/// `409` unless another enabled admin remains once `membership_id` stops being one: nobody could
/// manage access again without editing the database.
async fn keep_an_admin(
    tx: &DatabaseTransaction,
    organization_id: &str,
    membership_id: &str,
) -> Result<(), StoreError> {
    let enabled_people = Query::select()
        .column(user::Column::Id)
        .from(user::Entity)
        .and_where(user::Column::Enabled.eq(true))
        .to_owned();
    let others = membership::Entity::find()
        .filter(membership::Column::OrganizationId.eq(organization_id))
        .filter(membership::Column::Role.eq(Role::Admin))
        .filter(membership::Column::Enabled.eq(true))
        .filter(membership::Column::UserId.in_subquery(enabled_people))
        .filter(membership::Column::Id.ne(membership_id))
        .count(tx)
        .await?;
    if others == 0 {
        return Err(StoreError::Conflict(LAST_ADMIN));
    }
    Ok(())
}
