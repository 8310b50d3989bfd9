//! Issue #31, reconciliation by polling (`shared/spec/security-and-durability.md` §3.8): one
//! `sync_cursors` row per (organization, agent, tenant) scope the console follows tasks in,
//! scheduling its `ListTasks` sweeps under a lease. It stores only scheduling data and an
//! opaque page token: never a credential, never an agent's error text. (Each task's own
//! `GetTask` schedule is its `task_subscriptions` row.)

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::*;

use super::index;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum SyncCursors {
    Table,
    Id,
    OrganizationId,
    AgentId,
    Tenant,
    Status,
    PageToken,
    Attempts,
    AvailableAt,
    LeaseOwner,
    LeaseUntil,
    LastError,
    SweptAt,
    UpdatedAt,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_table(
            Table::create()
                .table(SyncCursors::Table)
                .col(string_len(SyncCursors::Id, 36).primary_key())
                .col(string_len(SyncCursors::OrganizationId, 36))
                .col(string_len(SyncCursors::AgentId, 36))
                .col(string(SyncCursors::Tenant))
                .col(string_len(SyncCursors::Status, 16))
                .col(text_null(SyncCursors::PageToken))
                .col(integer(SyncCursors::Attempts))
                .col(timestamp_with_time_zone(SyncCursors::AvailableAt))
                .col(string_len_null(SyncCursors::LeaseOwner, 64))
                .col(timestamp_with_time_zone_null(SyncCursors::LeaseUntil))
                .col(string_len_null(SyncCursors::LastError, 32))
                .col(timestamp_with_time_zone_null(SyncCursors::SweptAt))
                .col(timestamp_with_time_zone(SyncCursors::UpdatedAt))
                .to_owned(),
        )
        .await?;
        m.create_index(index(
            "uq_sync_cursors_scope",
            SyncCursors::Table,
            cols![
                SyncCursors::OrganizationId,
                SyncCursors::AgentId,
                SyncCursors::Tenant
            ],
            true,
        ))
        .await?;
        m.create_index(index(
            "ix_sync_cursors_due",
            SyncCursors::Table,
            cols![SyncCursors::Status, SyncCursors::AvailableAt],
            false,
        ))
        .await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.drop_table(Table::drop().table(SyncCursors::Table).to_owned())
            .await
    }
}
