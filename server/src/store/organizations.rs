//! Organizations. Local installs have exactly one, `local`, created by the first migration.

use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};

use super::StoreError;
use crate::db::Db;
use crate::db::entity::organization;

/// Slug of the bootstrap organization.
pub const LOCAL_SLUG: &str = "local";

/// Finds an organization by slug.
pub async fn by_slug(db: &Db, slug: &str) -> Result<organization::Model, StoreError> {
    organization::Entity::find()
        .filter(organization::Column::Slug.eq(slug))
        .one(&db.read)
        .await?
        .ok_or(StoreError::NotFound)
}

/// The `local` organization.
pub async fn local(db: &Db) -> Result<organization::Model, StoreError> {
    by_slug(db, LOCAL_SLUG).await
}
