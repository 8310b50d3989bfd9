//! PostgreSQL: every task row of a commit-queue transaction opened in one statement (issue #33,
//! ADR 0060): the rows locked in id order, each organization's ledger sequences reserved once
//! they all are, and what each task holds of its probe's keys, checked against the row's
//! snapshot as one task's open is ([`Sequences::lock_task`], ADR 0051). Only `ingest` calls it.

use std::collections::HashMap;

use sea_orm::{
    ConnectionTrait, DatabaseBackend, DatabaseTransaction, DbErr, FromQueryResult, Statement, Value,
};

use super::probe::{self, Probe, Taken};
use super::sequences::Sequences;
use crate::db::entity::task;

/// A task row opened by [`open_tasks`]: locked, and what it holds of its probe's keys; `None`
/// when the probe's answer cannot be trusted (the row changed while the statement waited for
/// its lock), then the caller reads it again under the lock ([`Sequences::reserve_probing`]).
pub struct Opened {
    pub row: task::Model,
    pub taken: Option<Taken>,
}

/// Reserves an organization's sequences once every row of `locked` is: the count reads the
/// whole `locked` part (a `LIMIT 1` would stop after its first row, and the counter would be
/// locked before the other task rows, against the order every ingesting transaction follows).
const RESERVE_ALL_LOCKED: &str = "INSERT INTO ledger_counters (organization_id, value) \
     SELECT {org}, {count} FROM (SELECT count(*) AS n FROM locked) AS all_locked WHERE all_locked.n > 0 \
     ON CONFLICT (organization_id) DO UPDATE SET value = ledger_counters.value + excluded.value \
     RETURNING value";

/// Locks the task rows `ids` in id order (two transactions lock the rows they share in the same
/// order), reserves the sequences of `organizations` not reserved yet in `sequences`, and reads
/// each of `probes` (one per task, at most): one statement. Gives back the probed tasks that
/// exist; the others are locked and not returned.
pub async fn open_tasks(
    tx: &DatabaseTransaction,
    sequences: &mut Sequences,
    ids: &[&str],
    organizations: &[&str],
    probes: &[&Probe],
) -> Result<HashMap<String, Opened>, DbErr> {
    let mut ids = ids.to_vec();
    ids.sort_unstable();
    ids.dedup();
    if ids.is_empty() {
        return Ok(HashMap::new());
    }
    let mut values: Vec<Value> = Vec::new();
    let param = |values: &mut Vec<Value>, value: Value| {
        values.push(value);
        format!("${}", values.len())
    };
    let listed: Vec<String> = ids.iter().map(|id| param(&mut values, (*id).into())).collect();
    let mut parts = vec![format!(
        "WITH locked AS MATERIALIZED (SELECT tasks.*, CAST(xmin AS TEXT) AS row_xmin FROM tasks \
         WHERE id IN ({}) ORDER BY id FOR UPDATE)",
        listed.join(", ")
    )];
    let mut columns = vec![
        "locked.*".to_owned(),
        "(SELECT CAST(xmin AS TEXT) FROM tasks AS seen WHERE seen.id = locked.id) AS seen_xmin".to_owned(),
    ];
    let mut reserving: Vec<(&str, i64)> = Vec::new();
    for &organization in organizations {
        if sequences.has_reserved(organization) || reserving.iter().any(|(o, _)| *o == organization) {
            continue;
        }
        let count = sequences.expected(organization);
        let (org, n) = (
            param(&mut values, organization.into()),
            param(&mut values, count.into()),
        );
        let at = reserving.len();
        parts.push(format!(
            "reserved{at} AS ({})",
            RESERVE_ALL_LOCKED.replace("{org}", &org).replace("{count}", &n)
        ));
        columns.push(format!("(SELECT value FROM reserved{at}) AS reserved{at}"));
        reserving.push((organization, count));
    }
    if let Some((select, probe_values)) = probe::select_many(probes, values.len() + 1, "locked") {
        values.extend(probe_values);
        parts.push(format!("probed AS MATERIALIZED ({select})"));
        columns.push(
            "(SELECT CAST(COALESCE(json_agg(json_build_array(probe_kind, probe_source, probe_key)), '[]') AS TEXT) \
             FROM probed WHERE probed.probe_task = locked.id) AS taken"
                .to_owned(),
        );
    }
    let sql = format!("{} SELECT {} FROM locked", parts.join(", "), columns.join(", "));
    let rows = tx
        .query_all_raw(Statement::from_sql_and_values(
            DatabaseBackend::Postgres,
            sql,
            values,
        ))
        .await?;
    if let Some(first) = rows.first() {
        for (at, (organization, count)) in reserving.into_iter().enumerate() {
            let reserved = first.try_get::<i64>("", &format!("reserved{at}"))?;
            sequences.reserved(organization, count, reserved);
        }
    }
    let mut opened = HashMap::new();
    for row in &rows {
        let task = task::Model::from_query_result(row, "")?;
        if let Some(probe) = probes.iter().find(|probe| probe.task_id() == task.id) {
            let taken = probe::trusted_taken(row, probe)?;
            opened.insert(task.id.clone(), Opened { row: task, taken });
        }
    }
    Ok(opened)
}
