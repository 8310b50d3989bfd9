//! What a task already holds of the events an ingesting transaction is about to fold: which of
//! their ledger keys and which of their messages' de-duplication keys are taken (issue #33, ADR
//! 0050). Read once, under the task's row lock, before anything is written, so the fold knows
//! which rows it will add and its writes can all be sent together ([`Deferred`](super::deferred)).
//! Only `ingest` calls these, through [`read`] or with the statements that lock the task and its
//! organization's counter ([`sequences`](super::sequences)).

use std::collections::HashSet;

use sea_orm::{ConnectionTrait, DatabaseBackend, DatabaseTransaction, DbErr, QueryResult, Statement, Value};

/// An event's ledger key, `(task, source, key)` unique: a stream event's names the user turn it
/// belongs to, which the probe may read before the caller has seen the task row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EventKey {
    Exact(String),
    /// `t{turn}:{suffix}`, the turn being the task's current one.
    OfTurn(String),
}

impl EventKey {
    /// The key at the task's `turn`.
    pub fn at(&self, turn: i64) -> String {
        match self {
            EventKey::Exact(key) => key.clone(),
            EventKey::OfTurn(suffix) => format!("t{turn}:{suffix}"),
        }
    }
}

/// The keys to look up for one task.
pub struct Probe {
    task_id: String,
    events: Vec<(&'static str, EventKey)>,
    messages: Vec<String>,
}

/// The keys found taken: `(source, key)` of events, de-duplication keys of messages.
#[derive(Debug, Default)]
pub struct Taken {
    pub events: HashSet<(String, String)>,
    pub messages: HashSet<String>,
}

impl Probe {
    pub fn new(task_id: &str) -> Self {
        Self {
            task_id: task_id.to_owned(),
            events: Vec::new(),
            messages: Vec::new(),
        }
    }

    /// The task whose keys these are.
    pub fn task_id(&self) -> &str {
        &self.task_id
    }

    pub fn event(&mut self, source: &'static str, key: EventKey) {
        self.events.push((source, key));
    }

    pub fn message(&mut self, dedupe_key: String) {
        if !self.messages.contains(&dedupe_key) {
            self.messages.push(dedupe_key);
        }
    }

    /// The keys as they are at the task's `turn`, for a caller that has read the row: an exact
    /// key is an index lookup where one made in SQL may not be.
    pub fn at_turn(&mut self, turn: i64) {
        for (_, key) in &mut self.events {
            if let EventKey::OfTurn(_) = key {
                *key = EventKey::Exact(key.at(turn));
            }
        }
    }

    /// The events' `(source, key)` pairs.
    pub fn events(&self) -> impl Iterator<Item = (&'static str, &EventKey)> {
        self.events.iter().map(|(source, key)| (*source, key))
    }

    /// The messages' de-duplication keys.
    pub fn messages(&self) -> impl Iterator<Item = &String> {
        self.messages.iter()
    }

    pub fn is_empty(&self) -> bool {
        self.events.is_empty() && self.messages.is_empty()
    }

    /// The probe as one `SELECT` of `(probe_kind, probe_source, probe_key)` rows, its
    /// parameters numbered from `$first` on PostgreSQL (SQLite's `?` are counted in order).
    pub(super) fn select(&self, backend: DatabaseBackend, first: usize) -> (String, Vec<Value>) {
        self.select_with(backend, first, None)
    }

    /// [`Probe::select`]; with `rows`, a stream event's key takes the turn from that one-row
    /// relation of task rows (a `WITH` part of the caller's statement) instead of the task's
    /// row as the statement's snapshot has it.
    fn select_with(
        &self,
        backend: DatabaseBackend,
        first: usize,
        rows: Option<&str>,
    ) -> (String, Vec<Value>) {
        let mut params = Params {
            backend,
            values: Vec::new(),
            first,
        };
        let mut parts = Vec::new();
        if !self.events.is_empty() {
            parts.push(self.events_part(&mut params, rows));
        }
        if !self.messages.is_empty() {
            parts.push(if backend == DatabaseBackend::Postgres {
                messages_lookups(&self.messages_values(&mut params), false)
            } else {
                let task = params.add(self.task_id.clone().into());
                let keys: Vec<String> = self
                    .messages
                    .iter()
                    .map(|key| params.add(key.clone().into()))
                    .collect();
                format!(
                    "SELECT 'm' AS probe_kind, '' AS probe_source, dedupe_key AS probe_key FROM task_messages \
                     WHERE task_id = {task} AND dedupe_key IN ({})",
                    keys.join(", ")
                )
            });
        }
        (parts.join(" UNION ALL "), params.values)
    }

    /// The `SELECT` of the events' keys the task holds. A stream event's key is built in SQL from
    /// the task's turn: read from `rows` when given, else looked up by the task's id.
    fn events_part(&self, params: &mut Params, rows: Option<&str>) -> String {
        let task = params.add(self.task_id.clone().into());
        let sources = self.sources(params);
        let source_of = |source: &str| placeholder_of(&sources, source);
        if params.backend == DatabaseBackend::Postgres {
            let values = self.events_values(params, &task, &source_of);
            let turn = rows.map_or(Turn::OfTask(&task), Turn::From);
            return events_lookups(&values, turn, false);
        }
        let mut keys = Vec::with_capacity(self.events.len());
        for (_, key) in &self.events {
            keys.push(match key {
                EventKey::Exact(key) => params.add(key.clone().into()),
                EventKey::OfTurn(suffix) => {
                    // SQLite counts its `?` in order: the task's id again for each turn read.
                    let turn_rows = match rows {
                        Some(rows) => rows.to_owned(),
                        None => format!("tasks WHERE id = {}", params.add(self.task_id.clone().into())),
                    };
                    format!(
                        "('t' || CAST((SELECT turn FROM {turn_rows}) AS TEXT) || ':' || {})",
                        params.add(suffix.clone().into())
                    )
                }
            });
        }
        let sources: Vec<&str> = sources
            .iter()
            .map(|(_, placeholder)| placeholder.as_str())
            .collect();
        // Both key columns, so the lookup stays on the unique index's prefix (SQLite's plan).
        format!(
            "SELECT 'e' AS probe_kind, source AS probe_source, source_key AS probe_key FROM task_events \
             WHERE task_id = {task} AND source IN ({}) AND source_key IN ({})",
            sources.join(", "),
            keys.join(", ")
        )
    }

    /// The events' sources, each a parameter once: `(source, placeholder)`.
    fn sources(&self, params: &mut Params) -> Vec<(&'static str, String)> {
        let mut sources: Vec<&'static str> = self.events.iter().map(|(source, _)| *source).collect();
        sources.sort_unstable();
        sources.dedup();
        sources.into_iter().map(|s| (s, params.add(s.into()))).collect()
    }

    /// PostgreSQL's events as rows of a `VALUES` list, `(task, source, key or suffix, whether
    /// it is a suffix)`, for [`events_lookups`].
    fn events_values(
        &self,
        params: &mut Params,
        task: &str,
        source_of: &dyn Fn(&str) -> String,
    ) -> Vec<String> {
        self.events
            .iter()
            .map(|(source, key)| {
                let source = source_of(source);
                match key {
                    EventKey::Exact(key) => {
                        format!("({task}, {source}, {}, FALSE)", params.add(key.clone().into()))
                    }
                    EventKey::OfTurn(suffix) => {
                        format!("({task}, {source}, {}, TRUE)", params.add(suffix.clone().into()))
                    }
                }
            })
            .collect()
    }

    /// PostgreSQL's messages as rows of a `VALUES` list, `(task, key)`, for [`messages_lookups`].
    fn messages_values(&self, params: &mut Params) -> Vec<String> {
        let task = params.add(self.task_id.clone().into());
        self.messages
            .iter()
            .map(|key| format!("({task}, {})", params.add(key.clone().into())))
            .collect()
    }

    /// The probe as one scalar subquery, its rows as a JSON array of `[kind, source, key]`
    /// (PostgreSQL; read back with [`Taken::from_aggregate`]), for a statement whose other
    /// columns are of another shape; the turn from `rows` ([`Probe::select_with`]).
    pub(super) fn aggregate(
        &self,
        backend: DatabaseBackend,
        first: usize,
        rows: &str,
    ) -> (String, Vec<Value>) {
        let (select, values) = self.select_with(backend, first, Some(rows));
        let sql = format!(
            "(SELECT CAST(COALESCE(json_agg(json_build_array(probe_kind, probe_source, probe_key)), '[]') AS TEXT) \
             FROM ({select}) AS probe)"
        );
        (sql, values)
    }
}

/// Several tasks' probes as one `SELECT` of `(probe_task, probe_kind, probe_source, probe_key)`
/// rows (PostgreSQL), parameters numbered from `$first`, each stream event's key made with the
/// turn of its task's row in `rows` (a `WITH` part of the caller's statement with an `id`
/// column). `None` when no probe has a key.
pub(super) fn select_many(probes: &[&Probe], first: usize, rows: &str) -> Option<(String, Vec<Value>)> {
    let mut params = Params {
        backend: DatabaseBackend::Postgres,
        values: Vec::new(),
        first,
    };
    let (mut events, mut messages) = (Vec::new(), Vec::new());
    for probe in probes {
        if !probe.events.is_empty() {
            let task = params.add(probe.task_id.clone().into());
            let sources = probe.sources(&mut params);
            let source_of = |source: &str| placeholder_of(&sources, source);
            events.extend(probe.events_values(&mut params, &task, &source_of));
        }
        if !probe.messages.is_empty() {
            messages.extend(probe.messages_values(&mut params));
        }
    }
    let mut parts = Vec::new();
    if !events.is_empty() {
        parts.push(events_lookups(&events, Turn::From(rows), true));
    }
    if !messages.is_empty() {
        parts.push(messages_lookups(&messages, true));
    }
    (!parts.is_empty()).then(|| (parts.join(" UNION ALL "), params.values))
}

/// The placeholder [`Probe::sources`] gave `source`.
fn placeholder_of(sources: &[(&str, String)], source: &str) -> String {
    let found = sources.iter().find(|(name, _)| *name == source);
    found.expect("every source is listed").1.clone()
}

/// Where a PostgreSQL probe reads the task's turn that a stream event's key begins with.
enum Turn<'a> {
    /// The task's row in `tasks`, by this placeholder of its id (one task, read once).
    OfTask(&'a str),
    /// Each key's task's row in this relation (a `WITH` part with an `id` column), joined.
    From(&'a str),
}

/// PostgreSQL's events part: one lookup of the whole unique key per event, as a `LATERAL`
/// subquery with `LIMIT 1` so the planner cannot make it a join. Its generic plan (a prepared
/// statement's, after five runs) estimated a task's events from the table's statistics and
/// joined the keys against every event of the task: with `IN` lists, then with a plain join on
/// a list of keys, which hashed a task's 400,000 events for each group of 1,024 (0.2 s, and
/// growing with the task). The task's id is a column of the list, not a constant of the
/// subquery: a custom plan for a task the statistics do not know estimated it at one row and
/// scanned the whole task for each key. A stream event's key is its turn's prefix ([`Turn`])
/// and its suffix ([`Probe::events_values`]); with `task_column`, each found key says its task
/// (`probe_task`). A generic plan made while the tables were nearly empty, where both indexes on
/// the task cost the same, may still take the `(task, sequence)` one and read the whole task per
/// key: the workers refresh the statistics as the tables grow, which has the plan made again
/// (ADR 0061, `store::statistics`).
fn events_lookups(values: &[String], turn: Turn, task_column: bool) -> String {
    let task = if task_column {
        "probe_keys.column1 AS probe_task, "
    } else {
        ""
    };
    let (join, prefix) = match turn {
        Turn::OfTask(task) => (
            String::new(),
            format!("(SELECT 't' || CAST(turn AS TEXT) || ':' FROM tasks WHERE id = {task})"),
        ),
        Turn::From(rows) => (
            format!(" JOIN {rows} AS turn_row ON turn_row.id = probe_keys.column1"),
            "('t' || CAST(turn_row.turn AS TEXT) || ':')".to_owned(),
        ),
    };
    format!(
        "SELECT {task}'e' AS probe_kind, found.source AS probe_source, found.source_key AS probe_key \
         FROM (VALUES {}) AS probe_keys{join} CROSS JOIN LATERAL (SELECT source, source_key FROM task_events \
         WHERE task_id = probe_keys.column1 AND source = probe_keys.column2 AND source_key = CASE \
         WHEN probe_keys.column4 THEN {prefix} || probe_keys.column3 ELSE probe_keys.column3 END LIMIT 1) AS found",
        values.join(", ")
    )
}

/// PostgreSQL's messages part: a lookup per key, as for the events ([`events_lookups`]): with
/// `dedupe_key IN (…)` a cached plan filtered every message of a long task through the list
/// (seconds a group at 280,000 messages).
fn messages_lookups(values: &[String], task_column: bool) -> String {
    let task = if task_column {
        "probe_messages.column1 AS probe_task, "
    } else {
        ""
    };
    format!(
        "SELECT {task}'m' AS probe_kind, '' AS probe_source, found.dedupe_key AS probe_key \
         FROM (VALUES {}) AS probe_messages CROSS JOIN LATERAL (SELECT dedupe_key FROM task_messages \
         WHERE task_id = probe_messages.column1 AND dedupe_key = probe_messages.column2 LIMIT 1) AS found",
        values.join(", ")
    )
}

impl Taken {
    /// Notes one row of [`Probe::select`]; a row that is not the probe's is left out.
    pub(super) fn note(&mut self, row: &QueryResult) -> Result<(), DbErr> {
        let Ok(kind) = row.try_get::<String>("", "probe_kind") else {
            return Ok(());
        };
        let source: String = row.try_get("", "probe_source")?;
        let key: String = row.try_get("", "probe_key")?;
        self.add(&kind, source, key);
        Ok(())
    }

    /// The keys of [`Probe::aggregate`]'s answer.
    pub(super) fn from_aggregate(json: &str) -> Result<Self, DbErr> {
        let rows: Vec<(String, String, String)> =
            serde_json::from_str(json).map_err(|error| DbErr::Custom(format!("probe answer: {error}")))?;
        let mut taken = Taken::default();
        for (kind, source, key) in rows {
            taken.add(&kind, source, key);
        }
        Ok(taken)
    }

    fn add(&mut self, kind: &str, source: String, key: String) {
        match kind {
            "e" => {
                self.events.insert((source, key));
            }
            "m" => {
                self.messages.insert(key);
            }
            _ => {}
        }
    }
}

/// What the row's task holds of `probe`'s keys, unless the row changed between the statement's
/// snapshot and its lock (ADR 0051).
pub(super) fn trusted_taken(row: &QueryResult, probe: &Probe) -> Result<Option<Taken>, DbErr> {
    if probe.is_empty() {
        return Ok(Some(Taken::default()));
    }
    if row.try_get::<String>("", "row_xmin")? != row.try_get::<String>("", "seen_xmin")? {
        return Ok(None);
    }
    Taken::from_aggregate(&row.try_get::<String>("", "taken")?).map(Some)
}

/// What the task holds of `probe`'s keys, in one query (none for an empty probe).
pub async fn read(tx: &DatabaseTransaction, probe: &Probe) -> Result<Taken, DbErr> {
    let mut taken = Taken::default();
    if probe.is_empty() {
        return Ok(taken);
    }
    let backend = tx.get_database_backend();
    let (sql, values) = probe.select(backend, 1);
    for row in tx
        .query_all_raw(Statement::from_sql_and_values(backend, sql, values))
        .await?
    {
        taken.note(&row)?;
    }
    Ok(taken)
}

/// Parameters numbered as they are added.
struct Params {
    backend: DatabaseBackend,
    values: Vec<Value>,
    first: usize,
}

impl Params {
    fn add(&mut self, value: Value) -> String {
        self.values.push(value);
        if self.backend == DatabaseBackend::Postgres {
            format!("${}", self.first + self.values.len() - 1)
        } else {
            "?".to_owned()
        }
    }
}
