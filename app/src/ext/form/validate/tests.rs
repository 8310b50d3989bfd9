//! Tests for `form/validate.rs`: initial values, every validation message, and JavaScript
//! `String()` / `Number()` coercion.

use super::*;
use crate::ext::canonical::tests::arb_json;
use crate::ext::form::parse_form;
use proptest::prelude::*;
use serde_json::json;

fn form(properties: Value, required: &[&str]) -> FormDefinition {
    parse_form(&json!({"schema": {"type": "object", "properties": properties, "required": required}}))
        .unwrap()
}

fn values(v: Value) -> Map<String, Value> {
    serde_json::from_value(v).unwrap()
}

fn errors(form: &FormDefinition, v: Value) -> Vec<(String, String)> {
    validate_form(form, &values(v))
        .unwrap_err()
        .into_iter()
        .map(|e| (e.key, e.message))
        .collect()
}

fn one_error(property: Value, value: Value) -> String {
    let f = form(json!({ "f": property }), &["f"]);
    let errs = errors(&f, json!({ "f": value }));
    assert_eq!(errs.len(), 1);
    errs[0].1.clone()
}

fn accepted(property: Value, value: Value) -> Value {
    let f = form(json!({ "f": property }), &[]);
    validate_form(&f, &values(json!({ "f": value })))
        .unwrap()
        .remove("f")
        .unwrap_or(Value::Null)
}

#[test]
fn initial_values_are_defaults_and_booleans_start_false() {
    let f = form(
        json!({"s": {"type": "string", "default": "x"}, "n": {"type": "integer", "default": 3},
            "b": {"type": "boolean"}, "t": {"type": "boolean", "default": true},
            "c": {"enum": ["a"], "default": "a"}, "e": {"type": "string"}}),
        &[],
    );
    assert_eq!(
        initial_values(&f),
        values(json!({"s": "x", "n": 3, "b": false, "t": true, "c": "a"}))
    );
    assert_eq!(serde_json::to_string(&initial_values(&f)["n"]).unwrap(), "3");
}

#[test]
fn booleans_always_submitted_and_true_only_when_exactly_true() {
    let f = form(json!({"b": {"type": "boolean"}}), &["b"]);
    for (raw, expected) in [
        (json!(true), true),
        (json!("true"), false),
        (json!(1), false),
        (Value::Null, false),
    ] {
        assert_eq!(
            validate_form(&f, &values(json!({ "b": raw }))).unwrap()["b"],
            json!(expected)
        );
    }
    assert_eq!(validate_form(&f, &Map::new()).unwrap()["b"], json!(false));
}

#[test]
fn empty_required_is_required_and_empty_optional_is_omitted() {
    let f = form(
        json!({"a": {"type": "string"}, "b": {"type": "number"}, "c": {"enum": ["x"]}}),
        &["a", "b", "c"],
    );
    let expected =
        [("a", "Required"), ("b", "Required"), ("c", "Required")].map(|(k, m)| (k.into(), m.into()));
    assert_eq!(errors(&f, json!({"a": "", "b": null})), expected);
    let optional = form(json!({"a": {"type": "string"}, "b": {"type": "number"}}), &[]);
    assert_eq!(
        validate_form(&optional, &values(json!({"a": "", "b": null}))).unwrap(),
        Map::new()
    );
}

#[test]
fn string_min_length_message() {
    assert_eq!(
        one_error(json!({"type": "string", "minLength": 3}), json!("ab")),
        "At least 3 characters"
    );
    assert_eq!(
        one_error(json!({"type": "string", "minLength": 1e21}), json!("ab")),
        "At least 1e+21 characters"
    );
    assert_eq!(
        accepted(json!({"type": "string", "minLength": 3}), json!("abc")),
        json!("abc")
    );
}

#[test]
fn string_max_length_message_and_implicit_10000_cap() {
    assert_eq!(
        one_error(json!({"type": "string", "maxLength": 2}), json!("abc")),
        "At most 2 characters"
    );
    assert_eq!(
        one_error(json!({"type": "string"}), json!("x".repeat(10_001))),
        "At most 10000 characters"
    );
    assert_eq!(
        accepted(json!({"type": "string"}), json!("x".repeat(10_000))),
        json!("x".repeat(10_000))
    );
}

#[test]
fn string_length_counts_utf16_units() {
    assert_eq!(
        one_error(json!({"type": "string", "maxLength": 1}), json!("😀")),
        "At most 1 characters"
    );
    assert_eq!(
        accepted(json!({"type": "string", "minLength": 2}), json!("😀")),
        json!("😀")
    );
}

#[test]
fn string_values_are_coerced_with_js_string() {
    let text = json!({"type": "string"});
    assert_eq!(accepted(text.clone(), json!(1.5)), json!("1.5"));
    assert_eq!(accepted(text.clone(), json!(1e21)), json!("1e+21"));
    assert_eq!(accepted(text.clone(), json!(true)), json!("true"));
    assert_eq!(
        accepted(text.clone(), json!([1, null, "a", [2, 3]])),
        json!("1,,a,2,3")
    );
    assert_eq!(accepted(text.clone(), json!({"a": 1})), json!("[object Object]"));
    assert_eq!(accepted(text, json!("  ")), json!("  "));
}

#[test]
fn number_messages() {
    let number = json!({"type": "number", "minimum": 2, "maximum": 2.5});
    assert_eq!(one_error(number.clone(), json!("abc")), "Enter a number");
    assert_eq!(one_error(number.clone(), json!("Infinity")), "Enter a number");
    assert_eq!(one_error(number.clone(), json!("1e400")), "Enter a number");
    assert_eq!(one_error(number.clone(), json!(1)), "At least 2");
    assert_eq!(one_error(number.clone(), json!("3")), "At most 2.5");
    assert_eq!(
        one_error(json!({"type": "integer"}), json!(1.5)),
        "Enter a whole number"
    );
    assert_eq!(
        one_error(json!({"type": "integer"}), json!("2.25")),
        "Enter a whole number"
    );
    assert_eq!(
        one_error(json!({"type": "number", "minimum": 1e-7}), json!(0)),
        "At least 1e-7"
    );
    assert_eq!(
        one_error(json!({"type": "number", "maximum": -0.0}), json!(1)),
        "At most 0"
    );
}

#[test]
fn numbers_are_coerced_and_submitted_as_json_numbers() {
    let number = json!({"type": "number"});
    assert_eq!(
        serde_json::to_string(&accepted(number.clone(), json!("3"))).unwrap(),
        "3"
    );
    assert_eq!(accepted(number.clone(), json!(" 2.5\n")), json!(2.5));
    assert_eq!(accepted(number.clone(), json!(true)), json!(1));
    assert_eq!(accepted(number.clone(), json!([7])), json!(7));
    assert_eq!(accepted(json!({"type": "integer"}), json!("4.0")), json!(4));
    // JS: Number("   ") === 0 (only "" itself counts as empty).
    assert_eq!(accepted(number.clone(), json!("   ")), json!(0));
    assert_eq!(one_error(number, json!({"a": 1})), "Enter a number");
}

#[test]
fn js_string_to_number_follows_ecmascript() {
    let cases: &[(&str, f64)] = &[
        ("", 0.0),
        (" \t\n\u{feff}\u{a0}", 0.0),
        ("42", 42.0),
        ("+1.5", 1.5),
        ("-.5", -0.5),
        ("5.", 5.0),
        ("1e3", 1000.0),
        ("1E-2", 0.01),
        ("0x1F", 31.0),
        ("0XfF", 255.0),
        ("0o17", 15.0),
        ("0b101", 5.0),
        ("0x20000000000001", 9_007_199_254_740_992.0),
        ("0x20000000000003", 9_007_199_254_740_996.0),
        ("Infinity", f64::INFINITY),
        ("-Infinity", f64::NEG_INFINITY),
        ("007", 7.0),
    ];
    for (s, expected) in cases {
        assert_eq!(js_string_to_number(s), *expected, "{s:?}");
    }
    for s in [
        "abc", "0x", "-0x10", "0b2", "1e", ".", "+", "inf", "NaN", "infinity", "1_000", "1 2", "0x1.8",
        "\u{85}1",
    ] {
        assert!(js_string_to_number(s).is_nan(), "{s:?}");
    }
    assert!(js_string_to_number("-0").is_sign_negative());
    assert_eq!(
        js_string_to_number(&format!("0x{}", "f".repeat(300))),
        f64::INFINITY
    );
}

#[test]
fn choice_must_equal_an_option_exactly() {
    let choice = json!({"enum": ["1", "b"]});
    assert_eq!(one_error(choice.clone(), json!(1)), "Choose one of the options");
    assert_eq!(one_error(choice.clone(), json!("B")), "Choose one of the options");
    assert_eq!(accepted(choice, json!("b")), json!("b"));
}

#[test]
fn only_declared_keys_submitted_in_field_order() {
    let f = parse_form(&json!({"schema": {"type": "object", "properties": {
        "a": {"type": "string"}, "b": {"type": "integer"}, "c": {"type": "boolean"}}}, "order": ["c", "b"]}))
    .unwrap();
    let submission = validate_form(
        &f,
        &values(json!({"a": "x", "b": "2", "extra": 1, "__proto__": 1})),
    )
    .unwrap();
    assert_eq!(submission, values(json!({"a": "x", "b": 2, "c": false})));
    let order: Vec<_> = f
        .fields
        .iter()
        .map(|f| f.key.as_str())
        .filter(|k| submission.contains_key(*k))
        .collect();
    assert_eq!(order, ["c", "b", "a"]);
}

#[test]
fn errors_are_reported_for_every_field_in_display_order() {
    let f = form(
        json!({"a": {"type": "string", "minLength": 2}, "b": {"type": "number"}}),
        &[],
    );
    let expected = vec![
        ("a".into(), "At least 2 characters".into()),
        ("b".into(), "Enter a number".into()),
    ];
    assert_eq!(errors(&f, json!({"a": "x", "b": "y"})), expected);
}

proptest! {
    #[test]
    fn validate_form_never_panics(values in arb_json(), props in arb_json()) {
        let definition = json!({"schema": {"type": "object", "properties": props}});
        if let (Ok(f), Some(values)) = (parse_form(&definition), values.as_object()) {
            if let Ok(submission) = validate_form(&f, values) {
                prop_assert!(submission.keys().all(|k| f.fields.iter().any(|field| &field.key == k)));
            }
            let _ = initial_values(&f);
        }
    }

    #[test]
    fn js_string_to_number_never_panics(s in ".{0,40}") {
        let _ = js_string_to_number(&s);
    }
}
