//! A2UI (`shared/spec/reference.md` §1.4, `shared/spec/a2a-and-a2ui.md` §B): part detection, the
//! fold of v0.9 envelopes and v0.8 messages into surfaces, a render-ready model, value resolution
//! and outgoing actions. Pure data: it never renders HTML, loads a URL or runs an A2UI function.
//! The Leptos view walks [`RenderNode`]; this module is the index and declares the parts.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::uri::{A2UI_LEGACY_MEDIA_TYPE, A2UI_MEDIA_TYPE};

mod action;
mod model;
mod pointer;
mod render;
mod render_inputs;
mod render_types;
mod secrets;
mod text;
mod v08;
mod v08_components;
mod v09;

pub use action::{
    A2UI_CLIENT_CAPABILITIES_KEY, ACTION_CONTEXT_TOO_LARGE_REASON, ACTION_INVALID_REASON,
    ACTION_NOT_SUPPORTED_REASON, ActionState, TASK_FINISHED_REASON, action_message_parts, action_state,
    client_capabilities_metadata, resolve, set_edit,
};
pub use model::{A2uiState, Component, Surface};
pub use pointer::{FORBIDDEN_SEGMENTS, parse_pointer};
pub use render_inputs::{SLIDER_DEFAULT_MAX, SLIDER_DEFAULT_MIN, is_inline_media};
pub use render_types::{
    Align, Axis, ButtonVariant, CYCLE_TEXT, ChoiceOption, Direction, Justify, MEDIA_NOT_INLINE_TEXT,
    PlaceholderReason, RenderNode, RenderTab, TOO_DEEP_TEXT, TOO_MANY_NODES_TEXT, TextFieldVariant,
    TextVariant, UNSUPPORTED_CHILDREN_TEXT,
};
#[cfg(test)]
pub use secrets::sign_in_messages;
pub use secrets::{MASK, mask_secret_action_values, secret_context_keys};
pub use v08::SELF_KEY;
pub use v09::V09_VERSION;

/// Components per surface (§1.4 limits table).
pub const MAX_COMPONENTS: usize = 200;
/// Nesting depth: the root is at depth 0, a node deeper than this is a placeholder (§1.4).
pub const MAX_DEPTH: usize = 20;
/// Surfaces per task (§1.4).
pub const MAX_SURFACES: usize = 8;
/// Data model size, in UTF-16 units of its compact JSON (§1.4, "64 KiB (JSON length)").
pub const MAX_MODEL_JSON_CHARS: usize = 65_536;
/// Text length of `Text.text` and `TextField.value` (and, here, labels) (§1.4).
pub const MAX_TEXT_CHARS: usize = 5_000;
/// Options of a `ChoicePicker` (§1.4).
pub const MAX_CHOICE_OPTIONS: usize = 50;
/// Identifier length: surface ids, component ids, action names and context keys (§1.4).
pub const MAX_ID_CHARS: usize = 128;
/// Resolved action context, in UTF-16 units of its compact JSON (§1.4, "16 KiB").
pub const MAX_ACTION_CONTEXT_CHARS: usize = 16_384;
/// Envelopes folded per task; later ones are neither applied nor counted (§1.4).
pub const MAX_ENVELOPES: usize = 2_000;
/// JSON Pointer length (§1.4).
pub const MAX_POINTER_CHARS: usize = 512;
/// `catalogId` length (§1.4).
pub const MAX_CATALOG_ID_CHARS: usize = 512;
/// Component type name length (§1.4).
pub const MAX_COMPONENT_NAME_CHARS: usize = 64;
/// Children of a `Row`/`Column` (and here `List` and `Tabs`) rendered (§1.4).
pub const MAX_CHILDREN: usize = 200;
/// An unsupported component's name is cut to this many chars in its placeholder (§1.4).
pub const UNSUPPORTED_NAME_CHARS: usize = 40;
/// Rendered nodes per surface. Beyond the spec: bounds a tree that shares children (a DAG) so
/// that 200 components cannot expand into an exponential render.
pub const MAX_RENDER_NODES: usize = 4_000;

/// The v0.9 basic catalog, the only v0.9 catalog rendered (§1.4).
pub use super::uri::A2UI_BASIC_CATALOG;
/// The v0.8 standard catalog: the default of `beginRendering.catalogId` and the only v0.8 catalog
/// rendered (`a2a-and-a2ui.md` §B.3).
pub const V08_STANDARD_CATALOG: &str = "https://a2ui.org/specification/v0_8/standard_catalog_definition.json";
/// The notice an unsupported-catalog surface shows instead of content (§1.4).
pub const UNSUPPORTED_CATALOG_NOTICE: &str = "This agent chose a catalog this console does not render.";
/// Shown while a surface has no `root` component (§1.4) or, in v0.8, before `beginRendering`.
pub const WAITING_TEXT: &str = "Waiting for the agent…";
/// The v0.8 message keys (`a2a-and-a2ui.md` §B.3).
pub const V08_MESSAGE_KEYS: [&str; 4] = [
    "beginRendering",
    "surfaceUpdate",
    "dataModelUpdate",
    "deleteSurface",
];

/// The A2UI protocol version of a part (and of the surfaces it creates).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum A2uiVersion {
    /// v0.8: single message objects without a `version` key (`a2a-and-a2ui.md` §B.3).
    #[serde(rename = "v0.8")]
    V08,
    /// v0.9: arrays of `{"version":"v0.9", …}` envelopes (§1.4).
    #[serde(rename = "v0.9")]
    V09,
}

/// Whether a data part is A2UI, and which version.
///
/// Media test (§1.4): the lower-cased `media_type` (the part's normalised media type) or the exact
/// `metadata.mimeType` is `application/a2ui+json` or `application/json+a2ui`; otherwise `None`.
///
/// Precedence, decided here:
/// 1. An array whose elements are all v0.8 messages (see below) and which is non-empty → v0.8.
/// 2. Any other array → v0.9 (§1.4: each element is then validated as a v0.9 envelope, so a stray
///    v0.8 message in a mixed array is counted invalid).
/// 3. An object → v0.8 when it has no `version` key and exactly one of the four v0.8 message keys
///    (extra keys make it an invalid message when folded, not ordinary data).
/// 4. Anything else (including a lone v0.9 envelope object, §1.4 "Non-array data") → `None`.
pub fn is_a2ui_part(
    media_type: Option<&str>,
    metadata_mime_type: Option<&str>,
    data: &Value,
) -> Option<A2uiVersion> {
    if !has_a2ui_media_type(media_type, metadata_mime_type) {
        return None;
    }
    match data {
        Value::Array(items) if !items.is_empty() && items.iter().all(looks_like_v08_message) => {
            Some(A2uiVersion::V08)
        }
        Value::Array(_) => Some(A2uiVersion::V09),
        object @ Value::Object(_) if looks_like_v08_message(object) => Some(A2uiVersion::V08),
        _ => None,
    }
}

/// The media part of [`is_a2ui_part`]: lower-cased media type or exact `metadata.mimeType`.
fn has_a2ui_media_type(media_type: Option<&str>, metadata_mime_type: Option<&str>) -> bool {
    let lowered =
        |m: &str| super::lowercases_to(m, A2UI_MEDIA_TYPE) || super::lowercases_to(m, A2UI_LEGACY_MEDIA_TYPE);
    let exact = |m: &str| m == A2UI_MEDIA_TYPE || m == A2UI_LEGACY_MEDIA_TYPE;
    media_type.is_some_and(lowered) || metadata_mime_type.is_some_and(exact)
}

/// An object without `version` holding exactly one of the v0.8 message keys.
fn looks_like_v08_message(value: &Value) -> bool {
    let Some(object) = value.as_object() else {
        return false;
    };
    !object.contains_key("version")
        && V08_MESSAGE_KEYS
            .iter()
            .filter(|k| object.contains_key(**k))
            .count()
            == 1
}

/// The rejected-envelope counter text (§1.4): `"<n> invalid interface update(s) ignored."`, or
/// `None` when nothing was rejected.
pub fn rejected_notice(n: usize) -> Option<String> {
    (n > 0).then(|| format!("{n} invalid interface update(s) ignored."))
}

#[cfg(test)]
mod test_support;

#[cfg(test)]
mod tests;

#[cfg(test)]
mod prop_tests;
