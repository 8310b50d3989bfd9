//! Issue #29, identity (`shared/spec/security-and-durability.md` §1, `shared/spec/reference.md`
//! §6): the people who use the console and what they may do in an organization. A user is known
//! only by `(issuer, subject)` pairs (`external_identities`); a membership gives a user one role in
//! one organization. Both can be disabled; disabling applies to the next request. Sessions and
//! sign-in attempts are stored by their token's SHA-256 only; request budgets are counted in fixed
//! windows here, so they hold across replicas and restarts.

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::*;

use super::index;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Users {
    Table,
    Id,
    DisplayName,
    Enabled,
    CreatedAt,
    UpdatedAt,
}

#[derive(DeriveIden)]
enum ExternalIdentities {
    Table,
    Id,
    UserId,
    Issuer,
    Subject,
    CreatedAt,
}

#[derive(DeriveIden)]
enum Memberships {
    Table,
    Id,
    OrganizationId,
    UserId,
    Role,
    Enabled,
    CreatedAt,
    UpdatedAt,
}

#[derive(DeriveIden)]
enum UserSessions {
    Table,
    Id,
    MembershipId,
    TokenHash,
    ExpiresAt,
    CreatedAt,
}

#[derive(DeriveIden)]
enum LoginAttempts {
    Table,
    Id,
    TokenHash,
    State,
    Nonce,
    PkceVerifier,
    ReturnTo,
    ExpiresAt,
    CreatedAt,
}

#[derive(DeriveIden)]
enum SecurityRateBuckets {
    Table,
    BucketKey,
    WindowStart,
    Count,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_table(
            Table::create()
                .table(Users::Table)
                .col(string_len(Users::Id, 36).primary_key())
                .col(string_len(Users::DisplayName, 200))
                .col(boolean(Users::Enabled))
                .col(timestamp_with_time_zone(Users::CreatedAt))
                .col(timestamp_with_time_zone(Users::UpdatedAt))
                .to_owned(),
        )
        .await?;
        m.create_table(
            Table::create()
                .table(ExternalIdentities::Table)
                .col(string_len(ExternalIdentities::Id, 36).primary_key())
                .col(string_len(ExternalIdentities::UserId, 36))
                .col(string_len(ExternalIdentities::Issuer, 500))
                .col(string_len(ExternalIdentities::Subject, 255))
                .col(timestamp_with_time_zone(ExternalIdentities::CreatedAt))
                .to_owned(),
        )
        .await?;
        m.create_index(index(
            "uq_external_identities_issuer_subject",
            ExternalIdentities::Table,
            cols![ExternalIdentities::Issuer, ExternalIdentities::Subject],
            true,
        ))
        .await?;
        m.create_table(
            Table::create()
                .table(Memberships::Table)
                .col(string_len(Memberships::Id, 36).primary_key())
                .col(string_len(Memberships::OrganizationId, 36))
                .col(string_len(Memberships::UserId, 36))
                .col(string_len(Memberships::Role, 16))
                .col(boolean(Memberships::Enabled))
                .col(timestamp_with_time_zone(Memberships::CreatedAt))
                .col(timestamp_with_time_zone(Memberships::UpdatedAt))
                .to_owned(),
        )
        .await?;
        m.create_index(index(
            "uq_memberships_organization_user",
            Memberships::Table,
            cols![Memberships::OrganizationId, Memberships::UserId],
            true,
        ))
        .await?;
        m.create_table(
            Table::create()
                .table(UserSessions::Table)
                .col(string_len(UserSessions::Id, 36).primary_key())
                .col(string_len(UserSessions::MembershipId, 36))
                .col(string_len(UserSessions::TokenHash, 64).unique_key())
                .col(timestamp_with_time_zone(UserSessions::ExpiresAt))
                .col(timestamp_with_time_zone(UserSessions::CreatedAt))
                .to_owned(),
        )
        .await?;
        m.create_index(index(
            "ix_user_sessions_membership",
            UserSessions::Table,
            cols![UserSessions::MembershipId],
            false,
        ))
        .await?;
        m.create_table(
            Table::create()
                .table(LoginAttempts::Table)
                .col(string_len(LoginAttempts::Id, 36).primary_key())
                .col(string_len(LoginAttempts::TokenHash, 64).unique_key())
                .col(string_len(LoginAttempts::State, 128))
                .col(string_len(LoginAttempts::Nonce, 128))
                .col(string_len(LoginAttempts::PkceVerifier, 128))
                .col(string_len(LoginAttempts::ReturnTo, 2048))
                .col(timestamp_with_time_zone(LoginAttempts::ExpiresAt))
                .col(timestamp_with_time_zone(LoginAttempts::CreatedAt))
                .to_owned(),
        )
        .await?;
        m.create_table(
            Table::create()
                .table(SecurityRateBuckets::Table)
                .col(string_len(SecurityRateBuckets::BucketKey, 200))
                .col(big_integer(SecurityRateBuckets::WindowStart))
                .col(integer(SecurityRateBuckets::Count))
                .primary_key(
                    Index::create()
                        .col(SecurityRateBuckets::BucketKey)
                        .col(SecurityRateBuckets::WindowStart),
                )
                .to_owned(),
        )
        .await?;
        Ok(())
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        for table in [
            SecurityRateBuckets::Table.into_iden(),
            LoginAttempts::Table.into_iden(),
            UserSessions::Table.into_iden(),
            Memberships::Table.into_iden(),
            ExternalIdentities::Table.into_iden(),
            Users::Table.into_iden(),
        ] {
            m.drop_table(Table::drop().table(table).to_owned()).await?;
        }
        Ok(())
    }
}
