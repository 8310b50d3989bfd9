//! Approval requests (`shared/spec/reference.md` §1.2, §4.8; `shared/spec/security-and-durability.md`
//! §4.1): decision requests opened from an agent's prompt, their immutable revisions, the
//! decisions people make, and the execution that carries an approved action to the agent
//! exactly once.

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::*;

use super::index;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum DecisionRequests {
    Table,
    Id,
    OrganizationId,
    TaskId,
    AgentId,
    Tenant,
    SkillId,
    RequestKey,
    SourceMessageId,
    Kind,
    Status,
    Title,
    Summary,
    Risk,
    PolicyJson,
    RequesterUserId,
    AssignedMembershipId,
    CurrentRevision,
    ExpiresAt,
    CreatedAt,
    UpdatedAt,
}

#[derive(DeriveIden)]
enum DecisionRevisions {
    Table,
    Id,
    RequestId,
    Revision,
    ActionJson,
    Digest,
    AuthorType,
    AuthorUserId,
    CreatedAt,
}

#[derive(DeriveIden)]
enum Decisions {
    Table,
    Id,
    RequestId,
    Revision,
    Outcome,
    Rationale,
    ActorUserId,
    IdempotencyKey,
    PayloadDigest,
    CreatedAt,
}

#[derive(DeriveIden)]
enum DecisionExecutions {
    Table,
    Id,
    DecisionId,
    RequestId,
    CommandId,
    Status,
    TaskState,
    CreatedAt,
    UpdatedAt,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_table(
            Table::create()
                .table(DecisionRequests::Table)
                .col(string_len(DecisionRequests::Id, 36).primary_key())
                .col(string_len(DecisionRequests::OrganizationId, 36))
                .col(string_len(DecisionRequests::TaskId, 36))
                .col(string_len(DecisionRequests::AgentId, 36))
                .col(string_len(DecisionRequests::Tenant, 255).default(""))
                .col(string_len_null(DecisionRequests::SkillId, 255))
                .col(string_len(DecisionRequests::RequestKey, 400))
                .col(string_len_null(DecisionRequests::SourceMessageId, 255))
                .col(string_len(DecisionRequests::Kind, 32))
                .col(string_len(DecisionRequests::Status, 32))
                .col(string_len(DecisionRequests::Title, 300))
                .col(text(DecisionRequests::Summary))
                .col(string_len(DecisionRequests::Risk, 16))
                .col(json_binary(DecisionRequests::PolicyJson))
                .col(string_len_null(DecisionRequests::RequesterUserId, 36))
                .col(string_len_null(DecisionRequests::AssignedMembershipId, 36))
                .col(integer(DecisionRequests::CurrentRevision))
                .col(timestamp_with_time_zone(DecisionRequests::ExpiresAt))
                .col(timestamp_with_time_zone(DecisionRequests::CreatedAt))
                .col(timestamp_with_time_zone(DecisionRequests::UpdatedAt))
                .to_owned(),
        )
        .await?;
        m.create_index(index(
            "uq_decision_requests_key",
            DecisionRequests::Table,
            cols![DecisionRequests::OrganizationId, DecisionRequests::RequestKey],
            true,
        ))
        .await?;
        m.create_index(index(
            "ix_decision_requests_task",
            DecisionRequests::Table,
            cols![DecisionRequests::TaskId, DecisionRequests::Status],
            false,
        ))
        .await?;
        m.create_index(index(
            "ix_decision_requests_status",
            DecisionRequests::Table,
            cols![
                DecisionRequests::OrganizationId,
                DecisionRequests::Status,
                DecisionRequests::ExpiresAt
            ],
            false,
        ))
        .await?;

        m.create_table(
            Table::create()
                .table(DecisionRevisions::Table)
                .col(string_len(DecisionRevisions::Id, 36).primary_key())
                .col(string_len(DecisionRevisions::RequestId, 36))
                .col(integer(DecisionRevisions::Revision))
                .col(json_binary(DecisionRevisions::ActionJson))
                .col(string_len(DecisionRevisions::Digest, 64))
                .col(string_len(DecisionRevisions::AuthorType, 16))
                .col(string_len_null(DecisionRevisions::AuthorUserId, 36))
                .col(timestamp_with_time_zone(DecisionRevisions::CreatedAt))
                .to_owned(),
        )
        .await?;
        m.create_index(index(
            "uq_decision_revisions",
            DecisionRevisions::Table,
            cols![DecisionRevisions::RequestId, DecisionRevisions::Revision],
            true,
        ))
        .await?;

        m.create_table(
            Table::create()
                .table(Decisions::Table)
                .col(string_len(Decisions::Id, 36).primary_key())
                .col(string_len(Decisions::RequestId, 36))
                .col(integer(Decisions::Revision))
                .col(string_len(Decisions::Outcome, 32))
                .col(text_null(Decisions::Rationale))
                .col(string_len_null(Decisions::ActorUserId, 36))
                .col(string_len(Decisions::IdempotencyKey, 255))
                .col(string_len(Decisions::PayloadDigest, 64))
                .col(timestamp_with_time_zone(Decisions::CreatedAt))
                .to_owned(),
        )
        .await?;
        m.create_index(index(
            "uq_decisions_key",
            Decisions::Table,
            cols![Decisions::RequestId, Decisions::IdempotencyKey],
            true,
        ))
        .await?;

        m.create_table(
            Table::create()
                .table(DecisionExecutions::Table)
                .col(string_len(DecisionExecutions::Id, 36).primary_key())
                .col(string_len_uniq(DecisionExecutions::DecisionId, 36))
                .col(string_len(DecisionExecutions::RequestId, 36))
                .col(string_len(DecisionExecutions::CommandId, 36))
                .col(string_len(DecisionExecutions::Status, 16))
                .col(string_len_null(DecisionExecutions::TaskState, 64))
                .col(timestamp_with_time_zone(DecisionExecutions::CreatedAt))
                .col(timestamp_with_time_zone(DecisionExecutions::UpdatedAt))
                .to_owned(),
        )
        .await?;
        // One execution per request: an approved action goes to the agent once, whatever
        // happens to the clicks.
        m.create_index(index(
            "uq_decision_executions_request",
            DecisionExecutions::Table,
            cols![DecisionExecutions::RequestId],
            true,
        ))
        .await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        for table in [
            DecisionExecutions::Table.into_iden(),
            Decisions::Table.into_iden(),
            DecisionRevisions::Table.into_iden(),
            DecisionRequests::Table.into_iden(),
        ] {
            m.drop_table(Table::drop().table(table).to_owned()).await?;
        }
        Ok(())
    }
}
