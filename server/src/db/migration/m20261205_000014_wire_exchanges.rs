//! Issue #32, the Wire panel as an HTTP inspector: one `wire_exchanges` row per HTTP request a
//! worker made to an agent for a conversation (method, URL, status, time to the response head,
//! headers with every secret replaced). Debugging data, not the system of record: rows are
//! written after the fact by one writer per process and purged after a retention period
//! (ADR 0046).

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::*;

use super::index;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum WireExchanges {
    Table,
    Id,
    OrganizationId,
    AgentId,
    ConversationId,
    TaskId,
    Operation,
    Method,
    Url,
    Status,
    LatencyMs,
    Error,
    RequestHeadersJson,
    ResponseHeadersJson,
    StartedAt,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_table(
            Table::create()
                .table(WireExchanges::Table)
                .col(string_len(WireExchanges::Id, 36).primary_key())
                .col(string_len(WireExchanges::OrganizationId, 36))
                .col(string_len(WireExchanges::AgentId, 36))
                .col(string_len(WireExchanges::ConversationId, 36))
                .col(string_len_null(WireExchanges::TaskId, 36))
                .col(string_len(WireExchanges::Operation, 48))
                .col(string_len(WireExchanges::Method, 8))
                .col(text(WireExchanges::Url))
                .col(integer_null(WireExchanges::Status))
                .col(integer(WireExchanges::LatencyMs))
                .col(text_null(WireExchanges::Error))
                .col(json_binary(WireExchanges::RequestHeadersJson))
                .col(json_binary(WireExchanges::ResponseHeadersJson))
                .col(timestamp_with_time_zone(WireExchanges::StartedAt))
                .to_owned(),
        )
        .await?;
        m.create_index(index(
            "ix_wire_exchanges_conversation",
            WireExchanges::Table,
            cols![
                WireExchanges::OrganizationId,
                WireExchanges::ConversationId,
                WireExchanges::StartedAt
            ],
            false,
        ))
        .await?;
        m.create_index(index(
            "ix_wire_exchanges_started",
            WireExchanges::Table,
            cols![WireExchanges::StartedAt],
            false,
        ))
        .await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.drop_table(Table::drop().table(WireExchanges::Table).to_owned())
            .await
    }
}
