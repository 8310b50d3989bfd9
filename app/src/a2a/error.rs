//! The decoding error shared by every A2A decoder in this module.
//!
//! Decoders are lenient: a missing or mistyped *optional* field is dropped silently. Only a
//! missing or mistyped *required* field, or input that is not JSON at all, becomes a
//! [`DecodeError`]. Nothing here panics on any input.

use serde::{Deserialize, Serialize};

/// Why a piece of A2A JSON could not be turned into the internal model.
///
/// `path` is a dotted path from the decoded value's root, e.g. `status.state` or
/// `parts[2].file`; the empty path means the root itself.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
pub enum DecodeError {
    /// The bytes were not valid JSON.
    #[error("not valid JSON: {0}")]
    NotJson(String),
    /// A required field is absent or null.
    #[error("missing required field `{path}`")]
    MissingField {
        /// Where the field was expected.
        path: String,
    },
    /// A field has the wrong JSON type.
    #[error("field `{path}` must be {expected}")]
    WrongType {
        /// The offending field.
        path: String,
        /// What was expected, e.g. "an object" or "a string".
        expected: String,
    },
    /// The value has none of the shapes this decoder knows (e.g. a part that is neither text,
    /// file nor data, or a stream response with no known member).
    #[error("unrecognised shape at `{path}`: {detail}")]
    UnknownShape {
        /// Where the value was found.
        path: String,
        /// What was looked for.
        detail: String,
    },
}

impl DecodeError {
    /// A missing required field at `path`.
    pub(crate) fn missing(path: impl Into<String>) -> Self {
        DecodeError::MissingField { path: path.into() }
    }

    /// A wrong type at `path`.
    pub(crate) fn wrong_type(path: impl Into<String>, expected: &str) -> Self {
        DecodeError::WrongType {
            path: path.into(),
            expected: expected.to_owned(),
        }
    }

    /// An unknown shape at `path`.
    pub(crate) fn unknown_shape(path: impl Into<String>, detail: &str) -> Self {
        DecodeError::UnknownShape {
            path: path.into(),
            detail: detail.to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_path() {
        assert_eq!(
            DecodeError::missing("status.state").to_string(),
            "missing required field `status.state`"
        );
        assert_eq!(
            DecodeError::wrong_type("parts[1]", "an object").to_string(),
            "field `parts[1]` must be an object"
        );
    }
}
