//! `access_grants`: `read` or `operate` on an agent, or on one of its skills, given to the
//! organization, a membership or a team. Revoking disables the row; it is never deleted.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "access_grants")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub organization_id: String,
    pub subject_type: app::words::GrantSubject,
    /// The membership's or team's id; the organization's own id for `organization`.
    pub subject_id: String,
    pub agent_id: String,
    /// `None`: the whole agent.
    pub skill_id: Option<String>,
    pub permission: app::words::GrantPermission,
    pub enabled: bool,
    pub created_at: DateTimeUtc,
    pub revoked_at: Option<DateTimeUtc>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
