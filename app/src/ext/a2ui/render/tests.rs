//! Tests for the render model (§1.4 "Rendering rules" and the components beyond it).

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::super::ActionState;
use super::super::test_support::{components, create, fold, surface, xs};
use super::*;

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

fn reason_of(node: &RenderNode) -> PlaceholderReason {
    match node {
        RenderNode::Placeholder { reason, .. } => *reason,
        other => panic!("placeholder expected, got {other:?}"),
    }
}

/// A chain `c0 → c1 → … → c{n-1}` of columns ending in a text, rooted at `root` = c0.
fn chain(n: usize) -> Value {
    let mut list: Vec<Value> = (0..n)
        .map(|i| {
            let id = if i == 0 {
                "root".to_string()
            } else {
                format!("c{i}")
            };
            json!({"id": id, "component": "Column", "children": [format!("c{}", i + 1)]})
        })
        .collect();
    list.push(json!({"id": format!("c{n}"), "component": "Text", "text": "leaf"}));
    Value::Array(list)
}

fn depth_of(node: &RenderNode) -> usize {
    match node {
        RenderNode::Column { children, .. } => 1 + children.first().map_or(0, depth_of),
        _ => 0,
    }
}

#[test]
fn waiting_text_without_root_component() {
    let state = fold(vec![
        create("s"),
        components("s", json!([{"id": "other", "component": "Text", "text": "x"}])),
    ]);
    let node = state.surfaces[0].render();
    assert_eq!(
        node,
        RenderNode::Placeholder {
            reason: PlaceholderReason::Waiting,
            text: "Waiting for the agent…".into()
        }
    );
}

#[test]
fn unsupported_catalog_renders_only_the_notice() {
    let other = json!({"version": "v0.9", "createSurface": {"surfaceId": "s", "catalogId": "https://x"}});
    let state = fold(vec![
        other,
        components("s", json!([{"id": "root", "component": "Text", "text": "x"}])),
    ]);
    let node = state.surfaces[0].render();
    let text = "This agent chose a catalog this console does not render.".to_string();
    assert_eq!(
        node,
        RenderNode::Placeholder {
            reason: PlaceholderReason::UnsupportedCatalog,
            text
        }
    );
}

#[test]
fn row_and_column_children_capped_at_200() {
    let ids: Vec<&str> = vec!["t"; 250];
    let node = render(json!([{"id": "root", "component": "Row", "children": ids},
                             {"id": "t", "component": "Text", "text": "x"}]));
    assert_eq!(children_of(&node).len(), 200);
}

#[test]
fn justify_and_align_enumerations() {
    for (name, expected) in [
        ("start", Justify::Start),
        ("center", Justify::Center),
        ("end", Justify::End),
        ("spaceBetween", Justify::SpaceBetween),
        ("spaceAround", Justify::SpaceAround),
        ("spaceEvenly", Justify::SpaceEvenly),
        ("stretch", Justify::Stretch),
    ] {
        let node = root(json!({"component": "Column", "justify": name}));
        assert!(
            matches!(node, RenderNode::Column { justify: Some(j), .. } if j == expected),
            "{name}"
        );
    }
    for (name, expected) in [
        ("start", Align::Start),
        ("center", Align::Center),
        ("end", Align::End),
        ("stretch", Align::Stretch),
    ] {
        let node = root(json!({"component": "Row", "align": name}));
        assert!(
            matches!(node, RenderNode::Row { align: Some(a), .. } if a == expected),
            "{name}"
        );
    }
    let node = root(json!({"component": "Row", "justify": "spaceBetween ", "align": "spaceBetween"}));
    assert!(matches!(
        node,
        RenderNode::Row {
            justify: None,
            align: None,
            ..
        }
    ));
}

#[test]
fn template_children_are_unsupported_children() {
    let node = root(json!({"component": "Column", "children": {"componentId": "t", "path": "/items"}}));
    let children = children_of(&node);
    assert_eq!(children.len(), 1);
    assert_eq!(reason_of(&children[0]), PlaceholderReason::UnsupportedChildren);
    assert!(matches!(&children[0], RenderNode::Placeholder { text, .. } if text == "Unsupported children"));
}

#[test]
fn missing_component_and_child_placeholders() {
    let node = root(json!({"component": "Card", "child": "ghost"}));
    let RenderNode::Card { child, .. } = node else {
        panic!()
    };
    assert_eq!(reason_of(&child), PlaceholderReason::MissingComponent);
    let node = root(json!({"component": "Row", "children": ["ghost", 3]}));
    assert!(
        children_of(&node)
            .iter()
            .all(|c| reason_of(c) == PlaceholderReason::MissingComponent)
    );
    let node = root(json!({"component": "Card"}));
    let RenderNode::Card { child, .. } = node else {
        panic!()
    };
    assert_eq!(reason_of(&child), PlaceholderReason::MissingComponent);
}

#[test]
fn nesting_deeper_than_20_is_a_placeholder() {
    let ok = render(chain(20));
    assert_eq!(depth_of(&ok), 20, "root at depth 0, text at depth 20");
    let deep = render(chain(21));
    let mut node = &deep;
    for _ in 0..21 {
        node = &children_of(node)[0];
    }
    assert_eq!(reason_of(node), PlaceholderReason::TooDeep);
}

#[test]
fn cycles_are_placeholders() {
    let node = render(json!([{"id": "root", "component": "Column", "children": ["a"]},
                             {"id": "a", "component": "Card", "child": "root"}]));
    let RenderNode::Card { child, .. } = &children_of(&node)[0] else {
        panic!()
    };
    assert_eq!(reason_of(child), PlaceholderReason::Cycle);
    let own = root(json!({"component": "Card", "child": "root"}));
    let RenderNode::Card { child, .. } = own else {
        panic!()
    };
    assert_eq!(reason_of(&child), PlaceholderReason::Cycle);
}

#[test]
fn shared_children_render_within_the_node_budget() {
    // 20 levels, each row listing the next level 200 times: 200^20 paths without a budget.
    let mut list: Vec<Value> = (0..20)
        .map(|i| {
            let id = if i == 0 {
                "root".to_string()
            } else {
                format!("r{i}")
            };
            json!({"id": id, "component": "Row", "children": vec![format!("r{}", i + 1); 200]})
        })
        .collect();
    list.push(json!({"id": "r20", "component": "Text", "text": "x"}));
    let node = render(Value::Array(list));
    let text = serde_json::to_string(&node).unwrap();
    assert!(text.matches("\"kind\":").count() <= MAX_RENDER_NODES + 200 * 20);
    assert!(text.contains("Too many components to show"));
}

#[test]
fn unsupported_component_placeholder_cuts_name_to_40() {
    let node = root(json!({"component": "Modal"}));
    assert_eq!(
        node,
        RenderNode::Placeholder {
            reason: PlaceholderReason::UnsupportedComponent,
            text: "Unsupported component \"Modal\"".into(),
        }
    );
    let node = root(json!({"component": xs(64)}));
    assert!(
        matches!(node, RenderNode::Placeholder { ref text, .. } if *text == format!("Unsupported component \"{}\"", xs(40)))
    );
}

#[test]
fn divider_axis_vertical_else_horizontal() {
    assert!(matches!(
        root(json!({"component": "Divider", "axis": "vertical"})),
        RenderNode::Divider {
            axis: Axis::Vertical,
            ..
        }
    ));
    assert!(matches!(
        root(json!({"component": "Divider", "axis": "x"})),
        RenderNode::Divider {
            axis: Axis::Horizontal,
            ..
        }
    ));
}

#[test]
fn button_variant_child_and_action() {
    let node = render(
        json!([{"id": "root", "component": "Button", "child": "l", "variant": "borderless",
                              "action": {"event": {"name": "go"}}},
                             {"id": "l", "component": "Text", "text": "Go"}]),
    );
    let RenderNode::Button {
        child,
        variant,
        action,
        ..
    } = node
    else {
        panic!()
    };
    assert_eq!(variant, ButtonVariant::Borderless);
    assert!(matches!(*child, RenderNode::Text { ref text, .. } if text == "Go"));
    assert!(matches!(action, ActionState::Enabled { ref name, .. } if name == "go"));
    for (name, expected) in [
        ("primary", ButtonVariant::Primary),
        ("default", ButtonVariant::Default),
        ("x", ButtonVariant::Default),
    ] {
        let node = root(json!({"component": "Button", "variant": name}));
        assert!(matches!(node, RenderNode::Button { variant, .. } if variant == expected));
    }
}

#[test]
fn finished_task_disables_buttons_in_the_render() {
    let s = surface(
        json!([{"id": "root", "component": "Button", "child": "root", "action": {"event": {"name": "go"}}}]),
        json!({}),
    );
    let RenderNode::Button { action, .. } = s.render_with(&BTreeMap::new(), true) else {
        panic!()
    };
    assert_eq!(
        action,
        ActionState::Disabled {
            reason: "The task is finished".into()
        }
    );
}

#[test]
fn render_node_serialises_with_kind_tag_in_camel_case() {
    let node = root(json!({"component": "DateTimeInput", "value": "x"}));
    let value = serde_json::to_value(&node).unwrap();
    assert_eq!(value["kind"], json!("dateTimeInput"));
    assert_eq!(value["enableDate"], json!(true));
    let back: RenderNode = serde_json::from_value(value).unwrap();
    assert_eq!(back, node);
}
