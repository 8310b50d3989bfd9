//! Tests for leaf components of the render model (§1.4 Text/TextField/CheckBox/ChoicePicker and,
//! beyond it, Slider/DateTimeInput/Tabs/List and inline-only media).

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::super::test_support::{surface, xs};
use super::super::{
    ChoiceOption, Direction, MAX_TEXT_CHARS, MEDIA_NOT_INLINE_TEXT, PlaceholderReason, RenderNode,
    TextFieldVariant, TextVariant, set_edit,
};
use super::{SLIDER_DEFAULT_MAX, SLIDER_DEFAULT_MIN, is_inline_media};

fn render(components_json: Value) -> RenderNode {
    surface(components_json, json!({})).render()
}

fn root(component: Value) -> RenderNode {
    let mut component = component;
    component["id"] = json!("root");
    render(json!([component]))
}

fn children_of(node: &RenderNode) -> &[RenderNode] {
    match node {
        RenderNode::Row { children, .. }
        | RenderNode::Column { children, .. }
        | RenderNode::List { children, .. } => children,
        other => panic!("container expected, got {other:?}"),
    }
}

#[test]
fn text_variants_h1_to_h5_caption_else_body() {
    let cases = [
        ("h1", TextVariant::H1),
        ("h2", TextVariant::H2),
        ("h3", TextVariant::H3),
        ("h4", TextVariant::H4),
        ("h5", TextVariant::H5),
        ("caption", TextVariant::Caption),
        ("body", TextVariant::Body),
        ("h6", TextVariant::Body),
        ("", TextVariant::Body),
    ];
    for (name, expected) in cases {
        let node = root(json!({"component": "Text", "text": "t", "variant": name}));
        assert!(
            matches!(node, RenderNode::Text { variant, .. } if variant == expected),
            "{name}"
        );
    }
}

#[test]
fn text_truncated_to_5000_chars() {
    let node = root(json!({"component": "Text", "text": xs(6_000)}));
    let RenderNode::Text { text, .. } = node else {
        panic!()
    };
    assert_eq!(text.len(), MAX_TEXT_CHARS);
}

#[test]
fn truncation_never_splits_a_code_point() {
    let node = root(json!({"component": "Text", "text": format!("{}😀", xs(4_999))}));
    let RenderNode::Text { text, .. } = node else {
        panic!()
    };
    assert_eq!(text, xs(4_999));
}

#[test]
fn text_is_plain_and_numbers_print_like_javascript() {
    let node = root(json!({"component": "Text", "text": "<b>hi</b>"}));
    assert!(matches!(node, RenderNode::Text { ref text, .. } if text == "<b>hi</b>"));
    let s = surface(
        json!([{"id": "root", "component": "Text", "text": {"path": "/n"}}]),
        json!({"n": 2.0}),
    );
    assert!(matches!(s.render(), RenderNode::Text { ref text, .. } if text == "2"));
}

#[test]
fn inputs_are_editable_only_with_a_path_binding() {
    let s = surface(
        json!([{"id": "root", "component": "Column", "children": ["a", "b"]},
                           {"id": "a", "component": "TextField", "label": "Name", "value": {"path": "/name"}},
                           {"id": "b", "component": "TextField", "label": "Fixed", "value": "lit"}]),
        json!({"name": "Ada"}),
    );
    let node = s.render();
    let kids = children_of(&node);
    assert!(
        matches!(&kids[0], RenderNode::TextField { binding: Some(b), value, .. } if b == "/name" && value == "Ada")
    );
    assert!(matches!(&kids[1], RenderNode::TextField { binding: None, value, .. } if value == "lit"));
    let relative = root(json!({"component": "CheckBox", "label": "x", "value": {"path": "rel"}}));
    assert!(matches!(
        relative,
        RenderNode::CheckBox {
            binding: None,
            value: false,
            ..
        }
    ));
}

#[test]
fn text_field_variants_and_5000_char_value() {
    for (name, expected) in [
        ("longText", TextFieldVariant::LongText),
        ("obscured", TextFieldVariant::Obscured),
        ("number", TextFieldVariant::Number),
        ("shortText", TextFieldVariant::Text),
    ] {
        let node = root(json!({"component": "TextField", "variant": name, "value": xs(5_001)}));
        let RenderNode::TextField { variant, value, .. } = node else {
            panic!()
        };
        assert_eq!(variant, expected);
        assert_eq!(value.len(), 5_000);
    }
}

#[test]
fn edits_are_shown_over_the_model() {
    let s = surface(
        json!([{"id": "root", "component": "CheckBox", "label": "ok", "value": {"path": "/ok"}}]),
        json!({"ok": false}),
    );
    let mut edits = BTreeMap::new();
    set_edit(&mut edits, "/ok", json!(true));
    assert!(matches!(
        s.render_with(&edits, false),
        RenderNode::CheckBox { value: true, .. }
    ));
}

#[test]
fn choice_picker_options_capped_at_50_with_string_values() {
    let mut options: Vec<Value> = (0..60)
        .map(|i| json!({"value": format!("v{i}"), "label": format!("L{i}")}))
        .collect();
    options[0] = json!({"value": 1, "label": "numeric"});
    options[1] = json!({"value": "nolabel"});
    let node = root(json!({"component": "ChoicePicker", "label": "Pick", "options": options}));
    let RenderNode::ChoicePicker {
        options, multiple, ..
    } = node
    else {
        panic!()
    };
    assert_eq!(
        options.len(),
        49,
        "first 50 entries, one with a non-string value dropped"
    );
    assert_eq!(
        options[0],
        ChoiceOption {
            value: "nolabel".into(),
            label: "nolabel".into()
        }
    );
    assert!(!multiple);
}

#[test]
fn choice_picker_multiple_selection_and_selected_values() {
    let s = surface(
        json!([{"id": "root", "component": "ChoicePicker", "variant": "multipleSelection",
                            "options": [{"value": "a", "label": "A"}], "value": {"path": "/pick"}}]),
        json!({"pick": ["a", 3, "b"]}),
    );
    let RenderNode::ChoicePicker {
        selected,
        multiple,
        binding,
        ..
    } = s.render()
    else {
        panic!()
    };
    assert_eq!(selected, ["a", "b"]);
    assert!(multiple);
    assert_eq!(binding.as_deref(), Some("/pick"));
}

#[test]
fn single_choice_pick_is_stored_as_an_array() {
    let s = surface(
        json!([{"id": "root", "component": "ChoicePicker", "variant": "mutuallyExclusive",
                            "options": [{"value": "a", "label": "A"}], "value": {"path": "/pick"}}]),
        json!({}),
    );
    let mut edits = BTreeMap::new();
    set_edit(&mut edits, "/pick", json!(["a"]));
    let RenderNode::ChoicePicker {
        selected, multiple, ..
    } = s.render_with(&edits, false)
    else {
        panic!()
    };
    assert_eq!((selected, multiple), (vec!["a".to_string()], false));
}

#[test]
fn tabs_list_slider_and_date_time_input() {
    let s = surface(
        json!([
            {"id": "root", "component": "Tabs", "tabs": [{"title": "One", "child": "list"}, {"title": {"path": "/t"}, "child": "dt"}]},
            {"id": "list", "component": "List", "children": ["sl"], "direction": "horizontal"},
            {"id": "sl", "component": "Slider", "label": "Vol", "min": 1, "max": 5, "value": {"path": "/v"}},
            {"id": "dt", "component": "DateTimeInput", "value": "2026-01-01", "enableTime": true}
        ]),
        json!({"t": "Two", "v": 3}),
    );
    let RenderNode::Tabs { tabs, .. } = s.render() else {
        panic!()
    };
    assert_eq!(tabs[1].title, "Two");
    let RenderNode::List {
        children, direction, ..
    } = &tabs[0].child
    else {
        panic!()
    };
    assert_eq!(*direction, Direction::Horizontal);
    assert_eq!(
        children[0],
        RenderNode::Slider {
            id: "sl".into(),
            label: "Vol".into(),
            min: 1.0,
            max: 5.0,
            value: 3.0,
            binding: Some("/v".into())
        }
    );
    assert_eq!(
        tabs[1].child,
        RenderNode::DateTimeInput {
            id: "dt".into(),
            label: String::new(),
            value: "2026-01-01".into(),
            enable_date: true,
            enable_time: true,
            binding: None
        }
    );
}

#[test]
fn media_renders_only_inline_data_urls_of_its_kind() {
    let image = root(json!({"component": "Image", "url": "data:image/png;base64,iVBOR", "description": "d"}));
    assert!(matches!(image, RenderNode::Image { ref url, .. } if url == "data:image/png;base64,iVBOR"));
    let video = root(json!({"component": "Video", "url": "DATA:Video/MP4;base64,AAAA"}));
    assert!(matches!(video, RenderNode::Video { .. }));
    let audio = root(json!({"component": "AudioPlayer", "url": "data:audio/ogg,x"}));
    assert!(matches!(audio, RenderNode::AudioPlayer { .. }));
    for (kind, url) in [
        ("Image", "https://x/a.png"),
        ("Image", "javascript:alert(1)"),
        ("Image", "data:video/mp4,x"),
        ("Image", "data:image/svg+xml,<svg onload=alert(1)>"),
        ("Video", "data:image/png,x"),
        ("AudioPlayer", "http://x/a.ogg"),
        ("Image", "data:image/png"),
        ("Image", "data:,x"),
    ] {
        let node = root(json!({"component": kind, "url": url}));
        assert_eq!(
            node,
            RenderNode::Placeholder {
                reason: PlaceholderReason::MediaNotInline,
                text: MEDIA_NOT_INLINE_TEXT.into()
            },
            "{url}"
        );
    }
}

#[test]
fn inline_media_needs_data_scheme_family_subtype_and_comma() {
    assert!(is_inline_media("data:image/png;base64,AAAA", "image"));
    assert!(is_inline_media("data:image/webp,AAAA", "image"));
    assert!(!is_inline_media("data:image/png;base64,AAAA", "video"));
    assert!(!is_inline_media("data:image/;base64,AAAA", "image"));
    assert!(!is_inline_media("data:image/png", "image"));
    assert!(!is_inline_media("data:image/svg+xml;base64,AAAA", "image"));
    assert!(!is_inline_media("data:image/p\"ng,AAAA", "image"));
    assert!(!is_inline_media("dat\u{e9}:image/png,x", "image"));
    assert!(!is_inline_media("", "image"));
}

#[test]
fn slider_defaults_when_bounds_do_not_resolve() {
    let node = root(json!({"component": "Slider", "label": "v", "value": "x"}));
    assert_eq!(
        node,
        RenderNode::Slider {
            id: "root".into(),
            label: "v".into(),
            min: SLIDER_DEFAULT_MIN,
            max: SLIDER_DEFAULT_MAX,
            value: SLIDER_DEFAULT_MIN,
            binding: None,
        }
    );
}

#[test]
fn labels_and_titles_are_resolved_plain_text() {
    let s = surface(
        json!([{"id": "root", "component": "CheckBox", "label": {"path": "/l"}, "value": true}]),
        json!({"l": "<i>x</i>"}),
    );
    assert!(matches!(s.render(), RenderNode::CheckBox { ref label, value: true, .. } if label == "<i>x</i>"));
    let unresolved = root(json!({"component": "CheckBox", "label": {"call": "x"}, "value": "yes"}));
    assert!(matches!(unresolved, RenderNode::CheckBox { ref label, value: false, .. } if label.is_empty()));
}
