//! Housekeeping of sign-in (ADR 0036): every [`PERIOD`], expired sessions and sign-in attempts
//! and the request budgets' past windows are deleted, so anonymous sign-in starts (240 a minute
//! at most) and old windows never pile up; so are the Wire panel's HTTP exchanges past their
//! retention (ADR 0046). Every replica may run it; deleting twice is harmless.

use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::WorkerDeps;
use crate::store::{budgets, sessions, wire_exchanges};

/// How often the rows are purged.
pub const PERIOD: Duration = Duration::from_secs(600);

/// The loop: one purge every `period` until shutdown.
pub async fn run(deps: WorkerDeps, period: Duration, shutdown: CancellationToken) {
    let deps = &deps;
    super::every(period, shutdown, || async move {
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
        // The Wire panel's HTTP exchanges older than their retention (ADR 0046).
        match wire_exchanges::purge_before(&deps.db.write, now - wire_exchanges::RETENTION).await {
            Ok(0) => {}
            Ok(rows) => tracing::debug!(rows, "purged Wire exchanges past their retention"),
            Err(error) => tracing::warn!(%error, "Wire exchange housekeeping failed"),
        }
    })
    .await;
}
