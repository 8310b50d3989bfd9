//! Issue #29, approvals with people (`shared/spec/security-and-durability.md` §4.1 `decisions`:
//! "reviewer user and membership, optional delegate"): a decision records the membership that
//! made it and, for `delegate`, the membership it handed the request to. Both are null for
//! decisions recorded before sign-in existed.

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Decisions {
    Table,
    ReviewerMembershipId,
    DelegateMembershipId,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        // One column per statement: SQLite adds one at a time.
        for column in [Decisions::ReviewerMembershipId, Decisions::DelegateMembershipId] {
            m.alter_table(
                Table::alter()
                    .table(Decisions::Table)
                    .add_column(string_len_null(column, 36))
                    .to_owned(),
            )
            .await?;
        }
        Ok(())
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        for column in [Decisions::ReviewerMembershipId, Decisions::DelegateMembershipId] {
            m.alter_table(
                Table::alter()
                    .table(Decisions::Table)
                    .drop_column(column)
                    .to_owned(),
            )
            .await?;
        }
        Ok(())
    }
}
