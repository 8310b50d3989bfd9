//! Agent credentials as stored (`shared/spec/security-and-durability.md` §2.2): one encrypted
//! binding per agent. Storing, revoking and re-encrypting each record their audit fact in the
//! same transaction (`credential.rotated`, `credential.revoked`, `credential.reencrypted`). The
//! vault seals and opens; this module only keeps rows, so it never sees a plaintext secret.

use chrono::Utc;
use sea_orm::{
    ActiveModelTrait, ActiveValue::Set, ColumnTrait, ConnectionTrait, DbErr, EntityTrait, QueryFilter,
    QueryOrder, SqlErr, TransactionTrait,
};
use serde_json::json;

use super::audit::{self, Actor, Fact};
use super::{StoreError, new_id};
use crate::db::Db;
use crate::db::entity::{agent, agent_credential};
use crate::vault::{CredentialKind, Sealed};

/// The credential row of `agent_id` in `organization_id`, enabled or not.
pub async fn find<C: ConnectionTrait>(
    db: &C,
    organization_id: &str,
    agent_id: &str,
) -> Result<Option<agent_credential::Model>, StoreError> {
    Ok(agent_credential::Entity::find()
        .filter(agent_credential::Column::OrganizationId.eq(organization_id))
        .filter(agent_credential::Column::AgentId.eq(agent_id))
        .one(db)
        .await?)
}

/// Every credential row of `organization_id`, oldest change first.
pub async fn of_organization(
    db: &Db,
    organization_id: &str,
) -> Result<Vec<agent_credential::Model>, StoreError> {
    Ok(agent_credential::Entity::find()
        .filter(agent_credential::Column::OrganizationId.eq(organization_id))
        .order_by_asc(agent_credential::Column::UpdatedAt)
        .all(&db.read)
        .await?)
}

/// Every enabled credential row of every organization (`credentials reencrypt --all`).
pub async fn all_enabled(db: &Db) -> Result<Vec<agent_credential::Model>, StoreError> {
    Ok(agent_credential::Entity::find()
        .filter(agent_credential::Column::Enabled.eq(true))
        .order_by_asc(agent_credential::Column::OrganizationId)
        .order_by_asc(agent_credential::Column::AgentId)
        .all(&db.read)
        .await?)
}

/// Stores (or replaces) the credential of an agent that exists, is enabled and not removed in
/// `organization_id`, enabled, with the next revision; audited as `credential.rotated`.
/// Storing again is how a credential is rotated: the old ciphertext is not kept.
pub async fn store(
    db: &Db,
    organization_id: &str,
    agent_id: &str,
    kind: CredentialKind,
    sealed: Sealed,
    actor: &Actor,
) -> Result<agent_credential::Model, StoreError> {
    let tx = db.write.begin().await?;
    live_agent(&tx, organization_id, agent_id).await?;
    let now = Utc::now();
    let row = match find(&tx, organization_id, agent_id).await? {
        Some(row) => {
            let read = row.revision;
            let mut active: agent_credential::ActiveModel = row.into();
            active.kind = Set(kind);
            active.ciphertext = Set(sealed.ciphertext);
            active.key_id = Set(sealed.key_id);
            active.enabled = Set(true);
            active.revision = Set(read + 1);
            active.updated_at = Set(now);
            update_fenced(&tx, active, read).await?
        }
        None => agent_credential::ActiveModel {
            id: Set(new_id()),
            organization_id: Set(organization_id.to_owned()),
            agent_id: Set(agent_id.to_owned()),
            kind: Set(kind),
            ciphertext: Set(sealed.ciphertext),
            key_id: Set(sealed.key_id),
            enabled: Set(true),
            revision: Set(1),
            updated_at: Set(now),
        }
        .insert(&tx)
        .await
        .map_err(changed_meanwhile)?,
    };
    audit_change(&tx, &row, "credential.rotated", actor).await?;
    tx.commit().await?;
    Ok(row)
}

/// Revokes the credential of `agent_id`: calls fail closed from the next operation (one already
/// in flight may finish). Audited as `credential.revoked`; revoking twice changes nothing.
pub async fn revoke(
    db: &Db,
    organization_id: &str,
    agent_id: &str,
    actor: &Actor,
) -> Result<agent_credential::Model, StoreError> {
    let tx = db.write.begin().await?;
    let row = find(&tx, organization_id, agent_id)
        .await?
        .ok_or(StoreError::NotFound)?;
    if !row.enabled {
        return Ok(row);
    }
    let read = row.revision;
    let mut active: agent_credential::ActiveModel = row.into();
    active.enabled = Set(false);
    active.revision = Set(read + 1);
    active.updated_at = Set(Utc::now());
    let row = update_fenced(&tx, active, read).await?;
    audit_change(&tx, &row, "credential.revoked", actor).await?;
    tx.commit().await?;
    Ok(row)
}

/// Replaces the ciphertext of an enabled credential with `reseal(row)` (the same binding under
/// the active key); refused on a revoked one. Audited as `credential.reencrypted`. A row
/// already under the active key is left as it is.
pub async fn reencrypt<F>(
    db: &Db,
    organization_id: &str,
    agent_id: &str,
    actor: &Actor,
    reseal: F,
) -> Result<agent_credential::Model, StoreError>
where
    F: FnOnce(&agent_credential::Model) -> Option<Sealed>,
{
    let row = find(&db.write, organization_id, agent_id)
        .await?
        .ok_or(StoreError::NotFound)?;
    if !row.enabled {
        return Err(StoreError::Conflict(
            "A revoked credential cannot be re-encrypted.",
        ));
    }
    let sealed = reseal(&row).ok_or(StoreError::Conflict(crate::vault::UNAVAILABLE))?;
    if sealed.key_id == row.key_id {
        return Ok(row);
    }
    replace_ciphertext(db, &row, sealed, actor).await
}

/// Writes `sealed` (the binding of `read`, sealed again) over the credential, only if it is
/// still the revision that was read: a credential stored or revoked meanwhile is kept, and the
/// answer is [`CHANGED`]. Audited as `credential.reencrypted`.
pub async fn replace_ciphertext(
    db: &Db,
    read: &agent_credential::Model,
    sealed: Sealed,
    actor: &Actor,
) -> Result<agent_credential::Model, StoreError> {
    let tx = db.write.begin().await?;
    let mut active: agent_credential::ActiveModel = read.clone().into();
    active.ciphertext = Set(sealed.ciphertext);
    active.key_id = Set(sealed.key_id);
    active.revision = Set(read.revision + 1);
    active.updated_at = Set(Utc::now());
    let row = update_fenced(&tx, active, read.revision).await?;
    audit_change(&tx, &row, "credential.reencrypted", actor).await?;
    tx.commit().await?;
    Ok(row)
}

/// Refused when the credential changed between reading it and writing it (another store,
/// revoke or re-encryption won): the caller tries again with what is there now.
pub const CHANGED: &str = "The credential changed meanwhile; try again.";

/// Writes `active` only over the row still at revision `read`, so a concurrent change is never
/// overwritten (a re-encryption must not bring back a secret rotated meanwhile).
async fn update_fenced<C: ConnectionTrait>(
    db: &C,
    active: agent_credential::ActiveModel,
    read: i64,
) -> Result<agent_credential::Model, StoreError> {
    agent_credential::Entity::update(active)
        .validate()?
        .filter(agent_credential::Column::Revision.eq(read))
        .exec(db)
        .await
        .map_err(changed_meanwhile)
}

/// A write lost to a concurrent one (no row at the revision read, or a row inserted meanwhile).
fn changed_meanwhile(error: DbErr) -> StoreError {
    match error {
        DbErr::RecordNotUpdated => StoreError::Conflict(CHANGED),
        error if matches!(error.sql_err(), Some(SqlErr::UniqueConstraintViolation(_))) => {
            StoreError::Conflict(CHANGED)
        }
        error => error.into(),
    }
}

/// The agent, when it is registered, enabled and not removed in `organization_id`.
async fn live_agent<C: ConnectionTrait>(
    db: &C,
    organization_id: &str,
    agent_id: &str,
) -> Result<(), StoreError> {
    agent::Entity::find_by_id(agent_id.to_owned())
        .filter(agent::Column::OrganizationId.eq(organization_id))
        .filter(agent::Column::Enabled.eq(true))
        .filter(agent::Column::RemovedAt.is_null())
        .one(db)
        .await?
        .map(|_| ())
        .ok_or(StoreError::NotFound)
}

async fn audit_change<C: ConnectionTrait>(
    db: &C,
    row: &agent_credential::Model,
    action: &'static str,
    actor: &Actor,
) -> Result<(), StoreError> {
    audit::record(
        db,
        Fact {
            organization_id: &row.organization_id,
            event_key: format!("{action}:{}:{}", row.id, row.revision),
            action,
            actor,
            target_id: &row.agent_id,
            detail: json!({"kind": row.kind, "keyId": row.key_id, "revision": row.revision}),
        },
    )
    .await?;
    Ok(())
}
