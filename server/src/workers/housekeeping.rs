//! Housekeeping of sign-in (ADR 0036): every [`PERIOD`], expired sessions and sign-in attempts
//! and the request budgets' past windows are deleted, so anonymous sign-in starts (240 a minute
//! at most) and old windows never pile up. Every replica may run it; deleting twice is harmless.

use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::WorkerDeps;
use crate::store::{budgets, sessions};

/// How often the rows are purged.
pub const PERIOD: Duration = Duration::from_secs(600);

/// The loop: one purge every `period` until shutdown.
pub async fn run(deps: WorkerDeps, period: Duration, shutdown: CancellationToken) {
    loop {
        tokio::select! {
            () = shutdown.cancelled() => return,
            () = tokio::time::sleep(period) => {}
        }
        let now = chrono::Utc::now();
        let purged = match sessions::purge_expired(&deps.db, now).await {
            Ok(rows) => budgets::purge_past(&deps.db, now)
                .await
                .map(|windows| rows + windows),
            Err(error) => Err(error),
        };
        match purged {
            Ok(0) => {}
            Ok(rows) => tracing::debug!(rows, "purged expired sessions, attempts and budget windows"),
            Err(error) => tracing::warn!(%error, "sign-in housekeeping failed"),
        }
    }
}
