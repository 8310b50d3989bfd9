//! Extension URIs and media types the demo agent advertises or emits
//! (`shared/spec/reference.md` §1.0).

/// Structured form extension (§1.1).
pub(crate) const FORM_URI: &str = "https://extensions.allsrc.dev/agent-taskbay/structured-form/v1";
/// Media type of a structured form data part.
pub(crate) const FORM_MEDIA_TYPE: &str = "application/vnd.agent-taskbay.form+json";
/// Approval request extension (§1.2).
pub(crate) const APPROVAL_URI: &str = "https://extensions.allsrc.dev/agent-taskbay/approval-request/v1";
/// Media type of an approval request data part.
pub(crate) const APPROVAL_MEDIA_TYPE: &str = "application/vnd.agent-taskbay.approval-request+json";
/// Skill routing extension (§1.3).
pub(crate) const SKILL_ROUTING_URI: &str = "https://extensions.allsrc.dev/agent-taskbay/skill-routing/v1";
/// A2UI v0.9 extension (§1.4).
pub(crate) const A2UI_URI: &str = "https://a2ui.org/a2a-extension/a2ui/v0.9";
/// A2UI v0.8 extension.
pub(crate) const A2UI_V08_URI: &str = "https://a2ui.org/a2a-extension/a2ui/v0.8";
/// The A2UI v0.8 standard catalog.
pub(crate) const A2UI_V08_CATALOG: &str =
    "https://a2ui.org/specification/v0_8/standard_catalog_definition.json";
/// Media type of an A2UI data part (the current spelling).
pub(crate) const A2UI_MEDIA_TYPE: &str = "application/a2ui+json";
/// The deprecated A2UI media type, still accepted on replies.
pub(crate) const A2UI_LEGACY_MEDIA_TYPE: &str = "application/json+a2ui";
/// The A2UI v0.9 basic catalog.
pub(crate) const A2UI_BASIC_CATALOG: &str = "https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json";
/// Generic sideband events (§1.5).
pub(crate) const SIDEBAND_URI: &str = "urn:agent-observability:sideband-events:v1";
/// a2a-wrapper trace artifacts (§1.6).
pub(crate) const TRACE_URI: &str = "urn:x-a2a:trace:v1";
/// An extension nobody understands (the `unknown` variant).
pub(crate) const UNKNOWN_URI: &str = "https://example.com/extensions/unknown/v9";
