//! `flood`: N status events per second for benchmarks. The rate and count come from the
//! message text (`rate=200 count=1000`) or from `rate`/`count` in message or request metadata.
//! Every event carries `metadata.emittedAtMs` (stamped by the store) and `seq`.

use app::a2a::TaskState;
use serde_json::{Value, json};

use crate::demo_agent::runner::Step;
use crate::demo_agent::wire::{Incoming, Update};

/// Defaults when the message says nothing.
const DEFAULT_RATE: u32 = 100;
const DEFAULT_COUNT: u32 = 500;
/// Upper bounds, so one request cannot keep the demo agent busy for hours.
const MAX_RATE: u32 = 50_000;
const MAX_COUNT: u32 = 1_000_000;

/// Rate (events per second) and count requested by `incoming`, clamped to the bounds.
pub(crate) fn parameters(incoming: &Incoming) -> (u32, u32) {
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
    (rate.clamp(1, MAX_RATE), count.min(MAX_COUNT))
}

/// The script: a WORKING announcement, the flood, then COMPLETED.
pub(crate) fn plan(incoming: &Incoming) -> Vec<Step> {
    let (rate, count) = parameters(incoming);
    vec![
        Step::Do(
            Update::say(
                TaskState::Working,
                format!("Emitting {count} events at {rate} per second."),
            )
            .with_message_metadata(json!({"rate": rate, "count": count})),
        ),
        Step::Flood { rate, count },
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

    #[test]
    fn reads_text_then_metadata_and_clamps() {
        assert_eq!(
            parameters(&incoming("rate=200 count=1000", json!({}))),
            (200, 1000)
        );
        assert_eq!(
            parameters(&incoming("go", json!({"rate": 5, "count": 7}))),
            (5, 7)
        );
        assert_eq!(
            parameters(&incoming("go", json!({"flood": {"count": 9}}))),
            (DEFAULT_RATE, 9)
        );
        assert_eq!(
            parameters(&incoming("rate=0 count=99999999", json!({}))),
            (1, MAX_COUNT)
        );
    }
}
