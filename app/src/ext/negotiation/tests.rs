//! Tests for `negotiation.rs` and `negotiation/active.rs` (`reference.md` §2, seed "Negotiation rules").

use proptest::prelude::*;
use serde_json::{Value, json};

use super::*;
use crate::ext::canonical::js_trim;
use crate::ext::uri::{A2UI_V08_URI, APPROVAL_URI, FORM_URI};

const DEPLOY: &str = "https://example.com/sideband/v1";
const UNKNOWN: &str = "https://example.com/extensions/unknown/v9";

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

fn card(uris: &[&str]) -> Value {
    let entries: Vec<Value> = uris
        .iter()
        .map(|uri| json!({"uri": uri, "required": false}))
        .collect();
    json!({"name": "A", "capabilities": {"streaming": true, "extensions": entries},
           "skills": [{"id": "research", "name": "Research"}, {"id": "plain"}]})
}

fn understood() -> Vec<String> {
    understood_sideband_uris(Some(DEPLOY), None)
}

// §2.1 understood set

#[test]
fn understood_set_is_built_ins_then_deployment_uris() {
    assert_eq!(understood(), strings(&[SIDEBAND_URI, TRACE_URI, DEPLOY]));
    assert_eq!(
        understood_sideband_uris(None, None),
        strings(&BUILT_IN_SIDEBAND_URIS)
    );
}

#[test]
fn deployment_value_split_on_comma_trimmed_empties_dropped() {
    let got = understood_sideband_uris(Some(" urn:a , ,urn:b,, "), None);
    assert_eq!(got, strings(&[SIDEBAND_URI, TRACE_URI, "urn:a", "urn:b"]));
}

#[test]
fn singular_alias_used_only_when_plural_undefined() {
    assert_eq!(
        understood_sideband_uris(None, Some("urn:a")),
        strings(&[SIDEBAND_URI, TRACE_URI, "urn:a"])
    );
    assert_eq!(
        understood_sideband_uris(Some("urn:b"), Some("urn:a")),
        strings(&[SIDEBAND_URI, TRACE_URI, "urn:b"])
    );
}

#[test]
fn empty_plural_suppresses_the_alias() {
    assert_eq!(
        understood_sideband_uris(Some(""), Some("urn:a")),
        strings(&BUILT_IN_SIDEBAND_URIS)
    );
    assert_eq!(
        understood_sideband_uris(Some(" , "), Some("urn:a")),
        strings(&BUILT_IN_SIDEBAND_URIS)
    );
}

#[test]
fn understood_set_dedupes_keeping_first_occurrence() {
    let got = understood_sideband_uris(Some(&format!("urn:a,{TRACE_URI},urn:a")), None);
    assert_eq!(got, strings(&[SIDEBAND_URI, TRACE_URI, "urn:a"]));
}

#[test]
fn trimming_follows_js_white_space() {
    assert_eq!(js_trim("\u{feff} urn:a\u{a0}\n"), "urn:a");
    assert_eq!(js_trim("\u{85}urn:a"), "\u{85}urn:a");
    assert_eq!(
        understood_sideband_uris(Some("\u{feff}"), None),
        strings(&BUILT_IN_SIDEBAND_URIS)
    );
}

#[test]
fn env_variable_names() {
    assert_eq!(SIDEBAND_URIS_ENV, "A2A_SIDEBAND_EXTENSION_URIS");
    assert_eq!(SIDEBAND_URI_ENV_ALIAS, "A2A_SIDEBAND_EXTENSION_URI");
}

// §2.1 advertised and negotiated sets

#[test]
fn advertised_set_is_card_order_without_non_strings_or_empties() {
    let card = json!({"capabilities": {"extensions": [
        {"uri": TRACE_URI}, {"uri": 5}, {"uri": ""}, {"no": "uri"}, "bare", {"uri": FORM_URI}, {"uri": TRACE_URI}
    ]}});
    assert_eq!(advertised_uris(&card), strings(&[TRACE_URI, FORM_URI]));
}

#[test]
fn advertised_set_reads_0_3_cards_too() {
    let card = json!({"protocolVersion": "0.3.0", "url": "https://a.example/rpc",
                      "capabilities": {"extensions": [{"uri": SIDEBAND_URI, "required": true}]}});
    assert_eq!(advertised_uris(&card), strings(&[SIDEBAND_URI]));
}

#[test]
fn advertised_set_empty_without_capabilities_or_for_non_objects() {
    for card in [
        json!({}),
        json!({"capabilities": {}}),
        json!({"capabilities": {"extensions": {}}}),
        json!(3),
    ] {
        assert!(advertised_uris(&card).is_empty());
    }
}

#[test]
fn required_flag_is_never_read() {
    let required = json!({"capabilities": {"extensions": [{"uri": FORM_URI, "required": true}]}});
    let optional = json!({"capabilities": {"extensions": [{"uri": FORM_URI, "required": false}]}});
    assert_eq!(advertises(&required, FORM_URI), advertises(&optional, FORM_URI));
}

#[test]
fn opt_in_is_by_the_card_only() {
    assert!(advertises(&card(&[FORM_URI]), FORM_URI));
    assert!(!advertises(&card(&[FORM_URI]), APPROVAL_URI));
}

#[test]
fn negotiated_set_is_advertised_filtered_to_understood_in_card_order() {
    let card = card(&[FORM_URI, DEPLOY, TRACE_URI, UNKNOWN, SIDEBAND_URI]);
    assert_eq!(
        negotiated_sideband(&card, &understood()),
        strings(&[DEPLOY, TRACE_URI, SIDEBAND_URI])
    );
}

#[test]
fn nothing_negotiated_when_nothing_advertised() {
    assert!(negotiated_sideband(&card(&[]), &understood()).is_empty());
}

// §2.2 message extensions

#[test]
fn message_extensions_order_caller_skill_routing_a2ui_sideband() {
    let caller = strings(&[UNKNOWN]);
    let got = message_extensions(&caller, true, Some(A2UI_URI), &strings(&[TRACE_URI]));
    assert_eq!(got, strings(&[UNKNOWN, SKILL_ROUTING_URI, A2UI_URI, TRACE_URI]));
}

#[test]
fn message_extensions_dedupe_keeps_first_occurrence() {
    let caller = strings(&[TRACE_URI, UNKNOWN, TRACE_URI, A2UI_URI]);
    let got = message_extensions(
        &caller,
        true,
        Some(A2UI_URI),
        &strings(&[SIDEBAND_URI, TRACE_URI]),
    );
    assert_eq!(
        got,
        strings(&[TRACE_URI, UNKNOWN, A2UI_URI, SKILL_ROUTING_URI, SIDEBAND_URI])
    );
}

#[test]
fn skill_routing_and_a2ui_only_when_they_apply() {
    let got = message_extensions(&[], false, None, &strings(&[SIDEBAND_URI]));
    assert_eq!(got, strings(&[SIDEBAND_URI]));
    assert!(message_extensions(&[], false, None, &[]).is_empty());
}

#[test]
fn form_and_approval_uris_are_never_added_to_requests() {
    let got = message_extensions(&[], true, Some(A2UI_URI), &strings(&[SIDEBAND_URI]));
    assert!(!got.iter().any(|uri| is_content_convention(uri)));
    assert!(is_content_convention(FORM_URI) && is_content_convention(APPROVAL_URI));
    assert!(is_built_in_sideband(TRACE_URI) && !is_built_in_sideband(DEPLOY));
}

#[test]
fn a2ui_uri_only_for_advertising_agents() {
    assert_eq!(a2ui_uri(&card(&[A2UI_URI])), Some(A2UI_URI));
    assert_eq!(a2ui_uri(&card(&[A2UI_V08_URI])), Some(A2UI_V08_URI));
    assert_eq!(
        a2ui_uri(&card(&[A2UI_V08_URI, A2UI_URI])),
        Some(A2UI_URI),
        "v0.9 preferred"
    );
    assert_eq!(a2ui_uri(&card(&[])), None);
}

// §2.2 header

#[test]
fn header_names() {
    assert_eq!(EXTENSIONS_HEADER, "A2A-Extensions");
    assert_eq!(LEGACY_EXTENSIONS_HEADER, "X-A2A-Extensions");
}

#[test]
fn header_value_is_negotiated_uris_comma_joined_without_spaces() {
    let got = extension_header_value(&strings(&[SIDEBAND_URI, TRACE_URI]));
    assert_eq!(
        got.as_deref(),
        Some("urn:agent-observability:sideband-events:v1,urn:x-a2a:trace:v1")
    );
}

#[test]
fn header_not_sent_when_nothing_negotiated() {
    assert_eq!(extension_header_value(&[]), None);
    assert!(extension_headers(&[], true).is_empty());
}

#[test]
fn legacy_interfaces_get_both_headers() {
    let negotiated = strings(&[TRACE_URI]);
    assert_eq!(
        extension_headers(&negotiated, false),
        vec![(EXTENSIONS_HEADER, TRACE_URI.to_owned())]
    );
    assert_eq!(
        extension_headers(&negotiated, true),
        vec![
            (EXTENSIONS_HEADER, TRACE_URI.to_owned()),
            (LEGACY_EXTENSIONS_HEADER, TRACE_URI.to_owned())
        ]
    );
}

#[test]
fn header_excludes_skill_routing_and_a2ui() {
    let card = card(&[SKILL_ROUTING_URI, A2UI_URI, TRACE_URI]);
    let value = extension_header_value(&negotiated_sideband(&card, &understood()));
    assert_eq!(value.as_deref(), Some(TRACE_URI));
}

proptest! {
    #[test]
    fn message_extensions_never_repeat_and_keep_every_input(
        caller in proptest::collection::vec("[a-c]{1,2}", 0..6),
        sideband in proptest::collection::vec("[a-c]{1,2}", 0..4),
        skill in any::<bool>(),
    ) {
        let got = message_extensions(&caller, skill, Some(A2UI_URI), &sideband);
        let mut unique = got.clone();
        unique.sort();
        unique.dedup();
        prop_assert_eq!(unique.len(), got.len());
        for uri in caller.iter().chain(&sideband) {
            prop_assert!(got.contains(uri));
        }
        prop_assert_eq!(got.first().map(String::as_str), caller.first().map(String::as_str).or(Some(
            if skill { SKILL_ROUTING_URI } else { A2UI_URI })));
    }

    #[test]
    fn understood_parsing_never_yields_blank_or_untrimmed(plural in ".{0,40}") {
        for uri in understood_sideband_uris(Some(&plural), None) {
            prop_assert!(!uri.is_empty());
            prop_assert_eq!(js_trim(&uri), uri.as_str());
        }
    }
}
