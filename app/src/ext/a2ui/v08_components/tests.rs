//! Tests for normalising v0.8 components into the internal v0.9 shape (`a2a-and-a2ui.md` §B.4).

use serde_json::{Value, json};

use super::*;

fn normalised(name: &str, props: Value) -> Component {
    let entry = json!({"id": "c", "component": { name: props }});
    component(&entry, &mut Vec::new()).unwrap()
}

#[test]
fn bound_literals_become_plain_values() {
    let mut inits = Vec::new();
    assert_eq!(bound(&json!({"literalString": "a"}), &mut inits), json!("a"));
    assert_eq!(bound(&json!({"literalNumber": 2}), &mut inits), json!(2));
    assert_eq!(bound(&json!({"literalBoolean": false}), &mut inits), json!(false));
    assert_eq!(bound(&json!({"literalArray": ["x"]}), &mut inits), json!(["x"]));
    assert!(inits.is_empty());
}

#[test]
fn bound_path_becomes_binding() {
    let mut inits = Vec::new();
    assert_eq!(bound(&json!({"path": "/a"}), &mut inits), json!({"path": "/a"}));
    assert_eq!(bound(&json!({"path": "rel"}), &mut inits), json!({"path": "rel"}));
    assert!(inits.is_empty());
}

#[test]
fn bound_literal_and_absolute_path_records_initial_value() {
    let mut inits = Vec::new();
    assert_eq!(
        bound(&json!({"path": "/a/b", "literalNumber": 3}), &mut inits),
        json!({"path": "/a/b"})
    );
    assert_eq!(inits, vec![(vec!["a".to_string(), "b".to_string()], json!(3))]);
    bound(&json!({"path": "rel", "literalNumber": 3}), &mut inits);
    bound(&json!({"path": "/__proto__", "literalNumber": 3}), &mut inits);
    assert_eq!(inits.len(), 1, "relative or invalid paths are not initialised");
}

#[test]
fn non_bound_objects_are_unchanged() {
    let value = json!({"explicitList": ["a"]});
    assert_eq!(bound(&value, &mut Vec::new()), value);
    assert_eq!(bound(&json!({}), &mut Vec::new()), json!({}));
    assert_eq!(
        bound(&json!({"path": "/a", "x": 1}), &mut Vec::new()),
        json!({"path": "/a", "x": 1})
    );
}

#[test]
fn text_usage_hint_becomes_variant() {
    let c = normalised("Text", json!({"text": {"literalString": "t"}, "usageHint": "h2"}));
    assert_eq!(c.component, "Text");
    assert_eq!(Value::Object(c.props), json!({"text": "t", "variant": "h2"}));
}

#[test]
fn explicit_list_children_become_ids() {
    let c = normalised(
        "Row",
        json!({"children": {"explicitList": ["a", "b"]}, "distribution": "spaceBetween",
                                     "alignment": "center"}),
    );
    assert_eq!(
        Value::Object(c.props),
        json!({"children": ["a", "b"], "justify": "spaceBetween", "align": "center"})
    );
}

#[test]
fn template_children_stay_an_object() {
    let template = json!({"template": {"componentId": "t", "dataBinding": "/items"}});
    let c = normalised("Column", json!({"children": template.clone()}));
    assert_eq!(c.props["children"], template);
}

#[test]
fn list_alignment_and_direction() {
    let c = normalised(
        "List",
        json!({"children": {"explicitList": []}, "direction": "horizontal", "alignment": "end"}),
    );
    assert_eq!(
        Value::Object(c.props),
        json!({"children": [], "direction": "horizontal", "align": "end"})
    );
}

#[test]
fn multiple_choice_becomes_choice_picker() {
    let c = normalised(
        "MultipleChoice",
        json!({"selections": {"path": "/pick"}, "maxAllowedSelections": 1,
               "options": [{"label": {"literalString": "A"}, "value": "a"}]}),
    );
    assert_eq!(c.component, "ChoicePicker");
    assert_eq!(
        Value::Object(c.props),
        json!({"value": {"path": "/pick"}, "variant": "mutuallyExclusive", "options": [{"label": "A", "value": "a"}]})
    );
    let multi = normalised(
        "MultipleChoice",
        json!({"selections": {"literalArray": []}, "options": []}),
    );
    assert_eq!(multi.props["variant"], json!("multipleSelection"));
}

#[test]
fn text_field_type_becomes_variant() {
    for (kind, variant) in [
        ("longText", Some("longText")),
        ("number", Some("number")),
        ("obscured", Some("obscured")),
        ("shortText", None),
        ("date", None),
    ] {
        let c = normalised(
            "TextField",
            json!({"text": {"path": "/v"}, "textFieldType": kind}),
        );
        assert_eq!(c.props.get("variant").and_then(Value::as_str), variant, "{kind}");
        assert_eq!(c.props["value"], json!({"path": "/v"}));
        assert!(!c.props.contains_key("textFieldType"));
    }
}

#[test]
fn button_primary_and_action_context() {
    let c = normalised(
        "Button",
        json!({"child": "label", "primary": true, "action": {"name": "go",
               "context": [{"key": "who", "value": {"path": "/name"}}, {"key": "n", "value": {"literalNumber": 1}}]}}),
    );
    assert_eq!(
        Value::Object(c.props),
        json!({"child": "label", "variant": "primary",
               "action": {"event": {"name": "go", "context": {"who": {"path": "/name"}, "n": 1}}}})
    );
    let plain = normalised(
        "Button",
        json!({"child": "l", "primary": false, "action": {"name": "x"}}),
    );
    assert!(!plain.props.contains_key("variant"));
    assert_eq!(plain.props["action"], json!({"event": {"name": "x"}}));
}

#[test]
fn malformed_v08_context_stays_non_object() {
    assert!(action_v09(&json!({"name": "x", "context": [{"value": 1}]}))["event"]["context"].is_array());
    assert!(action_v09(&json!({"name": "x", "context": {"k": 1}}))["event"]["context"].is_array());
    assert_eq!(action_v09(&json!("x")), json!({"event": {"name": null}}));
}

#[test]
fn tab_items_become_tabs() {
    let c = normalised(
        "Tabs",
        json!({"tabItems": [{"title": {"literalString": "One"}, "child": "a"}]}),
    );
    assert_eq!(
        Value::Object(c.props),
        json!({"tabs": [{"title": "One", "child": "a"}]})
    );
}

#[test]
fn slider_min_max_values() {
    let c = normalised(
        "Slider",
        json!({"value": {"path": "/v"}, "minValue": 1, "maxValue": 9}),
    );
    assert_eq!(
        Value::Object(c.props),
        json!({"value": {"path": "/v"}, "min": 1, "max": 9})
    );
}

#[test]
fn image_alt_text_becomes_description() {
    let c = normalised(
        "Image",
        json!({"url": {"literalString": "data:image/png;base64,AA"}, "altText": {"literalString": "a"},
                                       "usageHint": "avatar"}),
    );
    assert_eq!(
        Value::Object(c.props),
        json!({"url": "data:image/png;base64,AA", "description": "a", "variant": "avatar"})
    );
}

#[test]
fn unknown_types_pass_through() {
    let c = normalised("Modal", json!({"entryPointChild": "a"}));
    assert_eq!(c.component, "Modal");
    assert_eq!(c.props["entryPointChild"], json!("a"));
}
