//! `flood`: N events per second for benchmarks. The rate and count come from the message text
//! (`rate=200 count=1000`) or from `rate`/`count` in message or request metadata. `mix=chunks`
//! (or metadata `mix: "chunks"`) makes every second event an artifact chunk instead of a
//! status update, as an LLM agent streaming its answer does. Every event carries
//! `metadata.emittedAtMs` (stamped by the store) and `seq`.

use app::a2a::TaskState;
use serde_json::{Value, json};

use crate::demo_agent::runner::{Flood, Step};
use crate::demo_agent::wire::{Incoming, Update};

/// Defaults when the message says nothing.
const DEFAULT_RATE: u32 = 100;
const DEFAULT_COUNT: u32 = 500;
/// Upper bounds, so one request cannot keep the demo agent busy for hours.
const MAX_RATE: u32 = 50_000;
const MAX_COUNT: u32 = 1_000_000;

/// The flood requested by `incoming`: rate (events per second) and count clamped to the bounds,
/// and whether artifact chunks are mixed in.
pub(crate) fn parameters(incoming: &Incoming) -> Flood {
    let from_text = |key: &str| {
        incoming.text.split_whitespace().find_map(|word| {
            let (k, v) = word.split_once('=')?;
            (k.eq_ignore_ascii_case(key))
                .then(|| v.trim_matches(|c: char| !c.is_ascii_digit()).parse::<u32>().ok())?
        })
    };
    let from_metadata = |key: &str| {
        [&incoming.metadata, &incoming.request_metadata]
            .into_iter()
            .flat_map(|m| [m.get(key), m.pointer(&format!("/flood/{key}"))])
            .flatten()
            .find_map(Value::as_u64)
            .map(|n| u32::try_from(n).unwrap_or(u32::MAX))
    };
    let rate = from_text("rate")
        .or_else(|| from_metadata("rate"))
        .unwrap_or(DEFAULT_RATE);
    let count = from_text("count")
        .or_else(|| from_metadata("count"))
        .unwrap_or(DEFAULT_COUNT);
    let chunks = incoming
        .text
        .split_whitespace()
        .any(|word| word.eq_ignore_ascii_case("mix=chunks"))
        || [&incoming.metadata, &incoming.request_metadata]
            .into_iter()
            .any(|m| m.get("mix").and_then(Value::as_str) == Some("chunks"));
    Flood {
        rate: rate.clamp(1, MAX_RATE),
        count: count.min(MAX_COUNT),
        chunks,
    }
}

/// The script: a WORKING announcement, the flood, then COMPLETED.
pub(crate) fn plan(incoming: &Incoming) -> Vec<Step> {
    let flood = parameters(incoming);
    let (rate, count) = (flood.rate, flood.count);
    vec![
        Step::Do(
            Update::say(
                TaskState::Working,
                format!("Emitting {count} events at {rate} per second."),
            )
            .with_message_metadata(json!({"rate": rate, "count": count})),
        ),
        Step::Flood(flood),
        Step::Do(
            Update::say(
                TaskState::Completed,
                format!("Flood finished: {count} events at {rate} per second."),
            )
            .with_message_metadata(json!({"rate": rate, "count": count})),
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn incoming(text: &str, metadata: Value) -> Incoming {
        Incoming::from_params(&json!({"message": {"parts": [{"text": text}], "metadata": metadata}})).unwrap()
    }

    fn flood(rate: u32, count: u32, chunks: bool) -> Flood {
        Flood { rate, count, chunks }
    }

    #[test]
    fn reads_text_then_metadata_and_clamps() {
        assert_eq!(
            parameters(&incoming("rate=200 count=1000", json!({}))),
            flood(200, 1000, false)
        );
        assert_eq!(
            parameters(&incoming("go", json!({"rate": 5, "count": 7}))),
            flood(5, 7, false)
        );
        assert_eq!(
            parameters(&incoming("go", json!({"flood": {"count": 9}}))),
            flood(DEFAULT_RATE, 9, false)
        );
        assert_eq!(
            parameters(&incoming("rate=0 count=99999999", json!({}))),
            flood(1, MAX_COUNT, false)
        );
    }

    #[test]
    fn mix_chunks_from_text_or_metadata() {
        assert!(parameters(&incoming("rate=5 MIX=chunks", json!({}))).chunks);
        assert!(parameters(&incoming("go", json!({"mix": "chunks"}))).chunks);
        assert!(!parameters(&incoming("go mix=status", json!({"mix": "other"}))).chunks);
    }
}
