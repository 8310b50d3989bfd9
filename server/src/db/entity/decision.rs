//! `decisions`: what a person decided on one revision of an approval request.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "decisions")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub request_id: String,
    pub revision: i32,
    pub outcome: crate::store::approvals::DecisionOutcome,
    pub rationale: Option<String>,
    /// The person who decided (null before sign-in existed).
    pub actor_user_id: Option<String>,
    /// Their membership.
    pub reviewer_membership_id: Option<String>,
    /// For `delegate`: the membership the request was handed to.
    pub delegate_membership_id: Option<String>,
    pub idempotency_key: String,
    /// Digest of the decision body: the same key with other content is refused.
    pub payload_digest: String,
    pub created_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
