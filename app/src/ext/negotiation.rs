//! Extension negotiation (`reference.md` §2, seed "Negotiation rules" and "Limits"): which URIs the
//! console understands, which the card advertises, what goes into a message's `extensions` field and
//! the extension header, and a plain explanation of what is active for an agent. Pure: reads a card
//! JSON value and lists of URIs; never fetches, never reads the environment itself.

use serde_json::Value;

use super::canonical::js_trim;
use super::uri::{
    A2UI_URI, A2UI_V08_URI, APPROVAL_URI, BUILT_IN_SIDEBAND_URIS, FORM_URI, SIDEBAND_URI, SKILL_ROUTING_URI,
    TRACE_URI,
};

mod active;
pub use active::{
    ActiveExtension, REASON_LISTED, REASON_NOT_ADVERTISED, SUFFIX_ALSO_LISTED, explain, extension_name,
};

/// The 1.0 extension request header (§2.2, `a2a-and-a2ui.md` A.8).
pub const EXTENSIONS_HEADER: &str = "A2A-Extensions";
/// The 0.3 spelling of the extension header (§2.2, §8); 0.3 interfaces get both headers.
pub const LEGACY_EXTENSIONS_HEADER: &str = "X-A2A-Extensions";
/// The deployment variable listing extra understood sideband URIs (§2.1, §5).
pub const SIDEBAND_URIS_ENV: &str = "A2A_SIDEBAND_EXTENSION_URIS";
/// Its singular alias, read only when the plural is undefined (§2.1, §5).
pub const SIDEBAND_URI_ENV_ALIAS: &str = "A2A_SIDEBAND_EXTENSION_URI";

/// The understood sideband set (§2.1): the built-ins, then the deployment URIs. `plural` and
/// `singular` are the raw values of [`SIDEBAND_URIS_ENV`] and [`SIDEBAND_URI_ENV_ALIAS`]; the
/// alias counts only when the plural is `None` (an empty plural suppresses it). Values are split on
/// `,`, trimmed, empties dropped; duplicates removed, first occurrence kept.
pub fn understood_sideband_uris(plural: Option<&str>, singular: Option<&str>) -> Vec<String> {
    let configured = plural.or(singular).unwrap_or("");
    let deployment = configured.split(',').map(js_trim).filter(|uri| !uri.is_empty());
    dedupe(BUILT_IN_SIDEBAND_URIS.into_iter().chain(deployment))
}

/// The advertised set (§2.1): `capabilities.extensions[*].uri` strings, non-string and empty values
/// dropped, card order, duplicates removed. Works for 1.0 and 0.3 cards (both keep
/// `capabilities.extensions`). The `required` flag is never read (§1.0).
pub fn advertised_uris(card: &Value) -> Vec<String> {
    let entries = card
        .get("capabilities")
        .and_then(|caps| caps.get("extensions"))
        .and_then(Value::as_array);
    let uris = entries
        .into_iter()
        .flatten()
        .filter_map(|entry| entry.get("uri").and_then(Value::as_str))
        .filter(|uri| !uri.is_empty());
    dedupe(uris)
}

/// Whether the card advertises `uri` in `capabilities.extensions` (the opt-in rule of §1.0).
pub fn advertises(card: &Value, uri: &str) -> bool {
    advertised_uris(card).iter().any(|advertised| advertised == uri)
}

/// The negotiated sideband set (§2.1): advertised URIs that are also understood, card order kept.
pub fn negotiated_sideband(card: &Value, understood: &[String]) -> Vec<String> {
    advertised_uris(card)
        .into_iter()
        .filter(|uri| understood.contains(uri))
        .collect()
}

/// The message `extensions` field (§2.2, §1.3, §1.4, seed "What is sent to the agent"): the
/// caller's URIs (`config.extensions`, e.g. the Settings list), then the skill-routing URI when
/// `skill_routing` (the send is restricted to a skill the card supports), then `a2ui` (the A2UI URI,
/// when the agent advertises A2UI), then the negotiated sideband URIs; duplicates removed, first
/// occurrence kept.
///
/// Order: what the caller asked for comes first and is never reordered; then what the console adds
/// for this send, most send-specific first (the skill scope, then the A2UI client capability), and
/// last what the agent offered (sideband), which is §2.2's "caller-supplied first, then negotiated
/// sideband". Agents read the list as a set; the order is fixed only so the same send always
/// produces the same request body (idempotency digests, wire logs).
pub fn message_extensions(
    caller: &[String],
    skill_routing: bool,
    a2ui: Option<&str>,
    negotiated_sideband: &[String],
) -> Vec<String> {
    let added = skill_routing.then_some(SKILL_ROUTING_URI).into_iter().chain(a2ui);
    let all = caller.iter().map(String::as_str).chain(added);
    dedupe(all.chain(negotiated_sideband.iter().map(String::as_str)))
}

/// The extension header value (§2.2): the negotiated sideband URIs only, comma-joined with no
/// spaces; `None` when the list is empty (the header is then not sent).
pub fn extension_header_value(negotiated_sideband: &[String]) -> Option<String> {
    let uris = dedupe(negotiated_sideband.iter().map(String::as_str));
    (!uris.is_empty()).then(|| uris.join(","))
}

/// The extension headers for one client (§2.2, §8): [`EXTENSIONS_HEADER`], plus
/// [`LEGACY_EXTENSIONS_HEADER`] with the same value for a 0.3 interface; empty when nothing is
/// negotiated.
pub fn extension_headers(
    negotiated_sideband: &[String],
    legacy_interface: bool,
) -> Vec<(&'static str, String)> {
    let Some(value) = extension_header_value(negotiated_sideband) else {
        return Vec::new();
    };
    let mut headers = vec![(EXTENSIONS_HEADER, value.clone())];
    if legacy_interface {
        headers.push((LEGACY_EXTENSIONS_HEADER, value));
    }
    headers
}

/// The A2UI URI the chat adds to messages for this agent (§1.4): [`A2UI_URI`] when advertised,
/// else [`A2UI_V08_URI`] when that is (beyond the original).
pub fn a2ui_uri(card: &Value) -> Option<&'static str> {
    a2ui_advertised(card).map(|(uri, _)| uri)
}

/// The A2UI URI the agent advertises, with its version: v0.9 preferred, else v0.8.
pub fn a2ui_advertised(card: &Value) -> Option<(&'static str, super::a2ui::A2uiVersion)> {
    use super::a2ui::A2uiVersion;
    [(A2UI_URI, A2uiVersion::V09), (A2UI_V08_URI, A2uiVersion::V08)]
        .into_iter()
        .find(|(uri, _)| advertises(card, uri))
}

/// Whether `uri` is one of the reply-side content conventions (forms, approvals) that the server
/// never adds to requests (§2.2).
pub fn is_content_convention(uri: &str) -> bool {
    uri == FORM_URI || uri == APPROVAL_URI
}

/// Whether `uri` is one of the two built-in sideband formats (§1.5, §1.6).
pub fn is_built_in_sideband(uri: &str) -> bool {
    uri == SIDEBAND_URI || uri == TRACE_URI
}

/// Removes duplicates, keeping the first occurrence.
fn dedupe<'a>(uris: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for uri in uris {
        if !out.iter().any(|seen| seen == uri) {
            out.push(uri.to_owned());
        }
    }
    out
}

#[cfg(test)]
mod tests;
