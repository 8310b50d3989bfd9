//! Tests for `negotiation/active.rs`: the "active for this agent and why" lines.

use serde_json::{Value, json};

use super::*;
use crate::ext::negotiation::understood_sideband_uris;

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

fn reasons(list: &[ActiveExtension]) -> Vec<(&str, &str)> {
    list.iter().map(|a| (a.uri.as_str(), a.reason.as_str())).collect()
}

#[test]
fn explain_sideband_advertised_and_understood() {
    let got = explain(
        &card(&[SIDEBAND_URI, TRACE_URI, DEPLOY]),
        &[],
        &understood(),
        None,
    );
    assert_eq!(
        reasons(&got),
        vec![
            (
                SIDEBAND_URI,
                "advertised by the agent and understood: sideband events"
            ),
            (TRACE_URI, "advertised by the agent and understood: trace events"),
            (DEPLOY, "advertised by the agent and understood: sideband events"),
        ]
    );
    assert_eq!(got[2].name, "Sideband events (deployment)");
}

#[test]
fn explain_reply_conventions_and_a2ui() {
    let got = explain(
        &card(&[FORM_URI, APPROVAL_URI, A2UI_URI]),
        &[],
        &understood(),
        None,
    );
    assert_eq!(
        reasons(&got),
        vec![
            (A2UI_URI, "advertised: A2UI screens are shown"),
            (FORM_URI, "advertised: forms are shown"),
            (APPROVAL_URI, "advertised: approval requests open a review"),
        ]
    );
}

#[test]
fn explain_settings_uris_advertised_or_not() {
    let caller = strings(&[UNKNOWN, "urn:mine"]);
    let got = explain(&card(&[UNKNOWN]), &caller, &understood(), None);
    assert_eq!(
        reasons(&got),
        vec![(UNKNOWN, REASON_LISTED), ("urn:mine", REASON_NOT_ADVERTISED)]
    );
    assert_eq!(
        REASON_NOT_ADVERTISED,
        "listed in Settings but not advertised by the agent: sent, not honoured"
    );
    assert_eq!(got[1].name, "urn:mine");
}

#[test]
fn explain_understood_but_unadvertised_settings_uri_is_not_honoured() {
    let got = explain(&card(&[]), &strings(&[TRACE_URI]), &understood(), None);
    assert_eq!(reasons(&got), vec![(TRACE_URI, REASON_NOT_ADVERTISED)]);
}

#[test]
fn explain_feature_reason_notes_settings_listing() {
    let got = explain(&card(&[FORM_URI]), &strings(&[FORM_URI]), &understood(), None);
    assert_eq!(
        reasons(&got),
        vec![(FORM_URI, "advertised: forms are shown; also listed in Settings")]
    );
}

#[test]
fn explain_skill_routing_for_restricted_send() {
    let card = card(&[SKILL_ROUTING_URI]);
    let got = explain(&card, &[], &understood(), Some("research"));
    assert_eq!(
        reasons(&got),
        vec![(
            SKILL_ROUTING_URI,
            "sent because this send is restricted to skill Research"
        )]
    );
    assert!(explain(&card, &[], &understood(), None).is_empty());
}

#[test]
fn explain_skill_routing_refused_when_unsupported() {
    let got = explain(&card(&[]), &[], &understood(), Some("research"));
    assert_eq!(
        reasons(&got),
        vec![(
            SKILL_ROUTING_URI,
            "this send is restricted to skill Research, which the agent does not route: it is refused"
        )]
    );
    let unknown_skill = explain(&card(&[SKILL_ROUTING_URI]), &[], &understood(), Some("nope"));
    assert!(unknown_skill[0].reason.contains("skill nope"));
}

#[test]
fn explain_ignores_unknown_advertised_uris() {
    assert!(explain(&card(&[UNKNOWN]), &[], &understood(), None).is_empty());
    // A2UI v0.8 is understood (beyond the original) and sent from the chat.
    let v08 = explain(&card(&[UNKNOWN, A2UI_V08_URI]), &[], &understood(), None);
    assert_eq!(
        reasons(&v08),
        vec![(A2UI_V08_URI, "advertised: A2UI screens are shown")]
    );
}

#[test]
fn explain_order_follows_the_message_extensions_then_conventions() {
    let card = card(&[APPROVAL_URI, TRACE_URI, A2UI_URI, SKILL_ROUTING_URI]);
    let got = explain(&card, &strings(&["urn:mine"]), &understood(), Some("research"));
    let uris: Vec<&str> = got.iter().map(|a| a.uri.as_str()).collect();
    assert_eq!(
        uris,
        // The chat adds A2UI after the Settings URIs; the server appends skill routing, then sideband.
        vec!["urn:mine", A2UI_URI, SKILL_ROUTING_URI, TRACE_URI, APPROVAL_URI]
    );
}

#[test]
fn extension_names_are_plain_labels() {
    let u = understood();
    assert_eq!(extension_name(FORM_URI, &u), "Structured forms");
    assert_eq!(extension_name(APPROVAL_URI, &u), "Approval requests");
    assert_eq!(extension_name(SKILL_ROUTING_URI, &u), "Skill routing");
    assert_eq!(extension_name(A2UI_URI, &u), "A2UI");
    assert_eq!(extension_name(SIDEBAND_URI, &u), "Sideband events");
    assert_eq!(extension_name(TRACE_URI, &u), "Trace events");
    assert_eq!(extension_name(UNKNOWN, &u), UNKNOWN);
}

#[test]
fn active_extension_serialises_camel_case() {
    let value = serde_json::to_value(ActiveExtension {
        uri: "u".into(),
        name: "n".into(),
        reason: "r".into(),
    });
    assert_eq!(value.unwrap(), json!({"uri": "u", "name": "n", "reason": "r"}));
}
