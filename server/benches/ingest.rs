//! Ingest benchmarks (issue #6, items 1 and 2; issue #33): events per second through the single
//! ingestion path (ledger + projections + publish) for status updates and artifact append
//! chunks, a hundred tasks ingesting at once against the floor of bare inserts ([`many`]), and
//! the per-event cost for a task whose ledger already holds 100 … 100,000 events, and one task
//! grown to 1,000,000 events through ingestion, with its page's render time ([`long`]).
//! On SQLite always, and on PostgreSQL when `A2A_BENCH_POSTGRES_URL` (or
//! `A2A_TEST_POSTGRES_URL`) names a server.
//!
//! `cargo bench -p server --bench ingest` prints a Markdown table; `scripts/bench` runs it and
//! writes BENCHMARKS.md. Not a test: under `cargo test` it only checks that it starts.

#[path = "ingest/long.rs"]
mod long;
#[path = "ingest/many.rs"]
mod many;

/// The allocator the `agent-taskbay` binary runs with (ADR 0055).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::time::{Duration, Instant};

use sea_orm::{ConnectionTrait, Database, DatabaseBackend, Statement};
use serde_json::{Value, json};
use server::config::Config;
use server::db::{self, Db};
use server::ingest::archive::ArtifactStore;
use server::ingest::bus::Bus;
use server::ingest::{Ingestor, Observation, Source};
use server::store::{agents, organizations};

/// Events per throughput run.
const THROUGHPUT_EVENTS: usize = 2_000;
/// Events per transaction in the group-commit columns (the stream worker's most).
const GROUP: usize = server::workers::subscriptions::GROUP_LIMIT;
/// Throughput runs per kind of event (the median is reported).
const THROUGHPUT_RUNS: usize = 3;
/// Pairs of a floor run and a run of status updates one at a time (the 2× goal's ratio).
const PAIRED_RUNS: usize = 7;
/// Ledger sizes for the cost-growth series.
const LEDGER_SIZES: [usize; 4] = [100, 1_000, 10_000, 100_000];
/// Ingests timed at each ledger size (the median is reported).
const SAMPLES: usize = 300;

struct Backend {
    name: &'static str,
    config: Config,
    db: Db,
    _dir: tempfile::TempDir,
    cleanup: Option<(String, String)>,
}

async fn sqlite() -> Backend {
    let dir = tempfile::tempdir().expect("temp dir");
    let config =
        Config::from_lookup(|name| (name == "A2A_DATA_DIR").then(|| dir.path().display().to_string()))
            .expect("config");
    let db = db::connect(&config.database).await.expect("sqlite");
    db::migration::migrate(&db).await.expect("migrate");
    Backend {
        name: "SQLite",
        config,
        db,
        _dir: dir,
        cleanup: None,
    }
}

async fn postgres() -> Option<Backend> {
    let admin = std::env::var("A2A_BENCH_POSTGRES_URL")
        .or_else(|_| std::env::var("A2A_TEST_POSTGRES_URL"))
        .ok()
        .filter(|v| !v.is_empty())?;
    let name = format!("taskbay_bench_{}", uuid::Uuid::new_v4().simple());
    let conn = Database::connect(admin.as_str()).await.expect("postgres admin");
    conn.execute_unprepared(&format!("CREATE DATABASE \"{name}\""))
        .await
        .expect("create db");
    let mut url = url::Url::parse(&admin).expect("url");
    url.set_path(&format!("/{name}"));
    let dir = tempfile::tempdir().expect("temp dir");
    let url_text = url.to_string();
    let data_dir = dir.path().display().to_string();
    let config = Config::from_lookup(|key| match key {
        "A2A_DATA_DIR" => Some(data_dir.clone()),
        "A2A_DATABASE_URL" => Some(url_text.clone()),
        _ => None,
    })
    .expect("config");
    let db = db::connect(&config.database).await.expect("postgres");
    db::migration::migrate(&db).await.expect("migrate");
    Some(Backend {
        name: "PostgreSQL",
        config,
        db,
        _dir: dir,
        cleanup: Some((admin, name)),
    })
}

impl Backend {
    async fn drop_database(self) {
        let db = self.db.clone();
        db.close().await;
        if let Some((admin, name)) = self.cleanup {
            let conn = Database::connect(admin.as_str()).await.expect("postgres admin");
            let _ = conn
                .execute_unprepared(&format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"))
                .await;
        }
    }
}

struct Fixture {
    ingestor: Ingestor,
    org: String,
    agent: String,
}

async fn fixture(backend: &Backend) -> Fixture {
    let org = organizations::local(&backend.db).await.expect("org").id;
    let agent = agents::register(
        &backend.db,
        &org,
        &format!("http://127.0.0.1:9/{}.json", uuid::Uuid::new_v4()),
        agents::AgentSource::Managed,
    )
    .await
    .expect("agent")
    .id;
    Fixture {
        ingestor: Ingestor::new(
            backend.db.clone(),
            ArtifactStore::new(backend._dir.path().join("artifacts")),
            Bus::default(),
        ),
        org,
        agent,
    }
}

fn observation(f: &Fixture, task: Option<&str>, key: String, payload: Value) -> Observation {
    Observation {
        organization_id: f.org.clone(),
        agent_id: f.agent.clone(),
        tenant: String::new(),
        conversation_id: "00000000-0000-4000-8000-00000000beef".into(),
        local_task_id: task.map(str::to_owned),
        source: Source::Stream,
        source_key: Some(key),
        payload,
        extensions: Vec::new(),
        protocol_version: Some("1.0".into()),
        skill_id: None,
        fence: None,
        rearm: false,
    }
}

/// A new working task; returns its local id.
async fn new_task(f: &Fixture, remote: &str) -> String {
    let payload =
        json!({"task": {"id": remote, "contextId": "ctx", "status": {"state": "TASK_STATE_WORKING"}}});
    f.ingestor
        .ingest(&observation(f, None, "start".into(), payload))
        .await
        .expect("ingest")
        .task_id
}

fn status(remote: &str, n: usize) -> Value {
    json!({"statusUpdate": {"taskId": remote, "status": {"state": "TASK_STATE_WORKING",
        "message": {"messageId": format!("m{n}"), "role": "ROLE_AGENT", "parts": [{"text": format!("step {n}")}]}}}})
}

fn chunk(remote: &str, n: usize) -> Value {
    json!({"artifactUpdate": {"taskId": remote, "artifact": {"artifactId": "report",
        "parts": [{"text": format!("Line {n} of the report.\n")}]}, "append": n > 0, "lastChunk": false}})
}

/// Events per second for `events` ingests of `make`, `group` events per transaction (one
/// with `Ingestor::ingest`, more with `Ingestor::ingest_group`, as a stream worker does when
/// events arrive faster than they are stored).
async fn throughput(f: &Fixture, make: fn(&str, usize) -> Value, group: usize) -> f64 {
    let remote = uuid::Uuid::new_v4().to_string();
    let task = new_task(f, &remote).await;
    let events: Vec<Observation> = (0..THROUGHPUT_EVENTS)
        .map(|n| observation(f, Some(&task), format!("e{n}"), make(&remote, n)))
        .collect();
    let started = Instant::now();
    for batch in events.chunks(group) {
        if let [one] = batch {
            f.ingestor.ingest(one).await.expect("ingest");
        } else {
            let done = f.ingestor.ingest_group(batch).await.expect("ingest");
            assert_eq!(done.len(), batch.len());
        }
    }
    THROUGHPUT_EVENTS as f64 / started.elapsed().as_secs_f64()
}

/// Fills a task's ledger to `size` events with one bulk statement (the rows ingestion would
/// write), so the series measures ledger length, not the time to build it.
async fn fill(backend: &Backend, f: &Fixture, task: &str, size: usize, offset: usize) {
    let (series, cast) = match backend.db.write.get_database_backend() {
        DatabaseBackend::Postgres => (
            format!("SELECT generate_series(1, {size}) AS n"),
            "CAST('{\"statusUpdate\":{}}' AS jsonb)",
        ),
        _ => (
            format!(
                "WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < {size}) SELECT n FROM s"
            ),
            "'{\"statusUpdate\":{}}'",
        ),
    };
    let now = if backend.db.write.get_database_backend() == DatabaseBackend::Postgres {
        "now()"
    } else {
        "CURRENT_TIMESTAMP"
    };
    let empty = if backend.db.write.get_database_backend() == DatabaseBackend::Postgres {
        "CAST('[]' AS jsonb)"
    } else {
        "'[]'"
    };
    // Row ids are 36-character strings (PostgreSQL enforces the length).
    let id = if backend.db.write.get_database_backend() == DatabaseBackend::Postgres {
        "CAST(CAST(md5('{task}' || n) AS uuid) AS text)".replace("{task}", task)
    } else {
        format!("'{task}-' || n")
    };
    let sql = format!(
        "INSERT INTO task_events (id, organization_id, task_id, sequence, source, event_kind, source_key, \
         payload_digest, payload_json, extensions_json, received_at) \
         SELECT {id}, '{org}', '{task}', -(n + {offset}), 'import', 'statusUpdate', 'fill-' || n, 'x', {cast}, {empty}, {now} \
         FROM ({series}) AS s",
        org = f.org,
        // Negative sequences never meet the counter's; each fill gets its own range.
    );
    backend
        .db
        .write
        .execute_raw(Statement::from_string(
            backend.db.write.get_database_backend(),
            sql,
        ))
        .await
        .expect("bulk fill");
    // Statistics as a live database would have them after growing gradually (autovacuum);
    // without this PostgreSQL plans the de-duplication lookup as if the table were empty.
    analyze(backend, "ANALYZE task_events").await;
}

/// Runs `statement` (`ANALYZE`, of every table or of some): the statistics autovacuum keeps
/// on a live database.
async fn analyze(backend: &Backend, statement: &str) {
    backend
        .db
        .write
        .execute_unprepared(statement)
        .await
        .expect("analyze");
}

fn median_rate(mut rates: Vec<f64>) -> f64 {
    rates.sort_by(f64::total_cmp);
    rates[rates.len() / 2]
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

/// Median per-event ingest time for a task whose ledger holds `size` events.
async fn cost_at(backend: &Backend, f: &Fixture, size: usize, offset: usize) -> Duration {
    let remote = uuid::Uuid::new_v4().to_string();
    let task = new_task(f, &remote).await;
    fill(backend, f, &task, size, offset).await;
    let mut samples = Vec::with_capacity(SAMPLES);
    for n in 0..SAMPLES {
        let obs = observation(f, Some(&task), format!("c{n}"), status(&remote, n));
        let started = Instant::now();
        f.ingestor.ingest(&obs).await.expect("ingest");
        samples.push(started.elapsed());
    }
    median(samples)
}

/// The tables, each a section `cargo bench -p server --bench ingest -- <section>` runs alone.
const SECTIONS: [&str; 4] = ["throughput", "many", "cost", "long"];

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if !args.iter().any(|a| a == "--bench") {
        println!("ingest benchmark: run with `cargo bench -p server --bench ingest` (or scripts/bench)");
        return;
    }
    // `-- many` (or any of SECTIONS) runs that table only.
    let chosen: Vec<&str> = SECTIONS
        .into_iter()
        .filter(|section| args.iter().any(|a| a == section))
        .collect();
    let runs = |section: &str| chosen.is_empty() || chosen.contains(&section);
    let mut backends = vec![sqlite().await];
    backends.extend(postgres().await);
    if runs("throughput") {
        throughput_table(&backends).await;
    }
    if runs("many") {
        many_table(&backends).await;
    }
    if runs("cost") {
        cost_table(&backends).await;
    }
    if runs("long") {
        long_table(&backends).await;
    }
    for backend in backends {
        backend.drop_database().await;
    }
}

/// Events per second, one task, one at a time and in groups.
async fn throughput_table(backends: &[Backend]) {
    println!(
        "### Ingest throughput (events/s, median of {THROUGHPUT_RUNS} runs of {THROUGHPUT_EVENTS} events, one task each)\n"
    );
    println!(
        "| Database | Floor: one bare insert per transaction | Status updates | Floor / status updates (median of {PAIRED_RUNS} pairs) | Artifact append chunks | Status updates, {GROUP} per transaction | Chunks, {GROUP} per transaction |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
    for (n, backend) in backends.iter().enumerate() {
        let f = fixture(backend).await;
        // The floor and one event at a time, run in turns (PAIRED_RUNS pairs), each pair's
        // ratio taken on its own: runs minutes apart on this kind of machine differ by more than
        // what the ratio is to show.
        let (mut floors, mut singles, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
        // One task's events first, then statistics, as a database older than a minute has them
        // (autovacuum): on a database without any, PostgreSQL plans a task's message lookup as a
        // scan of the task's messages.
        throughput(&f, status, 1).await;
        analyze(backend, "ANALYZE").await;
        for run in 0..PAIRED_RUNS {
            let offset = 60_000_000 + (n * PAIRED_RUNS + run) as i64 * 1_000_000;
            let floor = many::floor(backend, &f, offset, THROUGHPUT_EVENTS, 1)
                .await
                .per_second;
            let single = throughput(&f, status, 1).await;
            ratios.push(floor / single);
            floors.push(floor);
            singles.push(single);
        }
        let mut cells = vec![
            format!("{:.0}", median_rate(floors)),
            format!("{:.0}", median_rate(singles)),
            format!("{:.2}", median_rate(ratios)),
        ];
        for (make, group) in [
            (chunk as fn(&str, usize) -> Value, 1),
            (status, GROUP),
            (chunk, GROUP),
        ] {
            let mut rates = Vec::new();
            for _ in 0..THROUGHPUT_RUNS {
                rates.push(throughput(&f, make, group).await);
            }
            cells.push(format!("{:.0}", median_rate(rates)));
        }
        println!("| {} | {} |", backend.name, cells.join(" | "));
    }
    println!();
}

/// Many tasks at once, beside the floor.
async fn many_table(backends: &[Backend]) {
    println!(
        "### Many tasks at once ({} tasks × {} events, status updates and chunks, {} per group, all concurrent)\n",
        many::TASKS,
        many::PER_TASK,
        many::GROUP
    );
    println!(
        "| Database | Floor: bare inserts | Each group alone | Commit queue | Queue / floor | CPU per event: floor | alone | queue |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for backend in backends {
        let f = fixture(backend).await;
        let events = many::TASKS * many::PER_TASK;
        let floor = many::floor(backend, &f, 50_000_000, events, many::FLOOR_GROUP).await;
        let alone = many::many_tasks(&f, false).await;
        let queued = many::many_tasks(&f, true).await;
        println!(
            "| {} | {:.0}/s | {:.0}/s | {:.0}/s | {:.2} | {:.0} µs | {:.0} µs | {:.0} µs |",
            backend.name,
            floor.per_second,
            alone.per_second,
            queued.per_second,
            queued.per_second / floor.per_second,
            floor.cpu_us,
            alone.cpu_us,
            queued.cpu_us
        );
    }
    println!();
}

/// The per-event cost as the ledger grows.
async fn cost_table(backends: &[Backend]) {
    println!("### Per-event cost by ledger length (median of {SAMPLES} status updates)\n");
    let header: Vec<String> = LEDGER_SIZES.iter().map(|s| format!("{s} events")).collect();
    println!("| Database | {} | Spread |", header.join(" | "));
    println!("| --- |{} ---: |", " ---: |".repeat(LEDGER_SIZES.len()));
    for backend in backends {
        let f = fixture(backend).await;
        let mut costs = Vec::new();
        for (i, size) in LEDGER_SIZES.into_iter().enumerate() {
            costs.push(cost_at(backend, &f, size, i * 1_000_000).await);
        }
        let micros: Vec<f64> = costs.iter().map(|d| d.as_secs_f64() * 1e6).collect();
        let low = micros.iter().copied().fold(f64::MAX, f64::min);
        let high = micros.iter().copied().fold(0.0, f64::max);
        let cells: Vec<String> = micros.iter().map(|m| format!("{m:.0} µs")).collect();
        println!(
            "| {} | {} | ±{:.0} % |",
            backend.name,
            cells.join(" | "),
            (high - low) / (high + low) * 100.0
        );
    }
    println!();
}

/// One task grown to a million events: the per-event cost and the task page's render time.
async fn long_table(backends: &[Backend]) {
    println!(
        "### One task growing to 1,000,000 events (status updates with a message; median of 100 ingests one at a time in 4 bursts 1 s apart, the floor of 100 bare inserts likewise (median burst), and of 15 renders of its page)\n"
    );
    println!(
        "| Database | Events | Per event | Floor: one bare insert per transaction | Per event over the floor | Task page (server render) | Page size |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
    for backend in backends {
        let f = fixture(backend).await;
        for (size, point) in long::SIZES.into_iter().zip(long::series(backend, &f).await) {
            let (per_event, floor) = (
                point.per_event.as_secs_f64() * 1e6,
                point.floor.as_secs_f64() * 1e6,
            );
            println!(
                "| {} | {size} | {per_event:.0} µs | {floor:.0} µs | {:.0} µs | {:.1} ms | {} KB |",
                backend.name,
                per_event - floor,
                point.page.as_secs_f64() * 1e3,
                point.page_bytes / 1024
            );
        }
    }
    println!();
}
