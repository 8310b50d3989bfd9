//! One task growing to a million events (issue #33): the per-event cost of ingesting one event
//! at a time, and how long the task's page takes to render on the server (`GET /tasks/{id}`,
//! server-side rendered through the console's own router, paged history), as the task's ledger
//! grows from 100 to 1,000,000 events. The events are status updates with a message each, so
//! the task's messages and transitions grow with its ledger; they are added through ingestion,
//! in groups of [`FILL_GROUP`] (as the commit queue takes them). Beside each size, the floor: one
//! bare ledger row inserted per transaction into the same table, as large by then
//! ([`super::many::floor`]), so what the table's size costs any insert is told apart from what
//! ingestion adds.

use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::Request;
use leptos::config::LeptosOptions;
use server::AppState;
use tower::ServiceExt;

use super::{Backend, Fixture, analyze, median, new_task, observation, status};

/// Where the series measures.
pub const SIZES: [usize; 5] = [100, 1_000, 10_000, 100_000, 1_000_000];
/// Events per transaction while the ledger grows between two sizes.
const FILL_GROUP: usize = 1_024;
/// Events ingested one at a time at each size, in [`BURSTS`] bursts (the median of all is
/// reported).
const SAMPLES: usize = 100;
/// Bursts of samples at each size, [`BURST_GAP`] apart: a stall of the machine shorter than the
/// gap (another process's vacuum, say) lands in one burst and not in the median. All 100 in one
/// burst (about 50 ms) once read twice the other sizes' cost in a whole `scripts/bench` run, and
/// did not again in four runs of the series alone.
const BURSTS: usize = 4;
const BURST_GAP: Duration = Duration::from_secs(1);
/// Page renders timed at each size (the median is reported).
const PAGE_LOADS: usize = 15;

/// One size's measurements.
pub struct Point {
    pub per_event: Duration,
    /// One bare ledger row per transaction into the table at this size.
    pub floor: Duration,
    pub page: Duration,
    pub page_bytes: usize,
}

fn leptos_options() -> LeptosOptions {
    LeptosOptions::builder()
        .output_name("agent-taskbay")
        .site_root("target/site")
        .build()
}

/// The task page of `task`, rendered `PAGE_LOADS` times: the median and the page's size.
async fn page(state: &AppState, task: &str) -> (Duration, usize) {
    let host = state.leptos_options.site_addr.to_string();
    let mut samples = Vec::with_capacity(PAGE_LOADS);
    let mut bytes = 0;
    for _ in 0..PAGE_LOADS {
        let request = Request::get(format!("/tasks/{task}"))
            .header("host", &host)
            .body(Body::empty())
            .expect("request");
        let started = Instant::now();
        let response = server::build_router(state.clone())
            .oneshot(request)
            .await
            .expect("router");
        assert_eq!(response.status(), 200, "the task page");
        let body = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .expect("page body");
        samples.push(started.elapsed());
        bytes = body.len();
    }
    (median(samples), bytes)
}

/// The floor at `size`: [`SAMPLES`] bare ledger rows, one per transaction, in [`BURSTS`] bursts
/// [`BURST_GAP`] apart like the samples; the median burst's time per row.
async fn floor_at(backend: &Backend, f: &Fixture, size: usize) -> Duration {
    let per_burst = SAMPLES / BURSTS;
    let mut bursts = Vec::with_capacity(BURSTS);
    for burst in 0..BURSTS {
        tokio::time::sleep(BURST_GAP).await;
        // Sequences of their own (negative, below every other floor's).
        let offset = 80_000_000 + (size * BURSTS + burst * per_burst) as i64;
        let rate = super::many::floor(backend, f, offset, per_burst, 1).await;
        bursts.push(Duration::from_secs_f64(1.0 / rate.per_second));
    }
    median(bursts)
}

/// The series on one database: one task grown to each of [`SIZES`] in turn.
pub async fn series(backend: &Backend, f: &Fixture) -> Vec<Point> {
    let state = AppState::new(leptos_options(), backend.config.clone(), backend.db.clone()).expect("state");
    let remote = uuid::Uuid::new_v4().to_string();
    let task = new_task(f, &remote).await;
    let mut ingested = 1;
    let mut points = Vec::new();
    for size in SIZES {
        let fill: Vec<_> = (ingested..size.saturating_sub(SAMPLES))
            .map(|n| observation(f, Some(&task), format!("f{n}"), status(&remote, n)))
            .collect();
        for group in fill.chunks(FILL_GROUP) {
            f.ingestor.ingest_group(group).await.expect("fill");
        }
        ingested += fill.len();
        // Statistics as a live database would have them after growing gradually (autovacuum):
        // without them PostgreSQL keeps the plans of a small table while this one grows a
        // hundredfold between two sizes. On PostgreSQL the tables are vacuumed too, as
        // autovacuum would have done meanwhile, so no autovacuum that the fill set off runs
        // beside the samples.
        let statement = if backend.name == "PostgreSQL" {
            "VACUUM (ANALYZE)"
        } else {
            "ANALYZE"
        };
        analyze(backend, statement).await;
        let mut samples = Vec::with_capacity(SAMPLES);
        for n in ingested..ingested + SAMPLES {
            if n > ingested && (n - ingested) % (SAMPLES / BURSTS) == 0 {
                tokio::time::sleep(BURST_GAP).await;
            }
            let one = observation(f, Some(&task), format!("f{n}"), status(&remote, n));
            let started = Instant::now();
            f.ingestor.ingest(&one).await.expect("ingest");
            samples.push(started.elapsed());
        }
        ingested += SAMPLES;
        let floor = floor_at(backend, f, size).await;
        let (page, page_bytes) = page(&state, &task).await;
        points.push(Point {
            per_event: median(samples),
            floor,
            page,
            page_bytes,
        });
    }
    points
}
