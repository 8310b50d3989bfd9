//! `decision_revisions`: the immutable proposals of an approval request, with their digest.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "decision_revisions")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub request_id: String,
    pub revision: i32,
    #[sea_orm(column_type = "JsonBinary")]
    pub action_json: Json,
    /// SHA-256 of the action's canonical JSON (reference §1.2.1).
    pub digest: String,
    pub author_type: crate::store::approvals::RevisionAuthor,
    pub author_user_id: Option<String>,
    pub created_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
