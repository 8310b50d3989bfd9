//! People and their memberships (`shared/spec/security-and-durability.md` §1.1 "Provisioning",
//! §1.5): users known by `(issuer, subject)` pairs, one role per organization. There is no
//! just-in-time account: a person exists once provisioned ([`provision`], the CLI's
//! `auth provision`), and the development-mode administrator once its first request
//! ([`development_member`]).

use chrono::Utc;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, Set, TransactionTrait,
};

use super::audit::{self, Actor};
use super::{StoreError, new_id};
use crate::db::Db;
use crate::db::entity::{external_identity, membership, organization, user};
pub use app::words::Role;

/// The issuer of the development-mode administrator's identity (§1.5).
pub const DEVELOPMENT_ISSUER: &str = "agent-taskbay:development";
/// Its subject.
pub const DEVELOPMENT_SUBJECT: &str = "local-operator";
/// Its display name.
pub const DEVELOPMENT_NAME: &str = "Local operator";

/// A membership as a request sees it: who, where, with which role, and whether both the
/// membership and the user are enabled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    pub membership_id: String,
    pub user_id: String,
    pub organization_id: String,
    pub display_name: String,
    pub role: Role,
    /// The membership and the user are both enabled: only then may it act.
    pub active: bool,
}

/// Who to provision, and where.
#[derive(Clone, Debug)]
pub struct Provision<'a> {
    pub issuer: &'a str,
    pub subject: &'a str,
    /// The organization's slug; created (named after it) when no organization has it yet.
    pub organization: &'a str,
    /// The user's display name, used only when the user is new.
    pub name: &'a str,
    pub role: Role,
}

/// Provisions a person (§1.1 step 5): the user and their `(issuer, subject)` identity when new,
/// and their membership in the organization with `role`, enabled. Running it again for the same
/// identity updates the role and re-enables the membership; it neither renames the user nor
/// re-enables a user disabled as a whole. Returns the membership.
pub async fn provision(db: &Db, who: &Provision<'_>) -> Result<Member, StoreError> {
    let tx = db.write.begin().await?;
    let now = Utc::now();
    let organization = match organization::Entity::find()
        .filter(organization::Column::Slug.eq(who.organization))
        .one(&tx)
        .await?
    {
        Some(found) => found,
        None => {
            organization::ActiveModel {
                id: Set(new_id()),
                slug: Set(who.organization.to_owned()),
                name: Set(who.organization.to_owned()),
                created_at: Set(now),
            }
            .insert(&tx)
            .await?
        }
    };
    let member = provision_in(&tx, &organization.id, who, &Actor::System).await?;
    tx.commit().await?;
    Ok(member)
}

/// [`provision`] into the organization `organization_id`, on the caller's transaction, with its
/// audit fact (`membership.provisioned`, by `actor`); `who.organization` is not read.
pub(super) async fn provision_in(
    tx: &impl ConnectionTrait,
    organization_id: &str,
    who: &Provision<'_>,
    actor: &Actor,
) -> Result<Member, StoreError> {
    let now = Utc::now();
    let user = match identity_user(tx, who.issuer, who.subject).await? {
        Some(user) => user,
        None => new_user(tx, who.issuer, who.subject, who.name).await?,
    };
    let existing = membership::Entity::find()
        .filter(membership::Column::OrganizationId.eq(organization_id))
        .filter(membership::Column::UserId.eq(&user.id))
        .one(tx)
        .await?;
    let (membership, changed) = match existing {
        // Already so: nothing to write, nothing to audit.
        Some(found) if found.role == who.role && found.enabled => (found, false),
        Some(found) => {
            let mut active: membership::ActiveModel = found.into();
            active.role = Set(who.role);
            active.enabled = Set(true);
            active.updated_at = Set(now);
            (active.update(tx).await?, true)
        }
        None => (
            new_membership(tx, organization_id, &user.id, who.role).await?,
            true,
        ),
    };
    if changed {
        audit::record(
            tx,
            audit::Fact {
                organization_id,
                event_key: format!("membership.provisioned:{}", new_id()),
                action: "membership.provisioned",
                actor,
                target_id: &membership.id,
                detail: serde_json::json!({ "role": who.role }),
            },
        )
        .await?;
    }
    Ok(member(membership, user))
}

/// The development-mode administrator of `organization_id` (§1.5), provisioned on its first
/// request as an admin. A membership or user disabled since stays disabled: the member comes back
/// inactive, never re-created or re-enabled.
pub async fn development_member(db: &Db, organization_id: &str) -> Result<Member, StoreError> {
    if let Some(found) = member_of(&db.read, organization_id, DEVELOPMENT_ISSUER, DEVELOPMENT_SUBJECT).await?
    {
        return Ok(found);
    }
    match provision_development_member(db, organization_id).await {
        Ok(created) => Ok(created),
        // Two first requests at once on PostgreSQL: the unique indexes refuse the slower one,
        // which then finds what the faster one stored.
        Err(error) => member_of(
            &db.write,
            organization_id,
            DEVELOPMENT_ISSUER,
            DEVELOPMENT_SUBJECT,
        )
        .await?
        .ok_or(error),
    }
}

async fn provision_development_member(db: &Db, organization_id: &str) -> Result<Member, StoreError> {
    let tx = db.write.begin().await?;
    // Another request may have stored it since the read above (SQLite's one writer queues them).
    if let Some(found) = member_of(&tx, organization_id, DEVELOPMENT_ISSUER, DEVELOPMENT_SUBJECT).await? {
        return Ok(found);
    }
    let user = match identity_user(&tx, DEVELOPMENT_ISSUER, DEVELOPMENT_SUBJECT).await? {
        Some(user) => user,
        None => new_user(&tx, DEVELOPMENT_ISSUER, DEVELOPMENT_SUBJECT, DEVELOPMENT_NAME).await?,
    };
    let membership = new_membership(&tx, organization_id, &user.id, Role::Admin).await?;
    tx.commit().await?;
    Ok(member(membership, user))
}

/// The membership in `organization_id` of the person signed in as `(issuer, subject)`, if any.
pub async fn member_of(
    conn: &impl ConnectionTrait,
    organization_id: &str,
    issuer: &str,
    subject: &str,
) -> Result<Option<Member>, StoreError> {
    let Some(user) = identity_user(conn, issuer, subject).await? else {
        return Ok(None);
    };
    let membership = membership::Entity::find()
        .filter(membership::Column::OrganizationId.eq(organization_id))
        .filter(membership::Column::UserId.eq(&user.id))
        .one(conn)
        .await?;
    Ok(membership.map(|membership| member(membership, user)))
}

/// Enables or disables a membership (an admin's action; tests use it for §1.5's rule).
pub async fn set_membership_enabled(db: &Db, membership_id: &str, enabled: bool) -> Result<(), StoreError> {
    let updated = membership::Entity::update_many()
        .col_expr(membership::Column::Enabled, enabled.into())
        .col_expr(membership::Column::UpdatedAt, Utc::now().into())
        .filter(membership::Column::Id.eq(membership_id))
        .exec(&db.write)
        .await?;
    if updated.rows_affected == 0 {
        return Err(StoreError::NotFound);
    }
    Ok(())
}

/// Enables or disables a user in every organization.
pub async fn set_user_enabled(db: &Db, user_id: &str, enabled: bool) -> Result<(), StoreError> {
    let updated = user::Entity::update_many()
        .col_expr(user::Column::Enabled, enabled.into())
        .col_expr(user::Column::UpdatedAt, Utc::now().into())
        .filter(user::Column::Id.eq(user_id))
        .exec(&db.write)
        .await?;
    if updated.rows_affected == 0 {
        return Err(StoreError::NotFound);
    }
    Ok(())
}

async fn identity_user(
    conn: &impl ConnectionTrait,
    issuer: &str,
    subject: &str,
) -> Result<Option<user::Model>, StoreError> {
    let Some(identity) = external_identity::Entity::find()
        .filter(external_identity::Column::Issuer.eq(issuer))
        .filter(external_identity::Column::Subject.eq(subject))
        .one(conn)
        .await?
    else {
        return Ok(None);
    };
    Ok(user::Entity::find_by_id(identity.user_id).one(conn).await?)
}

async fn new_user(
    conn: &impl ConnectionTrait,
    issuer: &str,
    subject: &str,
    name: &str,
) -> Result<user::Model, StoreError> {
    let now = Utc::now();
    let user = user::ActiveModel {
        id: Set(new_id()),
        display_name: Set(name.to_owned()),
        enabled: Set(true),
        created_at: Set(now),
        updated_at: Set(now),
    }
    .insert(conn)
    .await?;
    external_identity::ActiveModel {
        id: Set(new_id()),
        user_id: Set(user.id.clone()),
        issuer: Set(issuer.to_owned()),
        subject: Set(subject.to_owned()),
        created_at: Set(now),
    }
    .insert(conn)
    .await?;
    Ok(user)
}

async fn new_membership(
    conn: &impl ConnectionTrait,
    organization_id: &str,
    user_id: &str,
    role: Role,
) -> Result<membership::Model, StoreError> {
    let now = Utc::now();
    Ok(membership::ActiveModel {
        id: Set(new_id()),
        organization_id: Set(organization_id.to_owned()),
        user_id: Set(user_id.to_owned()),
        role: Set(role),
        enabled: Set(true),
        created_at: Set(now),
        updated_at: Set(now),
    }
    .insert(conn)
    .await?)
}

pub(super) fn member(membership: membership::Model, user: user::Model) -> Member {
    Member {
        active: membership.enabled && user.enabled,
        membership_id: membership.id,
        user_id: user.id,
        organization_id: membership.organization_id,
        display_name: user.display_name,
        role: membership.role,
    }
}

/// The membership `membership_id` of `organization_id` as a request would see it, if it exists.
pub async fn membership<C: ConnectionTrait>(
    conn: &C,
    organization_id: &str,
    membership_id: &str,
) -> Result<Option<Member>, StoreError> {
    let Some(found) = membership::Entity::find_by_id(membership_id.to_owned())
        .filter(membership::Column::OrganizationId.eq(organization_id))
        .one(conn)
        .await?
    else {
        return Ok(None);
    };
    Ok(user::Entity::find_by_id(found.user_id.clone())
        .one(conn)
        .await?
        .map(|person| member(found, person)))
}

/// Every member of `organization_id` whose membership and user are enabled, oldest first.
pub async fn active_members<C: ConnectionTrait>(
    conn: &C,
    organization_id: &str,
) -> Result<Vec<Member>, StoreError> {
    use sea_orm::QueryOrder;
    let memberships = membership::Entity::find()
        .filter(membership::Column::OrganizationId.eq(organization_id))
        .filter(membership::Column::Enabled.eq(true))
        .order_by_asc(membership::Column::CreatedAt)
        .all(conn)
        .await?;
    let users = user::Entity::find()
        .filter(user::Column::Id.is_in(memberships.iter().map(|m| m.user_id.clone())))
        .filter(user::Column::Enabled.eq(true))
        .all(conn)
        .await?;
    Ok(memberships
        .into_iter()
        .filter_map(|m| {
            let person = users.iter().find(|u| u.id == m.user_id)?.clone();
            Some(member(m, person))
        })
        .collect())
}

/// Display names of users by id (decisions name who made them).
pub async fn user_names<C: ConnectionTrait>(
    conn: &C,
    user_ids: Vec<String>,
) -> Result<std::collections::HashMap<String, String>, StoreError> {
    Ok(user::Entity::find()
        .filter(user::Column::Id.is_in(user_ids))
        .all(conn)
        .await?
        .into_iter()
        .map(|u| (u.id, u.display_name))
        .collect())
}
