//! Organizations. Local installs have exactly one, `local`, created by the first migration.

use sea_orm::{ActiveModelTrait, ColumnTrait, EntityTrait, QueryFilter, Set};

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

/// The organization `slug`, created (named after its slug) when there is none yet: a team
/// deployment's organization exists from its first request, provisioned or not.
pub async fn ensure(db: &Db, slug: &str) -> Result<organization::Model, StoreError> {
    match by_slug(db, slug).await {
        Err(StoreError::NotFound) => {}
        found => return found,
    }
    let created = organization::ActiveModel {
        id: Set(super::new_id()),
        slug: Set(slug.to_owned()),
        name: Set(slug.to_owned()),
        created_at: Set(chrono::Utc::now()),
    }
    .insert(&db.write)
    .await;
    match created {
        Ok(organization) => Ok(organization),
        // Created meanwhile by another request or process (the slug is unique).
        Err(_) => organization::Entity::find()
            .filter(organization::Column::Slug.eq(slug))
            .one(&db.write)
            .await?
            .ok_or(StoreError::NotFound),
    }
}
