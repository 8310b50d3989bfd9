//! The exchange writer (issue #32, ADR 0046): drains the gateway's exchange queue into
//! `wire_exchanges`, up to [`BATCH`] rows per statement. At shutdown it stores what is queued and
//! ends; an operation that finishes later notes nothing (the writer does not wait for every
//! holder of the gateway to go away).

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::db::Db;
use crate::gateway::exchanges::Exchange;
use crate::store::wire_exchanges;

/// Exchanges per insert.
pub const BATCH: usize = 64;

/// The loop.
pub async fn run(db: Db, mut queue: mpsc::Receiver<Exchange>, shutdown: CancellationToken) {
    let mut batch = Vec::with_capacity(BATCH);
    loop {
        let received = tokio::select! {
            received = queue.recv_many(&mut batch, BATCH) => received,
            () = shutdown.cancelled() => break,
        };
        if received == 0 {
            return;
        }
        store(&db, &mut batch).await;
    }
    // Shutting down: what is queued now is stored; later notes are let go.
    queue.close();
    while let Ok(exchange) = queue.try_recv() {
        batch.push(exchange);
        if batch.len() == BATCH {
            store(&db, &mut batch).await;
        }
    }
    store(&db, &mut batch).await;
}

async fn store(db: &Db, batch: &mut Vec<Exchange>) {
    if batch.is_empty() {
        return;
    }
    if let Err(error) = wire_exchanges::insert(&db.write, batch).await {
        tracing::warn!(%error, dropped = batch.len(), "could not store Wire exchanges");
    }
    batch.clear();
}
