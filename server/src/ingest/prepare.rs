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
    /// the archive's file writes stay off the async executor.
    pub async fn prepare_all(&self, observations: &[Observation]) -> Result<Vec<Prepared>, IngestError> {
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
