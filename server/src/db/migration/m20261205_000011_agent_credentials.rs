//! Issue #30, the credential vault (`shared/spec/security-and-durability.md` §2.2): at most one
//! encrypted binding per agent, `agent_credentials`, unique on `(organization_id, agent_id)`.
//! The row holds no plaintext: `ciphertext` is a compact JWE under the key `key_id`.

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::*;

use super::index;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum AgentCredentials {
    Table,
    Id,
    OrganizationId,
    AgentId,
    Kind,
    Ciphertext,
    KeyId,
    Enabled,
    Revision,
    UpdatedAt,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_table(
            Table::create()
                .table(AgentCredentials::Table)
                .col(string_len(AgentCredentials::Id, 36).primary_key())
                .col(string_len(AgentCredentials::OrganizationId, 36))
                .col(string_len(AgentCredentials::AgentId, 36))
                .col(string_len(AgentCredentials::Kind, 16))
                .col(text(AgentCredentials::Ciphertext))
                .col(string_len(AgentCredentials::KeyId, 64))
                .col(boolean(AgentCredentials::Enabled))
                .col(big_integer(AgentCredentials::Revision))
                .col(timestamp_with_time_zone(AgentCredentials::UpdatedAt))
                .to_owned(),
        )
        .await?;
        m.create_index(index(
            "uq_agent_credentials_agent",
            AgentCredentials::Table,
            cols![AgentCredentials::OrganizationId, AgentCredentials::AgentId],
            true,
        ))
        .await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.drop_table(Table::drop().table(AgentCredentials::Table).to_owned())
            .await
    }
}
