//! The approval sweep (reference §4.8 "Sweep"): requests that can no longer authorize
//! anything are closed by the server on its own.

use chrono::{DateTime, Utc};
use sea_orm::DbErr;

use crate::db::Db;
use crate::store::{approvals as store, tasks};

/// Counts of one sweep.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Swept {
    pub expired: u64,
    pub superseded: u64,
}

/// Expires overdue open requests and supersedes open requests whose task finished
/// (reference §4.8 "Sweep").
pub async fn sweep(db: &Db, now: DateTime<Utc>) -> Result<Swept, DbErr> {
    let expired = store::expire_overdue(&db.write, now).await?;
    let mut superseded = 0;
    for row in store::open(&db.write).await? {
        let finished = tasks::by_id(&db.write, &row.task_id)
            .await?
            .is_none_or(|t| t.state.is_terminal());
        if finished {
            superseded += store::supersede(&db.write, &row, now).await?;
        }
    }
    Ok(Swept { expired, superseded })
}
