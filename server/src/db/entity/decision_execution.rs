//! `decision_executions`: the command that carries an approved action to the agent (one per
//! request), and the task state observed after it.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "decision_executions")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub decision_id: String,
    pub request_id: String,
    pub command_id: String,
    /// The command's status when the execution was recorded.
    pub status: crate::store::commands::CommandStatus,
    pub task_state: Option<String>,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
