//! Archived objects as the database knows them: an object is referenced while some task of
//! its organization has an `artifact_access` row for its digest, or while it is the archived
//! original of one of the organization's ledger events (its `payload_digest`), which a rebuild
//! checks the stored event against.

use std::collections::HashSet;

use sea_orm::{ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter, QuerySelect};

use super::StoreError;
use crate::db::Db;
use crate::db::entity::{artifact_access, task_event};

/// The digests some task of the organization references.
pub async fn referenced_digests(db: &Db, organization_id: &str) -> Result<HashSet<String>, StoreError> {
    let digests: Vec<String> = artifact_access::Entity::find()
        .select_only()
        .column(artifact_access::Column::Digest)
        .distinct()
        .filter(artifact_access::Column::OrganizationId.eq(organization_id))
        .into_tuple()
        .all(&db.read)
        .await?;
    let originals: Vec<String> = task_event::Entity::find()
        .select_only()
        .column(task_event::Column::PayloadDigest)
        .distinct()
        .filter(task_event::Column::OrganizationId.eq(organization_id))
        .into_tuple()
        .all(&db.read)
        .await?;
    Ok(digests.into_iter().chain(originals).collect())
}

/// Whether some task of the organization references `digest` now (the collector's last look
/// before it removes an object).
pub async fn is_referenced(db: &Db, organization_id: &str, digest: &str) -> Result<bool, StoreError> {
    let accesses = artifact_access::Entity::find()
        .filter(artifact_access::Column::OrganizationId.eq(organization_id))
        .filter(artifact_access::Column::Digest.eq(digest))
        .count(&db.read)
        .await?;
    if accesses > 0 {
        return Ok(true);
    }
    let events = task_event::Entity::find()
        .filter(task_event::Column::OrganizationId.eq(organization_id))
        .filter(task_event::Column::PayloadDigest.eq(digest))
        .count(&db.read)
        .await?;
    Ok(events > 0)
}
