//! The pure parts of the A2UI view: the structure of a [`RenderNode`] tree without its
//! changing values (so the DOM is rebuilt only when the structure changes), node addresses,
//! and DOM id tokens that are the same on the server and in the browser.

use crate::ext::a2ui::{ActionState, RenderNode};

/// `node` with every value an edit or a model update may change blanked: texts, labels, input
/// values, selections, slider bounds and button states. Two trees with the same shape render
/// the same elements; the blanked values are read live by address.
pub fn shape_of(node: &RenderNode) -> RenderNode {
    let mut shape = node.clone();
    blank(&mut shape);
    shape
}

fn blank(node: &mut RenderNode) {
    match node {
        RenderNode::Text { text, .. } => text.clear(),
        RenderNode::Row { children, .. }
        | RenderNode::Column { children, .. }
        | RenderNode::List { children, .. } => children.iter_mut().for_each(blank),
        RenderNode::Card { child, .. } => blank(child),
        RenderNode::Tabs { tabs, .. } => tabs.iter_mut().for_each(|t| blank(&mut t.child)),
        RenderNode::Button { child, action, .. } => {
            blank(child);
            *action = ActionState::Disabled {
                reason: String::new(),
            };
        }
        RenderNode::TextField { label, value, .. } | RenderNode::DateTimeInput { label, value, .. } => {
            label.clear();
            value.clear();
        }
        RenderNode::CheckBox { label, value, .. } => {
            label.clear();
            *value = false;
        }
        RenderNode::ChoicePicker { label, selected, .. } => {
            label.clear();
            selected.clear();
        }
        RenderNode::Slider {
            label,
            min,
            max,
            value,
            ..
        } => {
            label.clear();
            (*min, *max, *value) = (0.0, 0.0, 0.0);
        }
        RenderNode::Divider { .. }
        | RenderNode::Image { .. }
        | RenderNode::Video { .. }
        | RenderNode::AudioPlayer { .. }
        | RenderNode::Placeholder { .. } => {}
    }
}

/// The HTML heading level of each A2UI heading variant (`h1`…`h5`) in a surface under a
/// section whose headings start at `base`: the variants the surface uses, in order, take
/// `base`, `base + 1`, … (at most 6), so its headings never skip a level whatever the agent
/// chose (issue #32).
pub fn heading_levels(node: &RenderNode, base: u8) -> [u8; 5] {
    let mut used = [false; 5];
    mark_headings(node, &mut used);
    let mut levels = [base; 5];
    let mut next = base;
    for (index, used) in used.into_iter().enumerate() {
        levels[index] = next.min(6);
        if used {
            next += 1;
        }
    }
    levels
}

/// The index (0 for `h1` … 4 for `h5`) of a heading variant.
pub fn heading_index(variant: crate::ext::a2ui::TextVariant) -> Option<usize> {
    use crate::ext::a2ui::TextVariant;
    match variant {
        TextVariant::H1 => Some(0),
        TextVariant::H2 => Some(1),
        TextVariant::H3 => Some(2),
        TextVariant::H4 => Some(3),
        TextVariant::H5 => Some(4),
        _ => None,
    }
}

fn mark_headings(node: &RenderNode, used: &mut [bool; 5]) {
    match node {
        RenderNode::Text { variant, .. } => {
            if let Some(index) = heading_index(*variant) {
                used[index] = true;
            }
        }
        RenderNode::Row { children, .. }
        | RenderNode::Column { children, .. }
        | RenderNode::List { children, .. } => children.iter().for_each(|c| mark_headings(c, used)),
        // A button's text is inline, never a heading.
        RenderNode::Card { child, .. } => mark_headings(child, used),
        RenderNode::Tabs { tabs, .. } => tabs.iter().for_each(|t| mark_headings(&t.child, used)),
        _ => {}
    }
}

/// The node at `address` below `node`: each step is a child index (a container's children, a
/// tab's content, `0` for a card's or a button's child).
pub fn node_at<'a>(node: &'a RenderNode, address: &[usize]) -> Option<&'a RenderNode> {
    let Some((&first, rest)) = address.split_first() else {
        return Some(node);
    };
    let child = match node {
        RenderNode::Row { children, .. }
        | RenderNode::Column { children, .. }
        | RenderNode::List { children, .. } => children.get(first)?,
        RenderNode::Tabs { tabs, .. } => &tabs.get(first)?.child,
        RenderNode::Card { child, .. } | RenderNode::Button { child, .. } if first == 0 => child,
        _ => return None,
    };
    node_at(child, rest)
}

/// Longest readable part of a [`dom_token`].
const TOKEN_CHARS: usize = 24;

/// A token safe in an HTML id for any agent string: its ASCII letters, digits, `-` and `_`
/// (others become `-`, at most 24) and an FNV-1a hash of the whole string, so different
/// strings never share a token in practice.
pub fn dom_token(raw: &str) -> String {
    let readable: String = raw
        .chars()
        .take(TOKEN_CHARS)
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    let hash = raw.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("{readable}-{:08x}", hash as u32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ext::a2ui::{Justify, TextVariant};

    fn text(id: &str, text: &str) -> RenderNode {
        RenderNode::Text {
            id: id.into(),
            text: text.into(),
            variant: TextVariant::Body,
        }
    }

    fn column(children: Vec<RenderNode>) -> RenderNode {
        RenderNode::Column {
            id: "col".into(),
            children,
            justify: Some(Justify::Start),
            align: None,
        }
    }

    #[test]
    fn the_shape_ignores_values_but_not_structure() {
        let a = column(vec![text("t", "one")]);
        let b = column(vec![text("t", "two")]);
        assert_eq!(shape_of(&a), shape_of(&b));
        let c = column(vec![text("t", "one"), text("u", "x")]);
        assert_ne!(shape_of(&a), shape_of(&c));
        let field = |value: &str| RenderNode::TextField {
            id: "f".into(),
            label: "Reason".into(),
            value: value.into(),
            variant: crate::ext::a2ui::TextFieldVariant::Text,
            binding: Some("/reason".into()),
        };
        assert_eq!(shape_of(&field("a")), shape_of(&field("ab")));
    }

    /// Issue #32 (axe `heading-order`): a surface that uses `h3` and `h5` under a section whose
    /// headings start at `h2` gets `h2` and `h3`; unused variants never leave a gap.
    #[test]
    fn heading_levels_start_at_the_section_and_never_skip() {
        let heading = |variant| RenderNode::Text {
            id: "h".into(),
            text: "Title".into(),
            variant,
        };
        let surface = column(vec![
            heading(TextVariant::H3),
            text("b", "body"),
            heading(TextVariant::H5),
        ]);
        let levels = heading_levels(&surface, 2);
        assert_eq!(levels[heading_index(TextVariant::H3).unwrap()], 2);
        assert_eq!(levels[heading_index(TextVariant::H5).unwrap()], 3);
        assert_eq!(heading_levels(&surface, 3)[4], 4);
        let deep = column(vec![
            heading(TextVariant::H1),
            heading(TextVariant::H2),
            heading(TextVariant::H3),
            heading(TextVariant::H4),
            heading(TextVariant::H5),
        ]);
        assert_eq!(heading_levels(&deep, 3), [3, 4, 5, 6, 6]);
        assert_eq!(heading_index(TextVariant::Body), None);
    }

    #[test]
    fn addresses_follow_children_and_single_children() {
        let button = RenderNode::Button {
            id: "b".into(),
            child: Box::new(text("label", "Go")),
            variant: crate::ext::a2ui::ButtonVariant::Primary,
            action: ActionState::Disabled { reason: "r".into() },
        };
        let card = RenderNode::Card {
            id: "card".into(),
            child: Box::new(column(vec![text("t", "one"), button])),
        };
        assert_eq!(node_at(&card, &[]), Some(&card));
        assert!(matches!(node_at(&card, &[0, 0]), Some(RenderNode::Text { text, .. }) if text == "one"));
        assert!(matches!(node_at(&card, &[0, 1, 0]), Some(RenderNode::Text { text, .. }) if text == "Go"));
        assert_eq!(node_at(&card, &[1]), None);
        assert_eq!(node_at(&card, &[0, 5]), None);
        assert_eq!(node_at(&text("t", "x"), &[0]), None);
    }

    #[test]
    fn dom_tokens_are_safe_and_distinct() {
        let token = dom_token("a b\"<c>");
        assert!(
            token
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'),
            "{token}"
        );
        assert_ne!(dom_token("a b"), dom_token("a-b"));
        assert_eq!(dom_token("x"), dom_token("x"));
        assert!(dom_token(&"y".repeat(500)).len() < 40);
    }
}
