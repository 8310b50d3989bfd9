//! Tests for the per-field rules of `form.rs` (reference.md §1.1 "Per property"): enum before
//! type, option labels and defaults, string lengths and multi-line, number and boolean defaults.

use super::*;

fn only_field(property: Value) -> Result<FormField, FormRejection> {
    parse_form(&json!({"schema": {"type": "object", "properties": { "f": property }}}))
        .map(|form| form.fields[0].clone())
}

fn kind(property: Value) -> FieldKind {
    only_field(property).unwrap().kind
}

#[test]
fn enum_is_checked_before_type() {
    for ty in [json!("object"), json!("number"), Value::Null] {
        let field = kind(json!({"type": ty, "enum": ["a", "b"]}));
        assert!(matches!(field, FieldKind::Choice { .. }));
    }
    assert!(matches!(kind(json!({"enum": ["x"]})), FieldKind::Choice { .. }));
}

#[test]
fn enum_needs_1_to_50_string_entries() {
    let fifty: Vec<String> = (0..50).map(|i| format!("o{i}")).collect();
    assert!(only_field(json!({"enum": fifty})).is_ok());
    let fifty_one: Vec<String> = (0..51).map(|i| format!("o{i}")).collect();
    for bad in [json!([]), json!(fifty_one), json!(["a", 1]), json!(["a", null])] {
        assert_eq!(
            only_field(json!({"enum": bad})),
            Err(FormRejection::InvalidEnum("f".into()))
        );
    }
}

#[test]
fn enum_names_label_options_only_when_lengths_match() {
    let options = |names: Value| match kind(json!({"enum": ["a", "b"], "enumNames": names})) {
        FieldKind::Choice { options, .. } => options.into_iter().map(|o| o.label).collect::<Vec<_>>(),
        _ => unreachable!(),
    };
    assert_eq!(options(json!(["Alpha", "Beta"])), ["Alpha", "Beta"]);
    assert_eq!(options(json!(["Alpha"])), ["a", "b"]);
    assert_eq!(options(json!(["", 7])), ["a", "b"]);
    assert_eq!(options(json!("Alpha")), ["a", "b"]);
    assert_eq!(options(json!(["x".repeat(130), "B"]))[0], "x".repeat(120));
}

#[test]
fn option_label_defaults_to_value_truncated_to_120() {
    let long = "v".repeat(130);
    let FieldKind::Choice { options, .. } = kind(json!({"enum": [long.clone(), ""]})) else {
        panic!()
    };
    assert_eq!(
        options[0],
        ChoiceOption {
            value: long,
            label: "v".repeat(120)
        }
    );
    assert_eq!(
        options[1],
        ChoiceOption {
            value: String::new(),
            label: String::new()
        }
    );
}

#[test]
fn choice_default_kept_only_when_it_is_an_option() {
    let default = |d: Value| match kind(json!({"enum": ["a", "b"], "default": d})) {
        FieldKind::Choice { default, .. } => default,
        _ => unreachable!(),
    };
    assert_eq!(default(json!("b")), Some("b".into()));
    assert_eq!(default(json!("c")), None);
    assert_eq!(default(json!(1)), None);
}

#[test]
fn string_lengths_are_floored_and_max_length_capped_at_10000() {
    let text = |p: Value| match kind(p) {
        FieldKind::Text {
            min_length,
            max_length,
            ..
        } => (min_length, max_length),
        _ => unreachable!(),
    };
    assert_eq!(
        text(json!({"type": "string", "minLength": 2.7, "maxLength": 9.9})),
        (Some(2.0), Some(9))
    );
    assert_eq!(
        text(json!({"type": "string", "maxLength": 50000})),
        (None, Some(10_000))
    );
    assert_eq!(
        text(json!({"type": "string", "minLength": -1, "maxLength": -3})),
        (None, None)
    );
    assert_eq!(
        text(json!({"type": "string", "minLength": "3", "maxLength": null})),
        (None, None)
    );
    assert_eq!(
        text(json!({"type": "string", "minLength": 0, "maxLength": 0})),
        (Some(0.0), Some(0))
    );
}

#[test]
fn multiline_when_format_multiline_or_max_length_over_200() {
    let multiline = |p: Value| matches!(kind(p), FieldKind::Text { multiline: true, .. });
    assert!(multiline(json!({"type": "string", "format": "multiline"})));
    assert!(multiline(json!({"type": "string", "maxLength": 201})));
    assert!(!multiline(json!({"type": "string", "maxLength": 200})));
    assert!(!multiline(json!({"type": "string", "format": "email"})));
}

#[test]
fn string_default_kept_if_string_and_sliced_to_10000() {
    let default = |p: Value| match kind(p) {
        FieldKind::Text { default, .. } => default,
        _ => unreachable!(),
    };
    assert_eq!(
        default(json!({"type": "string", "default": "x".repeat(10_005)})),
        Some("x".repeat(10_000))
    );
    assert_eq!(
        default(json!({"type": "string", "default": ""})),
        Some(String::new())
    );
    assert_eq!(default(json!({"type": "string", "default": 5})), None);
}

#[test]
fn number_bounds_and_default_kept_when_numbers() {
    let field = kind(json!({"type": "integer", "minimum": 1, "maximum": 2.5, "default": 99}));
    let expected = FieldKind::Number {
        integer: true,
        minimum: Some(1.0),
        maximum: Some(2.5),
        default: Some(99.0),
    };
    assert_eq!(field, expected);
    let loose = kind(json!({"type": "number", "minimum": "1", "maximum": null, "default": true}));
    let expected = FieldKind::Number {
        integer: false,
        minimum: None,
        maximum: None,
        default: None,
    };
    assert_eq!(loose, expected);
}

#[test]
fn boolean_default_kept_if_boolean() {
    assert_eq!(
        kind(json!({"type": "boolean", "default": true})),
        FieldKind::Boolean { default: Some(true) }
    );
    assert_eq!(
        kind(json!({"type": "boolean", "default": "true"})),
        FieldKind::Boolean { default: None }
    );
}

#[test]
fn pattern_formats_and_unknown_keys_are_ignored() {
    let property = json!({"type": "string", "pattern": "^(a+)+$", "format": "uri", "$ref": "#/x", "x-y": 1});
    assert!(only_field(property).is_ok());
    let mut data = json!({"schema": {"type": "object", "properties": {"a": {"type": "string"}}}});
    data["schema"]["$defs"] = json!({"nested": {"type": "object"}});
    data["extra"] = json!(true);
    assert!(parse_form(&data).is_ok());
}
