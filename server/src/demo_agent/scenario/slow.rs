//! `slow`: a report streamed as artifact chunks over about ten seconds, long enough to cancel
//! or resubscribe while it runs.

use std::time::Duration;

use app::a2a::TaskState;
use serde_json::json;

use crate::demo_agent::runner::Step;
use crate::demo_agent::wire::{Incoming, Update, text_part};

/// Chunks in the report.
const CHUNKS: u32 = 20;
/// Pause before each chunk (20 × 500 ms ≈ 10 s).
const CHUNK_PAUSE: Duration = Duration::from_millis(500);

/// The script: one artifact `report.txt` appended chunk by chunk, then COMPLETED.
pub(crate) fn plan(incoming: &Incoming) -> Vec<Step> {
    let mut steps = vec![Step::Do(Update::say(
        TaskState::Working,
        format!("Writing a long report about \"{}\".", incoming.text.trim()),
    ))];
    for n in 1..=CHUNKS {
        steps.push(Step::Sleep(CHUNK_PAUSE));
        steps.push(Step::Do(Update::Artifact {
            artifact: json!({
                "artifactId": "slow-report",
                "name": "report.txt",
                "parts": [text_part(format!("Chunk {n} of {CHUNKS}: still going.\n"))],
            }),
            append: n > 1,
            last_chunk: n == CHUNKS,
        }));
    }
    steps.push(Step::Do(Update::say(TaskState::Completed, "Report finished.")));
    steps
}
