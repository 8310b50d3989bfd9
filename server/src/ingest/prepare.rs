//! Before the transaction: an observation is decoded, its digest computed over the ledger form of
//! canonical JSON, and its inline bytes archived ([`Prepared`]). No file is written while the
//! database is locked; async callers run this on the blocking pool ([`Ingestor::prepare_all`]).

use app::a2a::{DecodedEvent, StreamEvent, decode_stream_event};
use serde_json::Value;

use super::archive::{self, Archived, digest};
use super::{IngestError, Ingestor, Observation};
use app::ext::canonical::ledger_json;

/// An observation checked and with its bytes archived, ready for the transaction.
pub struct Prepared {
    pub(super) event: StreamEvent,
    pub(super) payload: Value,
    pub(super) digest: String,
    pub(super) archived: Vec<Archived>,
}

impl Prepared {
    /// The event as it will be stored: inline bytes replaced by archive references.
    pub fn payload(&self) -> &Value {
        &self.payload
    }
}

impl Ingestor {
    /// Decodes the payload and archives its inline bytes. Called before the transaction, so no
    /// file is written while the database is locked; a file whose event is not stored has no
    /// `artifact_access` row and is never served. It blocks on file I/O: async callers use
    /// [`Ingestor::prepare_all`].
    pub fn prepare(&self, observation: &Observation) -> Result<Prepared, IngestError> {
        let DecodedEvent { event, .. } =
            decode_stream_event(&observation.payload).map_err(|e| IngestError::Invalid(e.to_string()))?;
        let original = ledger_json(&observation.payload);
        let digest = digest(original.as_bytes());
        let (payload, archived) = self
            .store
            .archive_parts(&observation.organization_id, &observation.payload)?;
        // The stored event is the rewritten one; decode it again so projections hold references.
        let event = if payload == observation.payload {
            event
        } else {
            // The complete original is archived under the event's digest, so a rebuild can
            // check the stored version against it (security-and-durability §3.2). When a part
            // was refused (too large, not base64, past the quota) the original would keep the
            // refused bytes, and when the original itself would pass the quota it is not kept
            // either: a marker then vouches for the stored version instead (verify.rs).
            let refused = archive::archive_notes(&payload)
                .iter()
                .any(|note| note.get("refused").is_some());
            let kept = !refused
                && match self.store.put(&observation.organization_id, original.as_bytes()) {
                    Ok(_) => true,
                    Err(archive::PutError::Io(error)) => return Err(error.into()),
                    Err(archive::PutError::QuotaFull(_)) => false,
                };
            if !kept {
                let stored = archive::digest(ledger_json(&payload).as_bytes());
                self.store.put_marker(
                    &observation.organization_id,
                    &archive::stored_marker(&digest, &stored),
                )?;
            }
            decode_stream_event(&payload)
                .map_err(|e| IngestError::Invalid(e.to_string()))?
                .event
        };
        Ok(Prepared {
            event,
            payload,
            digest,
            archived,
        })
    }

    /// [`Ingestor::prepare`] of each observation, on the blocking pool: decoding, digests and
    /// the archive's file writes stay off the async executor. Observations that are
    /// [`light`] are prepared where they are: no file to write and little to hash, where the
    /// hop to the pool and back would cost more than the work (issue #33).
    pub async fn prepare_all(&self, observations: &[Observation]) -> Result<Vec<Prepared>, IngestError> {
        if light(observations) {
            return observations
                .iter()
                .map(|observation| self.prepare(observation))
                .collect();
        }
        let ingestor = self.clone();
        let observations = observations.to_vec();
        let prepared = tokio::task::spawn_blocking(move || {
            observations
                .iter()
                .map(|observation| ingestor.prepare(observation))
                .collect::<Result<Vec<_>, _>>()
        })
        .await;
        match prepared {
            Ok(prepared) => prepared,
            Err(error) if error.is_panic() => std::panic::resume_unwind(error.into_panic()),
            Err(error) => Err(IngestError::Archive(std::io::Error::other(error))),
        }
    }
}

/// How much text the observations of a group may carry and still be prepared on the async
/// executor (decoding, canonical JSON and a digest of this much take microseconds).
pub(super) const LIGHT_BYTES: usize = 16 * 1024;

/// Whether the observations carry no inline bytes (`raw`, `bytes`: archived, so a file is
/// written) and, in all, less than [`LIGHT_BYTES`] of strings and keys (8 bytes counted for each
/// number, boolean or null).
pub(super) fn light(observations: &[Observation]) -> bool {
    fn within(value: &Value, budget: &mut usize) -> bool {
        match value {
            Value::String(text) => take(budget, text.len()),
            Value::Array(items) => items.iter().all(|item| within(item, budget)),
            Value::Object(map) => map.iter().all(|(key, child)| {
                !(matches!(key.as_str(), "raw" | "bytes") && child.is_string())
                    && take(budget, key.len())
                    && within(child, budget)
            }),
            _ => take(budget, 8),
        }
    }
    fn take(budget: &mut usize, bytes: usize) -> bool {
        *budget = budget.saturating_sub(bytes);
        *budget > 0
    }
    let mut budget = LIGHT_BYTES;
    observations
        .iter()
        .all(|observation| within(&observation.payload, &mut budget))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{LIGHT_BYTES, light};
    use crate::ingest::{Observation, Source};

    fn observation(payload: serde_json::Value) -> Observation {
        Observation {
            organization_id: "org".into(),
            agent_id: "agent".into(),
            tenant: String::new(),
            conversation_id: "conversation".into(),
            local_task_id: None,
            source: Source::Stream,
            source_key: None,
            payload,
            extensions: Vec::new(),
            protocol_version: None,
            skill_id: None,
            fence: None,
            rearm: false,
        }
    }

    fn text(text: &str) -> Observation {
        observation(
            json!({"artifactUpdate": {"taskId": "t", "artifact": {"artifactId": "a",
            "parts": [{"text": text}]}}}),
        )
    }

    #[test]
    fn a_small_text_event_is_light_and_inline_bytes_never_are() {
        assert!(light(&[text("Line 1 of the report.")]));
        // Archived bytes mean a file write, whatever their size: 1.0 `raw`, 0.3 `file.bytes`.
        let raw = observation(
            json!({"artifactUpdate": {"taskId": "t", "artifact": {"artifactId": "a",
            "parts": [{"raw": "aGk=", "mediaType": "text/plain"}]}}}),
        );
        assert!(!light(&[raw]));
        let bytes = observation(
            json!({"artifactUpdate": {"taskId": "t", "artifact": {"artifactId": "a",
            "parts": [{"kind": "file", "file": {"bytes": "aGk=", "name": "hi.txt"}}]}}}),
        );
        assert!(!light(&[bytes]));
    }

    #[test]
    fn the_text_budget_counts_the_whole_group() {
        let half = "x".repeat(LIGHT_BYTES / 2);
        assert!(light(&[text(&half)]));
        assert!(!light(&[text(&half), text(&half)]));
        assert!(!light(&[text(&"x".repeat(LIGHT_BYTES))]));
    }
}
