//! Proposed-action validation (`validateAction`, reference.md §1.2), the action digest (§1.2.1) and
//! agent request keys (§1.2 "Detection"). Pure: the digest is SHA-256 over canonical JSON.

use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use super::{ApprovalAction, KIND_SEND_DATA, KIND_SEND_MESSAGE};
use crate::ext::canonical::{canonical_json, js_trim, json_utf16_len, utf16_len};
use crate::ext::form::{FormRejection, parse_form, validate_form};

/// Longest `send_message` text (§1.2: 1..20,000 characters).
pub const MAX_TEXT_CHARS: usize = 20_000;
/// Largest `send_message.data` JSON, in UTF-16 units (§1.2, 64 KiB).
pub const MAX_DATA_CHARS: usize = 65_536;
/// Largest `send_data.form` JSON, in UTF-16 units (§1.2, 64 KiB).
pub const MAX_FORM_CHARS: usize = 65_536;
/// Hex digits of the action digest used in a request key (§1.2 "Detection" step 5).
pub const REQUEST_KEY_DIGEST_CHARS: usize = 16;

/// Why a proposed action is not acceptable. `Display` gives the message shown to people.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ActionError {
    /// `send_message` text blank or over [`MAX_TEXT_CHARS`].
    #[error("A proposed action needs a send_message kind and 1–20000 characters of text.")]
    InvalidText,
    /// `send_message` data JSON over [`MAX_DATA_CHARS`].
    #[error("Proposed action data is invalid or too large.")]
    DataTooLarge,
    /// `send_data` form JSON over [`MAX_FORM_CHARS`].
    #[error("The form is larger than 64 KiB.")]
    FormTooLarge,
    /// `send_data` form is not a valid structured form.
    #[error("The form is not a valid structured form: {0}")]
    InvalidForm(FormRejection),
    /// A value names no field of the form.
    #[error("The value \"{0}\" is not a field of the form.")]
    UnknownValue(String),
    /// A value fails the form's validation.
    #[error("Invalid value for \"{key}\": {message}.")]
    InvalidValue {
        /// The field key.
        key: String,
        /// The validation message (e.g. `At least 2`).
        message: String,
    },
}

/// Validates a proposed action (§1.2). `send_message` is returned unchanged; for `send_data` the
/// returned `values` are the coerced submission (booleans filled as `false`), which is what is
/// stored, digested and sent.
pub fn validate_action(action: &ApprovalAction) -> Result<ApprovalAction, ActionError> {
    match action {
        ApprovalAction::SendMessage { text, data } => {
            if js_trim(text).is_empty() || utf16_len(text) > MAX_TEXT_CHARS {
                return Err(ActionError::InvalidText);
            }
            if let Some(data) = data
                && json_utf16_len(&Value::Object(data.clone())) > MAX_DATA_CHARS
            {
                return Err(ActionError::DataTooLarge);
            }
            Ok(action.clone())
        }
        ApprovalAction::SendData { form, values } => {
            let values = validate_values(form, values)?;
            Ok(ApprovalAction::SendData {
                form: form.clone(),
                values,
            })
        }
    }
}

fn validate_values(
    form: &Map<String, Value>,
    values: &Map<String, Value>,
) -> Result<Map<String, Value>, ActionError> {
    let form = Value::Object(form.clone());
    if json_utf16_len(&form) > MAX_FORM_CHARS {
        return Err(ActionError::FormTooLarge);
    }
    let definition = parse_form(&form).map_err(ActionError::InvalidForm)?;
    if let Some(unknown) = values
        .keys()
        .find(|key| !definition.fields.iter().any(|f| &f.key == *key))
    {
        return Err(ActionError::UnknownValue(unknown.clone()));
    }
    validate_form(&definition, values).map_err(|errors| match errors.into_iter().next() {
        Some(error) => ActionError::InvalidValue {
            key: error.key,
            message: error.message,
        },
        None => ActionError::InvalidValue {
            key: String::new(),
            message: String::new(),
        },
    })
}

/// The object an action digest is computed over (§1.2.1): `{kind, text, data}` with `data: null`
/// when absent, or `{kind, form, values}`.
pub fn digest_input(action: &ApprovalAction) -> Value {
    match action {
        ApprovalAction::SendMessage { text, data } => {
            json!({ "kind": KIND_SEND_MESSAGE, "text": text, "data": data })
        }
        ApprovalAction::SendData { form, values } => {
            json!({ "kind": KIND_SEND_DATA, "form": form, "values": values })
        }
    }
}

/// Lower-case hex SHA-256 of the canonical JSON of [`digest_input`] (§1.2.1).
pub fn action_digest(action: &ApprovalAction) -> String {
    sha256_hex(canonical_json(&digest_input(action)).as_bytes())
}

/// Lower-case hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// The request key of an agent-opened request: `agent:<local task id>:<message id>:<first 16 hex
/// chars of the action digest>` (§1.2 "Detection" step 5).
pub fn request_key(local_task_id: &str, message_id: &str, digest: &str) -> String {
    let short: String = digest.chars().take(REQUEST_KEY_DIGEST_CHARS).collect();
    format!("agent:{local_task_id}:{message_id}:{short}")
}

#[cfg(test)]
mod tests;
