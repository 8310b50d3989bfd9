//! Extension URIs and media types (`shared/spec/reference.md` §1.0). Identifiers only: nothing is
//! ever fetched from them.

/// Structured form extension (§1.1).
pub const FORM_URI: &str = "https://extensions.allsrc.dev/agent-taskbay/structured-form/v1";
/// Media type of a structured form data part (§1.1).
pub const FORM_MEDIA_TYPE: &str = "application/vnd.agent-taskbay.form+json";
/// Approval request extension (§1.2).
pub const APPROVAL_URI: &str = "https://extensions.allsrc.dev/agent-taskbay/approval-request/v1";
/// Media type of an approval request data part (§1.2).
pub const APPROVAL_MEDIA_TYPE: &str = "application/vnd.agent-taskbay.approval-request+json";
/// Skill routing extension (§1.3).
pub const SKILL_ROUTING_URI: &str = "https://extensions.allsrc.dev/agent-taskbay/skill-routing/v1";
/// A2UI v0.9 extension (§1.4).
pub const A2UI_URI: &str = "https://a2ui.org/a2a-extension/a2ui/v0.9";
/// A2UI v0.8 extension (beyond the original, `spec/a2a-and-a2ui.md`).
pub const A2UI_V08_URI: &str = "https://a2ui.org/a2a-extension/a2ui/v0.8";
/// A2UI media type (current spelling).
pub const A2UI_MEDIA_TYPE: &str = "application/a2ui+json";
/// A2UI media type (older spelling, still accepted on replies).
pub const A2UI_LEGACY_MEDIA_TYPE: &str = "application/json+a2ui";
/// The A2UI v0.9 basic catalog, the only one this console renders.
pub const A2UI_BASIC_CATALOG: &str = "https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json";
/// Generic sideband events, built in (§1.5).
pub const SIDEBAND_URI: &str = "urn:agent-observability:sideband-events:v1";
/// a2a-wrapper trace artifacts, built in (§1.6).
pub const TRACE_URI: &str = "urn:x-a2a:trace:v1";
/// The built-in understood sideband URIs, in order (§2.1).
pub const BUILT_IN_SIDEBAND_URIS: [&str; 2] = [SIDEBAND_URI, TRACE_URI];
