//! Tests for `canonical.rs`: JavaScript number/string vectors and canonical key order, plus the
//! shared arbitrary-JSON strategy and hostile corpus the other extension tests reuse.

use super::*;
use proptest::prelude::*;
use serde_json::json;

/// Arbitrary JSON values (bounded depth and width) for "never panics" properties.
pub(crate) fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(|x| Number::from_f64(x).map_or(Value::Null, Value::Number)),
        ".{0,12}".prop_map(Value::String),
        prop_oneof![
            Just("string"),
            Just("number"),
            Just("integer"),
            Just("boolean"),
            Just("object"),
            Just("send_message"),
            Just("send_data"),
            Just("multiline"),
        ]
        .prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        let keys = prop_oneof![
            "[a-zA-Z_]{1,6}",
            Just("type".to_owned()),
            Just("schema".to_owned()),
            Just("properties".to_owned()),
            Just("enum".to_owned()),
            Just("kind".to_owned()),
            Just("__proto__".to_owned()),
        ];
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            proptest::collection::btree_map(keys, inner, 0..6)
                .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

/// Values an agent could send to attack a decoder: markup, script URLs, prototype keys, deep
/// nesting, huge strings and extreme numbers.
pub(crate) fn hostile_corpus() -> Vec<Value> {
    let mut deep_array = json!("bottom");
    let mut deep_object = json!({"type": "string"});
    for _ in 0..300 {
        deep_array = json!([deep_array]);
        deep_object = json!({"properties": deep_object, "type": "object"});
    }
    vec![
        json!("<script>alert(1)</script>"),
        json!({"title": "<img src=x onerror=alert(1)>", "href": "javascript:alert(1)"}),
        json!({"__proto__": {"polluted": true}, "constructor": {"prototype": {"x": 1}}}),
        json!({"toString": "x", "valueOf": 1, "hasOwnProperty": null}),
        deep_array,
        deep_object,
        json!("x".repeat(200_000)),
        json!({"text": "\u{0}\u{1f}\u{2028}\u{feff}😀".repeat(1000)}),
        json!([1e308, -1e308, 5e-324, u64::MAX, i64::MIN, -0.0]),
        Value::Array(vec![json!({"a": "javascript:void(0)"}); 5000]),
    ]
}

#[test]
fn numbers_print_in_ecmascript_shortest_form() {
    let cases: &[(f64, &str)] = &[
        (2.0, "2"),
        (0.1, "0.1"),
        (-1.5, "-1.5"),
        (100.0, "100"),
        (1e6, "1000000"),
        (0.1 + 0.2, "0.30000000000000004"),
        (1.0 / 3.0, "0.3333333333333333"),
        (1234.5678, "1234.5678"),
        (4.35, "4.35"),
    ];
    for (x, expected) in cases {
        assert_eq!(js_number_string(*x), *expected, "{x}");
    }
}

#[test]
fn numbers_switch_to_exponent_form_at_1e21_and_below_1e_6() {
    let cases: &[(f64, &str)] = &[
        (1e20, "100000000000000000000"),
        (1e21, "1e+21"),
        (999_999_999_999_999_900_000.0, "999999999999999900000"),
        (1.23456789e21, "1.23456789e+21"),
        (0.000001, "0.000001"),
        (0.0000012, "0.0000012"),
        (1e-7, "1e-7"),
        (1.5e-7, "1.5e-7"),
        (1.23e-18, "1.23e-18"),
        (5e-324, "5e-324"),
        (f64::MAX, "1.7976931348623157e+308"),
        (-2e-7, "-2e-7"),
    ];
    for (x, expected) in cases {
        assert_eq!(js_number_string(*x), *expected, "{x}");
    }
}

#[test]
fn special_numbers_print_as_javascript_does() {
    assert_eq!(js_number_string(-0.0), "0");
    assert_eq!(js_number_string(f64::NAN), "NaN");
    assert_eq!(js_number_string(f64::INFINITY), "Infinity");
    assert_eq!(js_number_string(f64::NEG_INFINITY), "-Infinity");
}

/// Needs serde_json's `float_roundtrip` feature: the default parser can be off by one ulp
/// (it reads 123456789012345678901 as 123456789012345670000), which would break digests.
#[test]
fn integers_beyond_2_pow_53_print_from_their_f64_value() {
    let big: Value = serde_json::from_str("123456789012345678901").unwrap();
    assert_eq!(canonical_json(&big), "123456789012345680000");
    let odd: Value = serde_json::from_str("9007199254740993").unwrap();
    assert_eq!(canonical_json(&odd), "9007199254740992");
    assert_eq!(canonical_json(&json!(u64::MAX)), "18446744073709552000");
    assert_eq!(canonical_json(&json!(i64::MIN)), "-9223372036854776000");
}

#[test]
fn canonical_json_sorts_keys_at_every_level_without_whitespace() {
    let value = json!({"b": 1, "a": [true, null, {"z": 1.0, "y": "x"}], "B": {"d": {}, "c": []}});
    assert_eq!(
        canonical_json(&value),
        r#"{"B":{"c":[],"d":{}},"a":[true,null,{"y":"x","z":1}],"b":1}"#
    );
}

#[test]
fn canonical_key_order_is_utf16_code_unit_order() {
    // UTF-8 byte order would put U+E000 first; UTF-16 puts the surrogate pair (0xD83D…) first.
    let value = json!({"\u{e000}": 1, "😀": 2, "a": 3});
    assert_eq!(canonical_json(&value), "{\"a\":3,\"😀\":2,\"\u{e000}\":1}");
}

#[test]
fn ledger_key_order_is_utf8_byte_order_and_numbers_print_as_serde_json() {
    // The ledger's stored digests were computed over this form; changing it would make stored
    // events fail verification (ADR 0023).
    let value = json!({"\u{e000}": 1.0, "😀": 1e21, "a": [u64::MAX, -0.5, 1.5e-7], "B": {"z": 1, "y": null}});
    assert_eq!(
        ledger_json(&value),
        "{\"B\":{\"y\":null,\"z\":1},\"a\":[18446744073709551615,-0.5,1.5e-7],\"\u{e000}\":1.0,\"😀\":1e+21}"
    );
    assert_eq!(ledger_json(&value), ledger_oracle(&value));
    assert_eq!(
        canonical_json(&value),
        "{\"B\":{\"y\":null,\"z\":1},\"a\":[18446744073709552000,-0.5,1.5e-7],\"😀\":1e+21,\"\u{e000}\":1}"
    );
}

#[test]
fn ledger_digest_of_a_stored_event_is_pinned() {
    use sha2::{Digest, Sha256};
    let event = json!({"task": {"status": {"state": "TASK_STATE_WORKING"}, "id": "r1", "contextId": "c1"}});
    let text = ledger_json(&event);
    assert_eq!(
        text,
        r#"{"task":{"contextId":"c1","id":"r1","status":{"state":"TASK_STATE_WORKING"}}}"#
    );
    let hex: String = Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(
        hex,
        "145a2807519ae5a8c8fd4258b1e17514d6cb23237d1b078ed06f0c5bf06576da"
    );
}

#[test]
fn strings_are_escaped_as_json_stringify_does() {
    let s = "\u{1}\u{1f}\"\\\n\t\u{8}\u{c}\r/\u{7f}\u{2028}<script>";
    let expected = "\"\\u0001\\u001f\\\"\\\\\\n\\t\\b\\f\\r/\u{7f}\u{2028}<script>\"";
    assert_eq!(js_json_string(s), expected);
    assert_eq!(canonical_json(&json!(s)), expected);
    assert_eq!(canonical_json(&json!({s: 1})), format!("{{{expected}:1}}"));
}

#[test]
fn json_utf16_len_counts_code_units_of_javascript_output() {
    assert_eq!(json_utf16_len(&json!({"a": "😀"})), 10);
    assert_eq!(json_utf16_len(&json!(1.0)), 1);
    assert_eq!(
        json_utf16_len(&json!({"x": [1, 2.5, null]})),
        r#"{"x":[1,2.5,null]}"#.len()
    );
}

#[test]
fn js_number_value_serialises_like_json_stringify() {
    assert_eq!(serde_json::to_string(&js_number_value(3.0)).unwrap(), "3");
    assert_eq!(serde_json::to_string(&js_number_value(-0.0)).unwrap(), "0");
    assert_eq!(serde_json::to_string(&js_number_value(2.5)).unwrap(), "2.5");
    assert_eq!(serde_json::to_string(&js_number_value(-7.0)).unwrap(), "-7");
    assert_eq!(js_number_value(f64::NAN), Value::Null);
    assert_eq!(js_number_value(f64::INFINITY), Value::Null);
    assert_eq!(js_number_value(1e300).as_f64(), Some(1e300));
}

#[test]
fn truncate_utf16_never_splits_a_code_point() {
    assert_eq!(truncate_utf16("a😀b", 0), "");
    assert_eq!(truncate_utf16("a😀b", 2), "a");
    assert_eq!(truncate_utf16("a😀b", 3), "a😀");
    assert_eq!(truncate_utf16("a😀b", 4), "a😀b");
    assert_eq!(truncate_utf16("héllo", 2), "hé");
    assert_eq!(utf16_len("a😀b"), 4);
}

#[test]
fn js_trim_uses_javascript_whitespace() {
    assert_eq!(js_trim("\u{feff}\u{a0}\u{2028} x \t\n"), "x");
    assert_eq!(js_trim("\u{85}x"), "\u{85}x");
    assert_eq!(js_trim("   "), "");
}

proptest! {
    #[test]
    fn js_number_string_round_trips(x in any::<f64>().prop_filter("finite", |x| x.is_finite())) {
        let printed = js_number_string(x);
        prop_assert_eq!(printed.parse::<f64>().unwrap(), if x == 0.0 { 0.0 } else { x });
        prop_assert!(!printed.ends_with(".0") && !printed.contains("e0"));
    }

    #[test]
    fn canonical_json_is_valid_and_idempotent(value in arb_json()) {
        let once = canonical_json(&value);
        let parsed: Value = serde_json::from_str(&once).unwrap();
        prop_assert_eq!(canonical_json(&parsed), once.clone());
        prop_assert_eq!(json_utf16_len(&value), utf16_len(&once));
    }
}

#[test]
fn hostile_corpus_is_formatted_without_panic() {
    for value in hostile_corpus() {
        let text = canonical_json(&value);
        assert!(!text.is_empty());
        assert_eq!(json_utf16_len(&value), utf16_len(&text));
    }
}

/// The ledger form as the server first wrote it (keys sorted, then `serde_json`'s text): the
/// oracle that keeps [`ledger_json`] byte-identical for stored digests.
fn ledger_oracle(value: &Value) -> String {
    fn sort(value: &Value) -> Value {
        match value {
            Value::Object(map) => {
                let mut entries: Vec<_> = map.iter().collect();
                entries.sort_by(|a, b| a.0.cmp(b.0));
                Value::Object(entries.into_iter().map(|(k, v)| (k.clone(), sort(v))).collect())
            }
            Value::Array(items) => Value::Array(items.iter().map(sort).collect()),
            other => other.clone(),
        }
    }
    sort(value).to_string()
}

proptest! {
    #[test]
    fn ledger_json_matches_the_stored_digest_form(value in arb_json()) {
        prop_assert_eq!(ledger_json(&value), ledger_oracle(&value));
    }
}

#[test]
fn ledger_json_matches_the_stored_digest_form_on_hostile_values() {
    for value in hostile_corpus() {
        assert_eq!(ledger_json(&value), ledger_oracle(&value));
    }
}
