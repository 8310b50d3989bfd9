//! A group's stream events for one task, de-duplicated with one query when the task's row is
//! opened and appended with one statement when it is written (issue #33, ADR 0031): the rest of
//! a group then costs the fold's own statements per event.

use std::collections::HashSet;

use sea_orm::{DatabaseTransaction, DbErr};

use super::{Observation, Prepared, Source};
use crate::db::entity::task;
use crate::store::ledger::{self, EventRows, NewEvent};

/// The stream events of one open task row in a group.
#[derive(Default)]
pub(super) struct Batch {
    /// The `(source, key)` pairs checked against the ledger when the row was opened.
    covered: HashSet<(String, String)>,
    /// Those already in the ledger, or taken by an earlier event of the group.
    taken: HashSet<(String, String)>,
    rows: EventRows,
}

impl Batch {
    /// Checks, in one query, the keys of the stream events that follow in the group for the
    /// task `row` (up to the first event of another task or another kind of source: a command
    /// response moves the turn the keys are made of). One event alone is not worth a query.
    pub(super) async fn open(
        tx: &DatabaseTransaction,
        row: &task::Model,
        run: &[(&Observation, &Prepared)],
    ) -> Result<Self, DbErr> {
        let keys: Vec<(&str, String)> = run
            .iter()
            .enumerate()
            .take_while(|(n, (observation, _))| {
                let same_task = *n == 0
                    || (observation.local_task_id.as_deref() == Some(row.id.as_str())
                        && observation.agent_id == row.agent_id);
                same_task && matches!(observation.source, Source::Stream | Source::Reconcile)
            })
            .map(|(_, (observation, prepared))| {
                (
                    observation.source.as_str(),
                    source_key(row.turn, observation, prepared),
                )
            })
            .collect();
        if keys.len() < 2 {
            return Ok(Self::default());
        }
        let taken = ledger::existing_keys(tx, &row.id, &keys).await?;
        let covered = keys
            .into_iter()
            .map(|(source, key)| (source.to_owned(), key))
            .collect();
        Ok(Self {
            covered,
            taken,
            rows: EventRows::default(),
        })
    }

    /// Whether this batch decides about the event `(source, key)`.
    pub(super) fn covers(&self, source: &str, key: &str) -> bool {
        self.covered.contains(&(source.to_owned(), key.to_owned()))
    }

    /// Gathers a covered event; `false` for a duplicate.
    pub(super) fn add(&mut self, event: NewEvent<'_>) -> bool {
        if !self
            .taken
            .insert((event.source.to_owned(), event.source_key.clone()))
        {
            return false;
        }
        self.rows.push(event);
        true
    }

    /// Appends what was gathered.
    pub(super) async fn write(self, tx: &DatabaseTransaction) -> Result<(), DbErr> {
        ledger::append_all(tx, self.rows).await
    }
}

/// The event's de-duplication key: identical stream events are told apart by the user turn they
/// belong to; an event without a key of its own is known by its digest.
pub(super) fn source_key(turn: i64, observation: &Observation, prepared: &Prepared) -> String {
    match &observation.source_key {
        Some(key) if matches!(observation.source, Source::Stream | Source::Reconcile) => {
            format!("t{turn}:{key}")
        }
        Some(key) => key.clone(),
        None => format!("t{turn}:{}", prepared.digest),
    }
}
