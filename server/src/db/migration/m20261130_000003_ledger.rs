//! The durable core (`shared/spec/security-and-durability.md` §3): tasks, the append-only event
//! ledger with its per-organization sequence, the projections folded from it (messages,
//! artifacts with their chunks, status transitions), commands with their outbox, stream
//! subscriptions with leases, and the access records of archived artifact bytes.

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::*;

use super::index;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Tasks {
    Table,
    Id,
    OrganizationId,
    AgentId,
    ConversationId,
    Tenant,
    RemoteTaskId,
    RemoteContextId,
    Kind,
    State,
    StateTimestamp,
    Title,
    SkillId,
    Turn,
    Version,
    LastSequence,
    CreatedAt,
    UpdatedAt,
    TerminalAt,
}

#[derive(DeriveIden)]
enum TaskEvents {
    Table,
    Id,
    OrganizationId,
    TaskId,
    Sequence,
    Source,
    EventKind,
    SourceKey,
    PayloadDigest,
    PayloadJson,
    ExtensionsJson,
    ProtocolVersion,
    RemoteTimestamp,
    ReceivedAt,
}

#[derive(DeriveIden)]
enum LedgerCounters {
    Table,
    OrganizationId,
    Value,
}

#[derive(DeriveIden)]
enum TaskMessages {
    Table,
    Id,
    TaskId,
    DedupeKey,
    MessageId,
    Role,
    PartsJson,
    FromStatus,
    State,
    Timestamp,
    MetadataJson,
    ExtensionsJson,
    ReferenceTaskIdsJson,
    Sequence,
}

#[derive(DeriveIden)]
enum TaskArtifacts {
    Table,
    Id,
    TaskId,
    ArtifactId,
    Name,
    Description,
    MetadataJson,
    ExtensionsJson,
    Streaming,
    Chunks,
    Sequence,
    Position,
}

#[derive(DeriveIden)]
enum TaskArtifactChunks {
    Table,
    Id,
    TaskId,
    ArtifactId,
    ChunkIndex,
    PartsJson,
}

#[derive(DeriveIden)]
enum TaskTransitions {
    Table,
    Id,
    TaskId,
    State,
    Timestamp,
    Sequence,
}

#[derive(DeriveIden)]
enum TaskCommands {
    Table,
    Id,
    OrganizationId,
    AgentId,
    ConversationId,
    TaskId,
    Tenant,
    Action,
    IdempotencyKey,
    MessageId,
    PayloadDigest,
    PayloadJson,
    Status,
    Attempts,
    ResultJson,
    LastError,
    SkillId,
    CreatedAt,
    UpdatedAt,
}

#[derive(DeriveIden)]
enum OutboxMessages {
    Table,
    Id,
    OrganizationId,
    Topic,
    AggregateType,
    AggregateId,
    Status,
    Attempts,
    AvailableAt,
    LeaseOwner,
    LeaseUntil,
    LastError,
    CreatedAt,
    ProcessedAt,
}

#[derive(DeriveIden)]
enum TaskSubscriptions {
    Table,
    Id,
    OrganizationId,
    TaskId,
    Status,
    Attempts,
    AvailableAt,
    LeaseOwner,
    LeaseUntil,
    LastError,
    UpdatedAt,
}

#[derive(DeriveIden)]
enum ArtifactAccess {
    Table,
    Id,
    OrganizationId,
    TaskId,
    Digest,
    MediaType,
    Filename,
    Size,
    CreatedAt,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_table(
            Table::create()
                .table(Tasks::Table)
                .col(string_len(Tasks::Id, 36).primary_key())
                .col(string_len(Tasks::OrganizationId, 36))
                .col(string_len(Tasks::AgentId, 36))
                .col(string_len(Tasks::ConversationId, 36))
                .col(string_len(Tasks::Tenant, 255).default(""))
                .col(string_len_null(Tasks::RemoteTaskId, 255))
                .col(string_len_null(Tasks::RemoteContextId, 255))
                .col(string_len(Tasks::Kind, 16))
                .col(string_len(Tasks::State, 64))
                .col(string_len_null(Tasks::StateTimestamp, 64))
                .col(text(Tasks::Title))
                .col(string_len_null(Tasks::SkillId, 255))
                .col(big_integer(Tasks::Turn).default(0))
                .col(big_integer(Tasks::Version).default(0))
                .col(big_integer(Tasks::LastSequence).default(0))
                .col(timestamp_with_time_zone(Tasks::CreatedAt))
                .col(timestamp_with_time_zone(Tasks::UpdatedAt))
                .col(timestamp_with_time_zone_null(Tasks::TerminalAt))
                .to_owned(),
        )
        .await?;
        // A remote task is identified by (agent, tenant, remote id); direct messages have no
        // remote id, and NULLs never collide.
        m.create_index(index(
            "uq_tasks_remote_identity",
            Tasks::Table,
            cols![Tasks::AgentId, Tasks::Tenant, Tasks::RemoteTaskId],
            true,
        ))
        .await?;
        m.create_index(index(
            "ix_tasks_organization_updated",
            Tasks::Table,
            cols![Tasks::OrganizationId, Tasks::UpdatedAt],
            false,
        ))
        .await?;
        m.create_index(index(
            "ix_tasks_conversation",
            Tasks::Table,
            cols![Tasks::ConversationId, Tasks::CreatedAt],
            false,
        ))
        .await?;

        m.create_table(
            Table::create()
                .table(TaskEvents::Table)
                .col(string_len(TaskEvents::Id, 36).primary_key())
                .col(string_len(TaskEvents::OrganizationId, 36))
                .col(string_len(TaskEvents::TaskId, 36))
                .col(big_integer(TaskEvents::Sequence))
                .col(string_len(TaskEvents::Source, 32))
                .col(string_len(TaskEvents::EventKind, 32))
                .col(string_len(TaskEvents::SourceKey, 255))
                .col(string_len(TaskEvents::PayloadDigest, 64))
                .col(json_binary(TaskEvents::PayloadJson))
                .col(json_binary(TaskEvents::ExtensionsJson))
                .col(string_len_null(TaskEvents::ProtocolVersion, 16))
                .col(string_len_null(TaskEvents::RemoteTimestamp, 64))
                .col(timestamp_with_time_zone(TaskEvents::ReceivedAt))
                .to_owned(),
        )
        .await?;
        // Ingestion is idempotent because of this constraint.
        m.create_index(index(
            "uq_task_events_source_key",
            TaskEvents::Table,
            cols![TaskEvents::TaskId, TaskEvents::Source, TaskEvents::SourceKey],
            true,
        ))
        .await?;
        m.create_index(index(
            "uq_task_events_sequence",
            TaskEvents::Table,
            cols![TaskEvents::OrganizationId, TaskEvents::Sequence],
            true,
        ))
        .await?;
        m.create_index(index(
            "ix_task_events_task_sequence",
            TaskEvents::Table,
            cols![TaskEvents::TaskId, TaskEvents::Sequence],
            false,
        ))
        .await?;

        m.create_table(
            Table::create()
                .table(LedgerCounters::Table)
                .col(string_len(LedgerCounters::OrganizationId, 36).primary_key())
                .col(big_integer(LedgerCounters::Value).default(0))
                .to_owned(),
        )
        .await?;

        m.create_table(
            Table::create()
                .table(TaskMessages::Table)
                .col(string_len(TaskMessages::Id, 36).primary_key())
                .col(string_len(TaskMessages::TaskId, 36))
                .col(string_len(TaskMessages::DedupeKey, 300))
                .col(string_len(TaskMessages::MessageId, 255))
                .col(string_len(TaskMessages::Role, 16))
                .col(json_binary(TaskMessages::PartsJson))
                .col(boolean(TaskMessages::FromStatus))
                .col(string_len_null(TaskMessages::State, 64))
                .col(string_len_null(TaskMessages::Timestamp, 64))
                .col(json_binary_null(TaskMessages::MetadataJson))
                .col(json_binary(TaskMessages::ExtensionsJson))
                .col(json_binary(TaskMessages::ReferenceTaskIdsJson))
                .col(big_integer(TaskMessages::Sequence))
                .to_owned(),
        )
        .await?;
        m.create_index(index(
            "uq_task_messages_dedupe",
            TaskMessages::Table,
            cols![TaskMessages::TaskId, TaskMessages::DedupeKey],
            true,
        ))
        .await?;

        m.create_table(
            Table::create()
                .table(TaskArtifacts::Table)
                .col(string_len(TaskArtifacts::Id, 36).primary_key())
                .col(string_len(TaskArtifacts::TaskId, 36))
                .col(string_len(TaskArtifacts::ArtifactId, 255))
                .col(text_null(TaskArtifacts::Name))
                .col(text_null(TaskArtifacts::Description))
                .col(json_binary_null(TaskArtifacts::MetadataJson))
                .col(json_binary(TaskArtifacts::ExtensionsJson))
                .col(boolean(TaskArtifacts::Streaming))
                .col(integer(TaskArtifacts::Chunks))
                .col(big_integer(TaskArtifacts::Sequence))
                .col(big_integer(TaskArtifacts::Position))
                .to_owned(),
        )
        .await?;
        m.create_index(index(
            "uq_task_artifacts_id",
            TaskArtifacts::Table,
            cols![TaskArtifacts::TaskId, TaskArtifacts::ArtifactId],
            true,
        ))
        .await?;

        m.create_table(
            Table::create()
                .table(TaskArtifactChunks::Table)
                .col(string_len(TaskArtifactChunks::Id, 36).primary_key())
                .col(string_len(TaskArtifactChunks::TaskId, 36))
                .col(string_len(TaskArtifactChunks::ArtifactId, 255))
                .col(integer(TaskArtifactChunks::ChunkIndex))
                .col(json_binary(TaskArtifactChunks::PartsJson))
                .to_owned(),
        )
        .await?;
        m.create_index(index(
            "uq_task_artifact_chunks",
            TaskArtifactChunks::Table,
            cols![
                TaskArtifactChunks::TaskId,
                TaskArtifactChunks::ArtifactId,
                TaskArtifactChunks::ChunkIndex
            ],
            true,
        ))
        .await?;

        m.create_table(
            Table::create()
                .table(TaskTransitions::Table)
                .col(string_len(TaskTransitions::Id, 36).primary_key())
                .col(string_len(TaskTransitions::TaskId, 36))
                .col(string_len(TaskTransitions::State, 64))
                .col(string_len_null(TaskTransitions::Timestamp, 64))
                .col(big_integer(TaskTransitions::Sequence))
                .to_owned(),
        )
        .await?;
        m.create_index(index(
            "ix_task_transitions_task",
            TaskTransitions::Table,
            cols![TaskTransitions::TaskId, TaskTransitions::Sequence],
            false,
        ))
        .await?;

        m.create_table(
            Table::create()
                .table(TaskCommands::Table)
                .col(string_len(TaskCommands::Id, 36).primary_key())
                .col(string_len(TaskCommands::OrganizationId, 36))
                .col(string_len(TaskCommands::AgentId, 36))
                .col(string_len_null(TaskCommands::ConversationId, 36))
                .col(string_len_null(TaskCommands::TaskId, 36))
                .col(string_len(TaskCommands::Tenant, 255).default(""))
                .col(string_len(TaskCommands::Action, 16))
                .col(string_len(TaskCommands::IdempotencyKey, 255))
                .col(string_len(TaskCommands::MessageId, 255))
                .col(string_len(TaskCommands::PayloadDigest, 64))
                .col(json_binary(TaskCommands::PayloadJson))
                .col(string_len(TaskCommands::Status, 16))
                .col(integer(TaskCommands::Attempts).default(0))
                .col(json_binary_null(TaskCommands::ResultJson))
                .col(text_null(TaskCommands::LastError))
                .col(string_len_null(TaskCommands::SkillId, 255))
                .col(timestamp_with_time_zone(TaskCommands::CreatedAt))
                .col(timestamp_with_time_zone(TaskCommands::UpdatedAt))
                .to_owned(),
        )
        .await?;
        m.create_index(index(
            "uq_task_commands_idempotency",
            TaskCommands::Table,
            cols![TaskCommands::OrganizationId, TaskCommands::IdempotencyKey],
            true,
        ))
        .await?;
        m.create_index(index(
            "ix_task_commands_conversation",
            TaskCommands::Table,
            cols![TaskCommands::ConversationId, TaskCommands::CreatedAt],
            false,
        ))
        .await?;

        m.create_table(
            Table::create()
                .table(OutboxMessages::Table)
                .col(string_len(OutboxMessages::Id, 36).primary_key())
                .col(string_len(OutboxMessages::OrganizationId, 36))
                .col(string_len(OutboxMessages::Topic, 64))
                .col(string_len(OutboxMessages::AggregateType, 32))
                .col(string_len(OutboxMessages::AggregateId, 36))
                .col(string_len(OutboxMessages::Status, 16))
                .col(integer(OutboxMessages::Attempts).default(0))
                .col(timestamp_with_time_zone(OutboxMessages::AvailableAt))
                .col(string_len_null(OutboxMessages::LeaseOwner, 36))
                .col(timestamp_with_time_zone_null(OutboxMessages::LeaseUntil))
                .col(text_null(OutboxMessages::LastError))
                .col(timestamp_with_time_zone(OutboxMessages::CreatedAt))
                .col(timestamp_with_time_zone_null(OutboxMessages::ProcessedAt))
                .to_owned(),
        )
        .await?;
        m.create_index(index(
            "ix_outbox_messages_due",
            OutboxMessages::Table,
            cols![
                OutboxMessages::Topic,
                OutboxMessages::Status,
                OutboxMessages::AvailableAt
            ],
            false,
        ))
        .await?;

        m.create_table(
            Table::create()
                .table(TaskSubscriptions::Table)
                .col(string_len(TaskSubscriptions::Id, 36).primary_key())
                .col(string_len(TaskSubscriptions::OrganizationId, 36))
                .col(string_len_uniq(TaskSubscriptions::TaskId, 36))
                .col(string_len(TaskSubscriptions::Status, 16))
                .col(integer(TaskSubscriptions::Attempts).default(0))
                .col(timestamp_with_time_zone(TaskSubscriptions::AvailableAt))
                .col(string_len_null(TaskSubscriptions::LeaseOwner, 36))
                .col(timestamp_with_time_zone_null(TaskSubscriptions::LeaseUntil))
                .col(text_null(TaskSubscriptions::LastError))
                .col(timestamp_with_time_zone(TaskSubscriptions::UpdatedAt))
                .to_owned(),
        )
        .await?;
        m.create_index(index(
            "ix_task_subscriptions_due",
            TaskSubscriptions::Table,
            cols![TaskSubscriptions::Status, TaskSubscriptions::AvailableAt],
            false,
        ))
        .await?;

        m.create_table(
            Table::create()
                .table(ArtifactAccess::Table)
                .col(string_len(ArtifactAccess::Id, 36).primary_key())
                .col(string_len(ArtifactAccess::OrganizationId, 36))
                .col(string_len(ArtifactAccess::TaskId, 36))
                .col(string_len(ArtifactAccess::Digest, 64))
                .col(string_len_null(ArtifactAccess::MediaType, 255))
                .col(string_len_null(ArtifactAccess::Filename, 255))
                .col(big_integer(ArtifactAccess::Size))
                .col(timestamp_with_time_zone(ArtifactAccess::CreatedAt))
                .to_owned(),
        )
        .await?;
        m.create_index(index(
            "uq_artifact_access",
            ArtifactAccess::Table,
            cols![ArtifactAccess::TaskId, ArtifactAccess::Digest],
            true,
        ))
        .await?;
        m.create_index(index(
            "ix_artifact_access_digest",
            ArtifactAccess::Table,
            cols![ArtifactAccess::OrganizationId, ArtifactAccess::Digest],
            false,
        ))
        .await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        for table in [
            ArtifactAccess::Table.into_iden(),
            TaskSubscriptions::Table.into_iden(),
            OutboxMessages::Table.into_iden(),
            TaskCommands::Table.into_iden(),
            TaskTransitions::Table.into_iden(),
            TaskArtifactChunks::Table.into_iden(),
            TaskArtifacts::Table.into_iden(),
            TaskMessages::Table.into_iden(),
            LedgerCounters::Table.into_iden(),
            TaskEvents::Table.into_iden(),
            Tasks::Table.into_iden(),
        ] {
            m.drop_table(Table::drop().table(table).to_owned()).await?;
        }
        Ok(())
    }
}
