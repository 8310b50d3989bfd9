//! Organizations (with the one `local` organization), agents and agent card snapshots
//! (`shared/spec/reference.md` §6).

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

/// Id of the bootstrap organization every local install uses.
pub const LOCAL_ORGANIZATION_ID: &str = "00000000-0000-4000-8000-000000000001";

#[derive(DeriveIden)]
enum Organizations {
    Table,
    Id,
    Slug,
    Name,
    CreatedAt,
}

#[derive(DeriveIden)]
enum Agents {
    Table,
    Id,
    OrganizationId,
    CardUrl,
    Source,
    Enabled,
    DisplayName,
    Description,
    ProtocolVersion,
    LastDiscoveryAt,
    LastHealthyAt,
    LastError,
    CreatedAt,
    UpdatedAt,
    RemovedAt,
}

#[derive(DeriveIden)]
enum AgentCardSnapshots {
    Table,
    Id,
    OrganizationId,
    AgentId,
    RawCardJson,
    NormalizedCardJson,
    ComplianceJson,
    SignatureStatus,
    Digest,
    ResolvedCardUrl,
    FetchedAt,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(Organizations::Table)
                    .col(string_len(Organizations::Id, 36).primary_key())
                    .col(string_len_uniq(Organizations::Slug, 64))
                    .col(string_len(Organizations::Name, 200))
                    .col(timestamp_with_time_zone(Organizations::CreatedAt))
                    .to_owned(),
            )
            .await?;

        manager
            .exec_stmt(
                Query::insert()
                    .into_table(Organizations::Table)
                    .columns([
                        Organizations::Id,
                        Organizations::Slug,
                        Organizations::Name,
                        Organizations::CreatedAt,
                    ])
                    .values_panic([
                        LOCAL_ORGANIZATION_ID.into(),
                        "local".into(),
                        "Local".into(),
                        chrono::Utc::now().into(),
                    ])
                    .to_owned(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(Agents::Table)
                    .col(string_len(Agents::Id, 36).primary_key())
                    .col(string_len(Agents::OrganizationId, 36))
                    .col(string_len(Agents::CardUrl, 1024))
                    .col(string_len(Agents::Source, 16))
                    .col(boolean(Agents::Enabled).default(true))
                    .col(string_len_null(Agents::DisplayName, 500))
                    .col(text_null(Agents::Description))
                    .col(string_len_null(Agents::ProtocolVersion, 32))
                    .col(timestamp_with_time_zone_null(Agents::LastDiscoveryAt))
                    .col(timestamp_with_time_zone_null(Agents::LastHealthyAt))
                    .col(text_null(Agents::LastError))
                    .col(timestamp_with_time_zone(Agents::CreatedAt))
                    .col(timestamp_with_time_zone(Agents::UpdatedAt))
                    .col(timestamp_with_time_zone_null(Agents::RemovedAt))
                    .foreign_key(
                        ForeignKey::create()
                            .name("fk_agents_organization")
                            .from(Agents::Table, Agents::OrganizationId)
                            .to(Organizations::Table, Organizations::Id)
                            .on_delete(ForeignKeyAction::Restrict),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("uq_agents_organization_card_url")
                    .table(Agents::Table)
                    .col(Agents::OrganizationId)
                    .col(Agents::CardUrl)
                    .unique()
                    .to_owned(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(AgentCardSnapshots::Table)
                    .col(string_len(AgentCardSnapshots::Id, 36).primary_key())
                    .col(string_len(AgentCardSnapshots::OrganizationId, 36))
                    .col(string_len(AgentCardSnapshots::AgentId, 36))
                    .col(json_binary(AgentCardSnapshots::RawCardJson))
                    .col(json_binary(AgentCardSnapshots::NormalizedCardJson))
                    .col(json_binary(AgentCardSnapshots::ComplianceJson))
                    .col(string_len(AgentCardSnapshots::SignatureStatus, 16))
                    .col(string_len(AgentCardSnapshots::Digest, 64))
                    .col(string_len(AgentCardSnapshots::ResolvedCardUrl, 1024))
                    .col(timestamp_with_time_zone(AgentCardSnapshots::FetchedAt))
                    .foreign_key(
                        ForeignKey::create()
                            .name("fk_agent_card_snapshots_agent")
                            .from(AgentCardSnapshots::Table, AgentCardSnapshots::AgentId)
                            .to(Agents::Table, Agents::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("ix_agent_card_snapshots_agent_fetched")
                    .table(AgentCardSnapshots::Table)
                    .col(AgentCardSnapshots::AgentId)
                    .col(AgentCardSnapshots::FetchedAt)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(AgentCardSnapshots::Table).to_owned())
            .await?;
        manager
            .drop_table(Table::drop().table(Agents::Table).to_owned())
            .await?;
        manager
            .drop_table(Table::drop().table(Organizations::Table).to_owned())
            .await
    }
}
