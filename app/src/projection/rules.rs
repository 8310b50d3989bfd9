//! The fold's rules that both folds apply one observation at a time: a status against the current
//! state ([`status_verdict`]), a chunk onto an artifact's parts ([`append_parts`]), and a task's
//! title ([`title_of`]).

use super::{MAX_TITLE_CHARS, time};
use crate::a2a::{Message, Part, PartContent, TaskState};

/// What a status observation may do to the projection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StatusVerdict {
    /// A new state: record it and its content.
    Apply,
    /// The same state again: its content still counts.
    Same,
    /// Older than what is shown (by remote timestamp): ignored with its content.
    Stale,
    /// The task is finished and this would reopen it: ignored with its content.
    Final,
}

impl StatusVerdict {
    /// Whether the observation's content (messages, artifacts) is folded in.
    pub fn takes_content(self) -> bool {
        matches!(self, StatusVerdict::Apply | StatusVerdict::Same)
    }
}

/// The rule for a status observation against the current state.
pub fn status_verdict(
    current: &TaskState,
    current_timestamp: Option<&str>,
    incoming: &TaskState,
    incoming_timestamp: Option<&str>,
) -> StatusVerdict {
    if time::is_older(incoming_timestamp, current_timestamp) {
        return StatusVerdict::Stale;
    }
    if current == incoming {
        return StatusVerdict::Same;
    }
    if current.is_terminal() {
        return StatusVerdict::Final;
    }
    StatusVerdict::Apply
}

/// Appends `chunk` to `parts`: text joining text of the same media type (and no metadata)
/// into one part, everything else added after.
pub fn append_parts(parts: &mut Vec<Part>, chunk: &[Part]) {
    for part in chunk {
        if let (Some(last), PartContent::Text(more)) = (parts.last_mut(), &part.content)
            && let PartContent::Text(text) = &mut last.content
            && last.media_type == part.media_type
            && last.metadata.is_none()
            && part.metadata.is_none()
            && last.filename.is_none()
        {
            text.push_str(more);
            continue;
        }
        parts.push(part.clone());
    }
}

/// The title of a task: its first user text, trimmed, at most [`MAX_TITLE_CHARS`].
pub fn title_of(message: &Message) -> Option<String> {
    let text = message.text();
    let text = text.trim();
    (!text.is_empty()).then(|| text.chars().take(MAX_TITLE_CHARS).collect())
}
