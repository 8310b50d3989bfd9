//! Tests for A2UI part detection, the counter text and the §1.4 limits table.

use serde_json::json;

use super::test_support::create;
use super::*;

const CURRENT: &str = "application/a2ui+json";
const LEGACY: &str = "application/json+a2ui";

#[test]
fn v09_array_with_current_media_type_is_a2ui() {
    assert_eq!(
        is_a2ui_part(Some(CURRENT), None, &json!([create("s")])),
        Some(A2uiVersion::V09)
    );
}

#[test]
fn v09_array_with_legacy_media_type_is_a2ui() {
    assert_eq!(
        is_a2ui_part(Some(LEGACY), None, &json!([])),
        Some(A2uiVersion::V09)
    );
}

#[test]
fn media_type_is_lower_cased() {
    assert_eq!(
        is_a2ui_part(Some("Application/A2UI+JSON"), None, &json!([])),
        Some(A2uiVersion::V09)
    );
}

#[test]
fn metadata_mime_type_alone_is_enough() {
    assert_eq!(
        is_a2ui_part(Some("application/json"), Some(LEGACY), &json!([])),
        Some(A2uiVersion::V09)
    );
    assert_eq!(
        is_a2ui_part(None, Some(CURRENT), &json!([])),
        Some(A2uiVersion::V09)
    );
}

#[test]
fn metadata_mime_type_must_match_exactly() {
    assert_eq!(
        is_a2ui_part(None, Some("Application/A2UI+JSON"), &json!([])),
        None
    );
    assert_eq!(
        is_a2ui_part(None, Some(" application/a2ui+json"), &json!([])),
        None
    );
}

#[test]
fn other_media_types_are_not_a2ui() {
    assert_eq!(is_a2ui_part(Some("application/json"), None, &json!([])), None);
    assert_eq!(is_a2ui_part(None, None, &json!([create("s")])), None);
}

#[test]
fn non_array_v09_data_is_not_a2ui() {
    assert_eq!(is_a2ui_part(Some(CURRENT), None, &create("s")), None);
    assert_eq!(is_a2ui_part(Some(CURRENT), None, &json!("text")), None);
    assert_eq!(is_a2ui_part(Some(CURRENT), None, &json!({})), None);
    assert_eq!(is_a2ui_part(Some(CURRENT), None, &json!(null)), None);
}

#[test]
fn v08_single_message_object_is_v08() {
    for key in V08_MESSAGE_KEYS {
        let data = json!({ key: {"surfaceId": "s"} });
        assert_eq!(
            is_a2ui_part(Some(LEGACY), None, &data),
            Some(A2uiVersion::V08),
            "{key}"
        );
        assert_eq!(
            is_a2ui_part(Some(CURRENT), None, &data),
            Some(A2uiVersion::V08),
            "{key}"
        );
    }
}

#[test]
fn v08_object_with_two_message_keys_is_not_a2ui() {
    let data = json!({"surfaceUpdate": {}, "deleteSurface": {}});
    assert_eq!(is_a2ui_part(Some(LEGACY), None, &data), None);
}

#[test]
fn v08_object_with_version_key_is_not_v08() {
    let data = json!({"version": "v0.9", "deleteSurface": {"surfaceId": "s"}});
    assert_eq!(is_a2ui_part(Some(LEGACY), None, &data), None);
}

#[test]
fn v08_object_with_extra_key_is_detected_and_later_rejected() {
    let data = json!({"deleteSurface": {"surfaceId": "s"}, "extra": 1});
    assert_eq!(is_a2ui_part(Some(LEGACY), None, &data), Some(A2uiVersion::V08));
    let mut state = A2uiState::default();
    state.apply_part(A2uiVersion::V08, &data);
    assert_eq!(state.rejected, 1);
}

#[test]
fn array_of_v08_messages_is_v08() {
    let data =
        json!([{"beginRendering": {"surfaceId": "s", "root": "r"}}, {"deleteSurface": {"surfaceId": "s"}}]);
    assert_eq!(is_a2ui_part(Some(LEGACY), None, &data), Some(A2uiVersion::V08));
}

#[test]
fn mixed_or_empty_arrays_are_v09() {
    let mixed = json!([{"deleteSurface": {"surfaceId": "s"}}, create("s")]);
    assert_eq!(is_a2ui_part(Some(LEGACY), None, &mixed), Some(A2uiVersion::V09));
    assert_eq!(
        is_a2ui_part(Some(LEGACY), None, &json!([])),
        Some(A2uiVersion::V09)
    );
    assert_eq!(
        is_a2ui_part(Some(LEGACY), None, &json!([1, "x"])),
        Some(A2uiVersion::V09)
    );
}

#[test]
fn rejected_notice_exact_text() {
    assert_eq!(
        rejected_notice(1).as_deref(),
        Some("1 invalid interface update(s) ignored.")
    );
    assert_eq!(
        rejected_notice(12).as_deref(),
        Some("12 invalid interface update(s) ignored.")
    );
}

#[test]
fn rejected_notice_absent_when_nothing_rejected() {
    assert_eq!(rejected_notice(0), None);
}

#[test]
fn limits_table_values() {
    assert_eq!(MAX_COMPONENTS, 200);
    assert_eq!(MAX_DEPTH, 20);
    assert_eq!(MAX_SURFACES, 8);
    assert_eq!(MAX_MODEL_JSON_CHARS, 65_536);
    assert_eq!(MAX_TEXT_CHARS, 5_000);
    assert_eq!(MAX_CHOICE_OPTIONS, 50);
    assert_eq!(MAX_ID_CHARS, 128);
    assert_eq!(MAX_ACTION_CONTEXT_CHARS, 16_384);
    assert_eq!(MAX_ENVELOPES, 2_000);
    assert_eq!(MAX_POINTER_CHARS, 512);
    assert_eq!(MAX_CATALOG_ID_CHARS, 512);
    assert_eq!(MAX_COMPONENT_NAME_CHARS, 64);
}

#[test]
fn exact_notice_and_catalog_strings() {
    assert_eq!(
        UNSUPPORTED_CATALOG_NOTICE,
        "This agent chose a catalog this console does not render."
    );
    assert_eq!(WAITING_TEXT, "Waiting for the agent…");
    assert_eq!(
        A2UI_BASIC_CATALOG,
        "https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json"
    );
    assert_eq!(
        V08_STANDARD_CATALOG,
        "https://a2ui.org/specification/v0_8/standard_catalog_definition.json"
    );
}

#[test]
fn version_serialises_as_wire_string() {
    assert_eq!(serde_json::to_value(A2uiVersion::V09).unwrap(), json!("v0.9"));
    assert_eq!(serde_json::to_value(A2uiVersion::V08).unwrap(), json!("v0.8"));
}
