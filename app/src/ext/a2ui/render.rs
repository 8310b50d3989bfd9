//! The render-ready A2UI model (§1.4 "Rendering rules"): [`RenderNode`] trees built from a surface's
//! components, its model and the viewer's edits. Containers and placeholders live here, leaf
//! components in `a2ui/render_inputs.rs`. Every string is plain text; no URL except inline media.

use std::collections::BTreeMap;

use serde_json::Value;

use super::action::action_state;
use super::model::{Component, Surface};
use super::render_types::{
    Align, Axis, ButtonVariant, CYCLE_TEXT, Direction, Justify, PlaceholderReason, RenderNode, RenderTab,
    TOO_DEEP_TEXT, TOO_MANY_NODES_TEXT, UNSUPPORTED_CHILDREN_TEXT,
};
use super::text::truncate_utf16;
use super::{
    MAX_CHILDREN, MAX_DEPTH, MAX_RENDER_NODES, UNSUPPORTED_CATALOG_NOTICE, UNSUPPORTED_NAME_CHARS,
    WAITING_TEXT,
};

/// A placeholder node.
pub(crate) fn placeholder(reason: PlaceholderReason, text: &str) -> RenderNode {
    RenderNode::Placeholder {
        reason,
        text: text.to_string(),
    }
}

/// `<prefix> "<name cut to 40 chars>"`.
fn named(prefix: &str, name: &str) -> String {
    format!("{prefix} \"{}\"", truncate_utf16(name, UNSUPPORTED_NAME_CHARS))
}

impl Surface {
    /// The tree as the agent sent it (no edits, task running). See [`Surface::render_with`].
    pub fn render(&self) -> RenderNode {
        self.render_with(&BTreeMap::new(), false)
    }

    /// The tree from the root component: the unsupported-catalog notice, "Waiting for the agent…"
    /// without a root (v0.8: before `beginRendering`), else the walked components with `edits`
    /// laid over the model and button states for a task that is (not) `task_finished`.
    pub fn render_with(&self, edits: &BTreeMap<String, Value>, task_finished: bool) -> RenderNode {
        if !self.supported {
            return placeholder(PlaceholderReason::UnsupportedCatalog, UNSUPPORTED_CATALOG_NOTICE);
        }
        match self
            .root
            .as_deref()
            .filter(|root| self.components.contains_key(*root))
        {
            Some(root) => Walker::new(self, edits, task_finished).node(root, 0),
            None => placeholder(PlaceholderReason::Waiting, WAITING_TEXT),
        }
    }
}

/// One render pass: the ancestors on the current path (for cycles) and the node budget.
pub(crate) struct Walker<'a> {
    pub(crate) surface: &'a Surface,
    pub(crate) edits: &'a BTreeMap<String, Value>,
    task_finished: bool,
    ancestors: Vec<&'a str>,
    budget: usize,
}

impl<'a> Walker<'a> {
    /// A fresh pass over `surface`.
    fn new(surface: &'a Surface, edits: &'a BTreeMap<String, Value>, task_finished: bool) -> Self {
        Walker {
            surface,
            edits,
            task_finished,
            ancestors: Vec::new(),
            budget: MAX_RENDER_NODES,
        }
    }

    /// The node for component `id` at `depth` (root = 0), or a placeholder.
    fn node(&mut self, id: &'a str, depth: usize) -> RenderNode {
        if self.budget == 0 {
            return placeholder(PlaceholderReason::TooManyNodes, TOO_MANY_NODES_TEXT);
        }
        self.budget -= 1;
        if self.ancestors.contains(&id) {
            return placeholder(PlaceholderReason::Cycle, CYCLE_TEXT);
        }
        if depth > MAX_DEPTH {
            return placeholder(PlaceholderReason::TooDeep, TOO_DEEP_TEXT);
        }
        let Some(component) = self.surface.components.get(id) else {
            return placeholder(
                PlaceholderReason::MissingComponent,
                &named("Missing component", id),
            );
        };
        self.ancestors.push(id);
        let node = self.component(component, depth);
        self.ancestors.pop();
        node
    }

    /// A child reference (a component id string) at `depth`.
    fn child(&mut self, reference: Option<&'a Value>, depth: usize) -> RenderNode {
        match reference {
            Some(Value::String(id)) => self.node(id, depth),
            _ => placeholder(
                PlaceholderReason::MissingComponent,
                &named("Missing component", ""),
            ),
        }
    }

    /// A `children` list: up to 200 ids; a template (or any non-list) is "Unsupported children".
    fn children(&mut self, children: Option<&'a Value>, depth: usize) -> Vec<RenderNode> {
        match children {
            None => Vec::new(),
            Some(Value::Array(ids)) => ids
                .iter()
                .take(MAX_CHILDREN)
                .map(|id| self.child(Some(id), depth))
                .collect(),
            Some(_) => vec![placeholder(
                PlaceholderReason::UnsupportedChildren,
                UNSUPPORTED_CHILDREN_TEXT,
            )],
        }
    }

    /// Dispatch on the component type.
    fn component(&mut self, component: &'a Component, depth: usize) -> RenderNode {
        let id = component.id.clone();
        let props = &component.props;
        let str_prop = |key: &str| props.get(key).and_then(Value::as_str);
        match component.component.as_str() {
            kind @ ("Row" | "Column") => {
                let children = self.children(props.get("children"), depth + 1);
                let (justify, align) = (justify(str_prop("justify")), align(str_prop("align")));
                if kind == "Row" {
                    RenderNode::Row {
                        id,
                        children,
                        justify,
                        align,
                    }
                } else {
                    RenderNode::Column {
                        id,
                        children,
                        justify,
                        align,
                    }
                }
            }
            "List" => RenderNode::List {
                id,
                children: self.children(props.get("children"), depth + 1),
                direction: if str_prop("direction") == Some("horizontal") {
                    Direction::Horizontal
                } else {
                    Direction::Vertical
                },
                align: align(str_prop("align")),
            },
            "Card" => RenderNode::Card {
                id,
                child: Box::new(self.child(props.get("child"), depth + 1)),
            },
            "Tabs" => RenderNode::Tabs {
                id,
                tabs: self.tabs(props.get("tabs"), depth + 1),
            },
            "Divider" => {
                let axis = if str_prop("axis") == Some("vertical") {
                    Axis::Vertical
                } else {
                    Axis::Horizontal
                };
                RenderNode::Divider { id, axis }
            }
            "Button" => self.button(component, depth),
            _ => self.leaf(component),
        }
    }

    /// `tabs:[{title, child}]`, up to 200.
    fn tabs(&mut self, tabs: Option<&'a Value>, depth: usize) -> Vec<RenderTab> {
        let Some(Value::Array(tabs)) = tabs else {
            return Vec::new();
        };
        tabs.iter()
            .take(MAX_CHILDREN)
            .map(|tab| RenderTab {
                title: self.text(tab.get("title")),
                child: self.child(tab.get("child"), depth),
            })
            .collect()
    }

    /// A button with its child and action state.
    fn button(&mut self, component: &'a Component, depth: usize) -> RenderNode {
        let variant = match component.props.get("variant").and_then(Value::as_str) {
            Some("primary") => ButtonVariant::Primary,
            Some("borderless") => ButtonVariant::Borderless,
            _ => ButtonVariant::Default,
        };
        let action = action_state(component, self.surface, self.edits, self.task_finished);
        let child = Box::new(self.child(component.props.get("child"), depth + 1));
        RenderNode::Button {
            id: component.id.clone(),
            child,
            variant,
            action,
        }
    }

    /// The placeholder for a type this console does not render.
    pub(crate) fn unsupported(name: &str) -> RenderNode {
        placeholder(
            PlaceholderReason::UnsupportedComponent,
            &named("Unsupported component", name),
        )
    }
}

/// `justify`, when it is one of the seven values.
fn justify(value: Option<&str>) -> Option<Justify> {
    Some(match value? {
        "start" => Justify::Start,
        "center" => Justify::Center,
        "end" => Justify::End,
        "spaceBetween" => Justify::SpaceBetween,
        "spaceAround" => Justify::SpaceAround,
        "spaceEvenly" => Justify::SpaceEvenly,
        "stretch" => Justify::Stretch,
        _ => return None,
    })
}

/// `align`, when it is one of the four values.
fn align(value: Option<&str>) -> Option<Align> {
    Some(match value? {
        "start" => Align::Start,
        "center" => Align::Center,
        "end" => Align::End,
        "stretch" => Align::Stretch,
        _ => return None,
    })
}

#[cfg(test)]
mod tests;
