//! Issue #31, push notifications from agents (`shared/spec/security-and-durability.md` §3.7):
//! one `task_push_registrations` row per followed task of an agent that advertises push, with a
//! durable id that is both the agent's config id and the last segment of the callback path. The
//! row holds no credential (the callback token is derived from `A2A_PUSH_SIGNING_KEY`), only its
//! lifecycle, its lease and a per-registration delivery window.

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::*;

use super::index;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum TaskPushRegistrations {
    Table,
    Id,
    OrganizationId,
    AgentId,
    TaskId,
    Status,
    Desired,
    Attempts,
    AvailableAt,
    LeaseOwner,
    LeaseUntil,
    LastError,
    WindowStart,
    WindowCount,
    CreatedAt,
    UpdatedAt,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        use TaskPushRegistrations as T;
        m.create_table(
            Table::create()
                .table(T::Table)
                .col(string_len(T::Id, 36).primary_key())
                .col(string_len(T::OrganizationId, 36))
                .col(string_len(T::AgentId, 36))
                .col(string_len(T::TaskId, 36))
                .col(string_len(T::Status, 16))
                .col(boolean(T::Desired))
                .col(integer(T::Attempts))
                .col(timestamp_with_time_zone(T::AvailableAt))
                .col(string_len_null(T::LeaseOwner, 64))
                .col(timestamp_with_time_zone_null(T::LeaseUntil))
                .col(string_len_null(T::LastError, 32))
                .col(timestamp_with_time_zone_null(T::WindowStart))
                .col(integer(T::WindowCount))
                .col(timestamp_with_time_zone(T::CreatedAt))
                .col(timestamp_with_time_zone(T::UpdatedAt))
                .to_owned(),
        )
        .await?;
        m.create_index(index(
            "uq_task_push_registrations_task",
            T::Table,
            cols![T::TaskId],
            true,
        ))
        .await?;
        m.create_index(index(
            "ix_task_push_registrations_due",
            T::Table,
            cols![T::Status, T::AvailableAt],
            false,
        ))
        .await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.drop_table(Table::drop().table(TaskPushRegistrations::Table).to_owned())
            .await
    }
}
