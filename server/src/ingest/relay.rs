//! Notices across processes (`shared/spec/security-and-durability.md` §3.9, §6.1): on PostgreSQL
//! every process that shares the database forwards what it publishes on its [`Bus`] with
//! `NOTIFY`, and `LISTEN`s for the others', publishing them on its own bus. A notice only says
//! what committed (organization, task, conversation, sequence); receivers read the rows from the
//! ledger, so a lost or late notice costs latency, never data: the live streams' periodic re-read
//! stays as the safety net. SQLite has one process, so no relay runs there.
//!
//! Ledger notices go out with their events (ADR 0059): ingestion sends [`notify_statement`]
//! inside the transaction that appends them, with its last writes (ADR 0062), so PostgreSQL
//! delivers them at that commit (and drops them on rollback), one notice per task naming its
//! newest sequence, without a hop through the relay's task and a pooled connection after the
//! fact.

use std::time::Duration;

use sea_orm::sqlx::postgres::PgListener;
use sea_orm::{ConnectionTrait, DatabaseBackend, DbErr, Statement};
use serde::{Deserialize, Serialize};
use tokio::sync::broadcast::error::{RecvError, TryRecvError};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::bus::{Bus, Notice};
use crate::db::Db;

/// The `LISTEN`/`NOTIFY` channel.
pub const CHANNEL: &str = "a2a_taskbay_notices";
/// Largest payload sent in one `NOTIFY` (PostgreSQL's limit is 8000 bytes).
const MAX_PAYLOAD: usize = 7000;
/// Notices gathered into one `NOTIFY` at most.
const MAX_BATCH: usize = 64;
/// Pause before listening again after the connection was lost.
const RECONNECT: Duration = Duration::from_secs(1);
/// How often the relay reads PostgreSQL's notification queue usage.
const QUEUE_CHECK: Duration = Duration::from_secs(5);
/// Queue usage (0 to 1) from which ledger notices are sent after their commit instead of in it.
const QUEUE_HALF_FULL: f64 = 0.5;

/// What one `NOTIFY` carries: the sending process and its notices, in order.
#[derive(Serialize, Deserialize)]
struct Envelope {
    origin: String,
    notices: Vec<Notice>,
}

/// Starts the relay of this process on `tracker` (PostgreSQL only); it stops with `shutdown`.
pub fn start(db: &Db, bus: &Bus, tracker: &TaskTracker, shutdown: CancellationToken) {
    if db.is_sqlite() {
        return;
    }
    let origin = bus.origin().to_owned();
    tracker.spawn(forward(db.clone(), bus.clone(), origin.clone(), shutdown.clone()));
    tracker.spawn(listen(db.clone(), bus.clone(), origin, shutdown));
}

/// Sends every notice this process publishes, in batches, and checks the notification queue
/// every [`QUEUE_CHECK`], until shutdown.
async fn forward(db: Db, bus: Bus, origin: String, shutdown: CancellationToken) {
    let mut local = bus.subscribe_local();
    let mut check = tokio::time::interval(QUEUE_CHECK);
    check.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let first = tokio::select! {
            () = shutdown.cancelled() => return,
            _ = check.tick() => {
                check_queue(&db, &bus).await;
                continue;
            }
            received = local.recv() => received,
        };
        let mut notices = match first {
            Ok(notice) => vec![notice],
            Err(RecvError::Lagged(missed)) => {
                // The others' safety-net re-read covers what was skipped.
                tracing::warn!(missed, "notice relay fell behind");
                continue;
            }
            Err(RecvError::Closed) => return,
        };
        while notices.len() < MAX_BATCH {
            match local.try_recv() {
                Ok(notice) => notices.push(notice),
                Err(TryRecvError::Lagged(_)) => continue,
                Err(TryRecvError::Empty | TryRecvError::Closed) => break,
            }
        }
        for payload in payloads(&origin, notices) {
            let notify = Statement::from_sql_and_values(
                DatabaseBackend::Postgres,
                "SELECT pg_notify($1, $2)",
                [CHANNEL.into(), payload.into()],
            );
            if let Err(error) = db.write.execute_raw(notify).await {
                tracing::warn!(%error, "could not relay notices to the other processes");
            }
        }
    }
}

/// Sends `notices` to the other processes from inside `tx` (PostgreSQL: delivered when it
/// commits, dropped if it rolls back): [`notify_statement`], sent on its own.
pub async fn notify_in(
    tx: &impl ConnectionTrait,
    origin: &str,
    notices: impl IntoIterator<Item = Notice>,
) -> Result<(), DbErr> {
    if let Some(statement) = notify_statement(origin, notices)? {
        tx.execute_raw(statement).await?;
    }
    Ok(())
}

/// The statement that sends `notices` to the other processes, one whatever their number; only
/// the last notice of each task goes (see [`last_per_task`]). `None` when there is nothing to
/// send. Ingestion sends it as the last part of its transaction's last writes (ADR 0062): it
/// costs no round trip of its own.
pub fn notify_statement(
    origin: &str,
    notices: impl IntoIterator<Item = Notice>,
) -> Result<Option<Statement>, DbErr> {
    let notices = last_per_task(notices);
    if notices.is_empty() {
        return Ok(None);
    }
    let payloads = serde_json::to_string(&payloads(origin, notices))
        .map_err(|error| DbErr::Custom(error.to_string()))?;
    Ok(Some(Statement::from_sql_and_values(
        DatabaseBackend::Postgres,
        "SELECT pg_notify($1, payload) FROM json_array_elements_text($2::json) AS payload",
        [CHANNEL.into(), payloads.into()],
    )))
}

/// One ledger notice per task: its newest sequence, marked as a new task if any of its notices
/// was, in the order the tasks first appear; other notices as they are. A receiver reads every
/// event after its cursor when woken, so the task's last notice wakes it for all of them.
fn last_per_task(notices: impl IntoIterator<Item = Notice>) -> Vec<Notice> {
    let mut out: Vec<Notice> = Vec::new();
    let mut at: std::collections::HashMap<(String, String), usize> = Default::default();
    for notice in notices {
        let Notice::Ledger {
            organization_id,
            task_id,
            sequence,
            new_task,
            ..
        } = &notice
        else {
            out.push(notice);
            continue;
        };
        match at.get(&(organization_id.clone(), task_id.clone())) {
            Some(&index) => {
                if let Notice::Ledger {
                    sequence: kept,
                    new_task: kept_new,
                    ..
                } = &mut out[index]
                {
                    *kept = (*kept).max(*sequence);
                    *kept_new |= *new_task;
                }
            }
            None => {
                at.insert((organization_id.clone(), task_id.clone()), out.len());
                out.push(notice);
            }
        }
    }
    out
}

/// The `NOTIFY` payloads for `notices`: as few as fit under [`MAX_PAYLOAD`] each.
fn payloads(origin: &str, notices: Vec<Notice>) -> Vec<String> {
    let mut out = Vec::new();
    let mut batch: Vec<Notice> = Vec::new();
    let encode = |batch: Vec<Notice>| {
        serde_json::to_string(&Envelope {
            origin: origin.to_owned(),
            notices: batch,
        })
        .unwrap_or_default()
    };
    for notice in notices {
        batch.push(notice);
        if encode(batch.clone()).len() > MAX_PAYLOAD && batch.len() > 1 {
            let last = batch.pop();
            out.push(encode(std::mem::take(&mut batch)));
            batch.extend(last);
        }
    }
    if !batch.is_empty() {
        out.push(encode(batch));
    }
    out
}

/// Listens for the other processes' notices and publishes them here, reconnecting after a
/// lost connection, until shutdown.
async fn listen(db: Db, bus: Bus, origin: String, shutdown: CancellationToken) {
    loop {
        match subscribe(&db).await {
            Ok(mut listener) => loop {
                let received = tokio::select! {
                    () = shutdown.cancelled() => return,
                    received = listener.recv() => received,
                };
                match received {
                    Ok(notification) => receive(&bus, &origin, notification.payload()),
                    Err(error) => {
                        tracing::warn!(%error, "notice relay lost its connection; listening again");
                        break;
                    }
                }
            },
            Err(error) => tracing::warn!(%error, "notice relay could not listen"),
        }
        tokio::select! {
            () = shutdown.cancelled() => return,
            () = tokio::time::sleep(RECONNECT) => {}
        }
    }
}

/// How full PostgreSQL's notification queue is, from 0 to 1 (`pg_notification_queue_usage`).
pub async fn queue_usage(db: &Db) -> Result<f64, DbErr> {
    let row = db
        .write
        .query_one_raw(Statement::from_string(
            DatabaseBackend::Postgres,
            "SELECT pg_notification_queue_usage() AS usage",
        ))
        .await?
        .ok_or_else(|| DbErr::Custom("no queue usage".into()))?;
    row.try_get("", "usage")
}

/// Turns ledger notices inside their transactions off while the queue is half full (a listener
/// that stopped reading holds it; when full, every commit that notifies fails), on again below.
async fn check_queue(db: &Db, bus: &Bus) {
    let usage = match queue_usage(db).await {
        Ok(usage) => usage,
        Err(error) => {
            tracing::debug!(%error, "could not read the notification queue usage");
            return;
        }
    };
    let inside = usage < QUEUE_HALF_FULL;
    if inside != bus.notify_inside() {
        if inside {
            tracing::info!(
                usage,
                "notification queue drained: ledger notices go inside their commits again"
            );
        } else {
            tracing::warn!(
                usage,
                "notification queue half full (a listener is not reading): ledger notices are sent after their commits"
            );
        }
        bus.set_notify_inside(inside);
    }
}

async fn subscribe(db: &Db) -> Result<PgListener, sea_orm::sqlx::Error> {
    let mut listener = PgListener::connect_with(db.write.get_postgres_connection_pool()).await?;
    listener.listen(CHANNEL).await?;
    Ok(listener)
}

/// Publishes the notices of another process's payload; this process's own are skipped (it
/// published them already), as is anything unreadable.
fn receive(bus: &Bus, origin: &str, payload: &str) {
    match serde_json::from_str::<Envelope>(payload) {
        Ok(envelope) if envelope.origin != origin => {
            for notice in envelope.notices {
                bus.publish_here(notice);
            }
        }
        Ok(_) => {}
        Err(error) => tracing::debug!(%error, "ignored an unreadable relayed notice"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ledger(sequence: i64) -> Notice {
        of_task(&format!("task-{sequence}"), sequence, false)
    }

    fn of_task(task: &str, sequence: i64, new_task: bool) -> Notice {
        Notice::Ledger {
            organization_id: "org".into(),
            task_id: task.into(),
            conversation_id: "conv".into(),
            sequence,
            new_task,
        }
    }

    #[test]
    fn a_transactions_notices_collapse_to_the_newest_of_each_task_in_first_seen_order() {
        let sent = last_per_task(vec![
            of_task("a", 1, true),
            of_task("b", 2, false),
            Notice::Approvals,
            of_task("a", 3, false),
            of_task("b", 4, false),
            of_task("a", 5, false),
        ]);
        assert_eq!(
            sent,
            vec![of_task("a", 5, true), of_task("b", 4, false), Notice::Approvals]
        );
    }

    #[test]
    fn payloads_stay_under_the_postgres_limit_and_keep_the_order() {
        let notices: Vec<Notice> = (1..=200).map(ledger).collect();
        let sent = payloads("me", notices.clone());
        assert!(sent.len() > 1);
        let mut back = Vec::new();
        for payload in &sent {
            assert!(payload.len() <= MAX_PAYLOAD, "{}", payload.len());
            back.extend(serde_json::from_str::<Envelope>(payload).unwrap().notices);
        }
        assert_eq!(back, notices);
    }

    #[test]
    fn a_process_ignores_its_own_notices_and_publishes_the_others() {
        let bus = Bus::default();
        let mut all = bus.subscribe();
        let mut local = bus.subscribe_local();
        let theirs = payloads("them", vec![ledger(7), Notice::Approvals]);
        let mine = payloads("me", vec![ledger(8)]);
        receive(&bus, "me", &mine[0]);
        receive(&bus, "me", &theirs[0]);
        receive(&bus, "me", "not json");
        assert_eq!(all.try_recv().unwrap(), ledger(7));
        assert_eq!(all.try_recv().unwrap(), Notice::Approvals);
        assert!(all.try_recv().is_err());
        // Relayed notices are never sent on again.
        assert!(local.try_recv().is_err());
    }
}
