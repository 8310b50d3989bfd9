//! Issue #29, access (`shared/spec/security-and-durability.md` §1.3, §1.4, §4.4): teams, which
//! exist only to receive grants; grants of `read` or `operate` on an agent, or on one skill of
//! it, to the whole organization, one membership or a team; and the audit facts of every change
//! to people and access, append-only like the ledger (a trigger refuses update and delete).

use sea_orm::{ConnectionTrait, DatabaseBackend};
use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::*;

use super::index;
use super::m20261203_000005_immutable_history::APPEND_ONLY;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Teams {
    Table,
    Id,
    OrganizationId,
    Name,
    Enabled,
    CreatedAt,
    UpdatedAt,
}

#[derive(DeriveIden)]
enum TeamMemberships {
    Table,
    TeamId,
    MembershipId,
    CreatedAt,
}

#[derive(DeriveIden)]
enum AccessGrants {
    Table,
    Id,
    OrganizationId,
    SubjectType,
    SubjectId,
    AgentId,
    SkillId,
    Permission,
    Enabled,
    CreatedAt,
    RevokedAt,
}

#[derive(DeriveIden)]
enum SecurityAuditEvents {
    Table,
    Id,
    OrganizationId,
    EventKey,
    Action,
    ActorType,
    ActorUserId,
    TargetId,
    DetailJson,
    OccurredAt,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_table(
            Table::create()
                .table(Teams::Table)
                .col(string_len(Teams::Id, 36).primary_key())
                .col(string_len(Teams::OrganizationId, 36))
                .col(string_len(Teams::Name, 100))
                .col(boolean(Teams::Enabled))
                .col(timestamp_with_time_zone(Teams::CreatedAt))
                .col(timestamp_with_time_zone(Teams::UpdatedAt))
                .to_owned(),
        )
        .await?;
        m.create_index(index(
            "uq_teams_organization_name",
            Teams::Table,
            cols![Teams::OrganizationId, Teams::Name],
            true,
        ))
        .await?;
        m.create_table(
            Table::create()
                .table(TeamMemberships::Table)
                .col(string_len(TeamMemberships::TeamId, 36))
                .col(string_len(TeamMemberships::MembershipId, 36))
                .col(timestamp_with_time_zone(TeamMemberships::CreatedAt))
                .primary_key(
                    Index::create()
                        .col(TeamMemberships::TeamId)
                        .col(TeamMemberships::MembershipId),
                )
                .to_owned(),
        )
        .await?;
        m.create_index(index(
            "ix_team_memberships_membership",
            TeamMemberships::Table,
            cols![TeamMemberships::MembershipId],
            false,
        ))
        .await?;
        m.create_table(
            Table::create()
                .table(AccessGrants::Table)
                .col(string_len(AccessGrants::Id, 36).primary_key())
                .col(string_len(AccessGrants::OrganizationId, 36))
                .col(string_len(AccessGrants::SubjectType, 16))
                .col(string_len(AccessGrants::SubjectId, 36))
                .col(string_len(AccessGrants::AgentId, 36))
                .col(string_len_null(AccessGrants::SkillId, 200))
                .col(string_len(AccessGrants::Permission, 16))
                .col(boolean(AccessGrants::Enabled))
                .col(timestamp_with_time_zone(AccessGrants::CreatedAt))
                .col(timestamp_with_time_zone_null(AccessGrants::RevokedAt))
                .to_owned(),
        )
        .await?;
        m.create_index(index(
            "ix_access_grants_subject",
            AccessGrants::Table,
            cols![
                AccessGrants::OrganizationId,
                AccessGrants::SubjectType,
                AccessGrants::SubjectId
            ],
            false,
        ))
        .await?;
        m.create_table(
            Table::create()
                .table(SecurityAuditEvents::Table)
                .col(string_len(SecurityAuditEvents::Id, 36).primary_key())
                .col(string_len(SecurityAuditEvents::OrganizationId, 36))
                .col(string_len(SecurityAuditEvents::EventKey, 200).unique_key())
                .col(string_len(SecurityAuditEvents::Action, 64))
                .col(string_len(SecurityAuditEvents::ActorType, 16))
                .col(string_len_null(SecurityAuditEvents::ActorUserId, 36))
                .col(string_len(SecurityAuditEvents::TargetId, 200))
                .col(json_binary(SecurityAuditEvents::DetailJson))
                .col(timestamp_with_time_zone(SecurityAuditEvents::OccurredAt))
                .to_owned(),
        )
        .await?;
        m.create_index(index(
            "ix_security_audit_events_time",
            SecurityAuditEvents::Table,
            cols![
                SecurityAuditEvents::OrganizationId,
                SecurityAuditEvents::OccurredAt
            ],
            false,
        ))
        .await?;
        let db = m.get_connection();
        let statements = match db.get_database_backend() {
            // `agent_taskbay_append_only()` exists since the immutable-history migration.
            DatabaseBackend::Postgres => vec![
                "CREATE TRIGGER security_audit_events_append_only BEFORE UPDATE OR DELETE ON \
                 security_audit_events FOR EACH ROW EXECUTE FUNCTION agent_taskbay_append_only()"
                    .to_owned(),
                "CREATE TRIGGER security_audit_events_no_truncate BEFORE TRUNCATE ON \
                 security_audit_events FOR EACH STATEMENT EXECUTE FUNCTION agent_taskbay_append_only()"
                    .to_owned(),
            ],
            _ => ["UPDATE", "DELETE"]
                .into_iter()
                .map(|op| {
                    format!(
                        "CREATE TRIGGER security_audit_events_no_{} BEFORE {op} ON \
                         security_audit_events BEGIN SELECT RAISE(ABORT, '{APPEND_ONLY}'); END",
                        op.to_lowercase()
                    )
                })
                .collect(),
        };
        for statement in statements {
            db.execute_unprepared(&statement).await?;
        }
        Ok(())
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        for table in [
            SecurityAuditEvents::Table.into_iden(),
            AccessGrants::Table.into_iden(),
            TeamMemberships::Table.into_iden(),
            Teams::Table.into_iden(),
        ] {
            m.drop_table(Table::drop().table(table).to_owned()).await?;
        }
        Ok(())
    }
}
