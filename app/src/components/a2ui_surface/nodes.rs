//! Drawing a surface's [`RenderNode`] shape: containers, text, cards, dividers, tabs, buttons,
//! media and placeholders. The elements come from the shape; every value that can change is
//! read live from the surface's tree by the node's address.

use std::collections::BTreeMap;

use leptos::prelude::*;
use serde_json::{Map, Value};

use super::inputs::{check_box, choice_picker, date_time_input, slider, text_field};
use super::node_at;
use crate::ext::a2ui::{
    A2uiState, ActionState, Align, Axis, ButtonVariant, Direction, Justify, PlaceholderReason, RenderNode,
    RenderTab, TextVariant, action_message_parts, set_edit,
};

/// What every node of one surface shares; `Copy`.
#[derive(Clone, Copy)]
pub(super) struct Ctx {
    /// The surface's tree with the agent's model, the edits and the button states.
    pub tree: Memo<RenderNode>,
    /// The viewer's edits (pointer → value), sent only inside an action's context.
    pub edits: RwSignal<BTreeMap<String, Value>>,
    /// The task's folded state, for the surface's version at click time.
    pub folded: Memo<Option<A2uiState>>,
    pub surface_id: StoredValue<String>,
    /// The DOM id prefix of this surface.
    pub prefix: StoredValue<String>,
    pub on_action: Callback<Vec<Value>>,
    pub busy: Signal<bool>,
    /// The HTML level of each heading variant in this surface ([`super::shape::heading_levels`]).
    pub headings: Memo<[u8; 5]>,
}

impl Ctx {
    /// A value of the live node at `address`, or the default when the node is not (yet) there.
    pub fn live<T, F>(self, address: &[usize], read: F) -> Signal<T>
    where
        T: Clone + Default + Send + Sync + 'static,
        F: Fn(&RenderNode) -> Option<T> + Send + Sync + 'static,
    {
        let address = address.to_vec();
        Signal::derive(move || {
            self.tree
                .with(|t| node_at(t, &address).and_then(&read))
                .unwrap_or_default()
        })
    }

    /// The element id of the node at `address` (the same on the server and in the browser).
    pub fn dom_id(self, address: &[usize]) -> String {
        let path: Vec<String> = address.iter().map(usize::to_string).collect();
        self.prefix.with_value(|p| format!("{p}-n{}", path.join("-")))
    }

    /// Records an edit of `pointer`.
    pub fn edit(self, pointer: &str, value: Value) {
        self.edits.update(|e| {
            set_edit(e, pointer, value);
        });
    }

    /// Sends the action of the button at `address` when it is enabled right now.
    fn fire(self, address: &[usize], component_id: &str) {
        let enabled = self.tree.with_untracked(|t| match node_at(t, address) {
            Some(RenderNode::Button {
                action: ActionState::Enabled { name, context },
                ..
            }) => Some((name.clone(), context.clone())),
            _ => None,
        });
        let Some((name, context)) = enabled else {
            return;
        };
        let surface_id = self.surface_id.get_value();
        let version = self
            .folded
            .with_untracked(|s| s.as_ref().and_then(|s| s.surface(&surface_id)).map(|s| s.version));
        let Some(version) = version else {
            return;
        };
        let parts = action_parts(version, &surface_id, component_id, &name, &context);
        self.on_action.run(parts);
    }
}

/// The action message's parts as a list.
fn action_parts(
    version: crate::ext::a2ui::A2uiVersion,
    surface_id: &str,
    component_id: &str,
    name: &str,
    context: &Map<String, Value>,
) -> Vec<Value> {
    let now = super::now_iso();
    match action_message_parts(version, surface_id, component_id, name, context, &now) {
        Value::Array(parts) => parts,
        other => vec![other],
    }
}

/// The address of child `index` of the node at `address`.
pub(super) fn child_address(address: &[usize], index: usize) -> Vec<usize> {
    let mut child = address.to_vec();
    child.push(index);
    child
}

/// The view of `node` (a shape) at `address`; `inline` inside a button (text becomes spans).
pub(super) fn render_node(ctx: Ctx, node: &RenderNode, address: Vec<usize>, inline: bool) -> AnyView {
    match node {
        RenderNode::Text { variant, .. } => text(ctx, *variant, &address, inline),
        RenderNode::Row {
            children, justify, align, ..
        } => container(ctx, flex_class("a2ui-row", *justify, *align), children, &address, inline),
        RenderNode::Column {
            children, justify, align, ..
        } => container(ctx, flex_class("a2ui-column", *justify, *align), children, &address, inline),
        RenderNode::List {
            children,
            direction,
            align,
            ..
        } => list(ctx, children, *direction, *align, &address, inline),
        RenderNode::Card { child, .. } => {
            let child = render_node(ctx, child, child_address(&address, 0), inline);
            view! { <div class="a2ui-card">{child}</div> }.into_any()
        }
        RenderNode::Tabs { tabs, .. } => {
            view! { <Tabs ctx tabs=tabs.clone() address inline/> }.into_any()
        }
        RenderNode::Divider { axis, .. } => match axis {
            Axis::Horizontal => view! { <hr class="a2ui-divider"/> }.into_any(),
            Axis::Vertical => {
                view! { <hr class="a2ui-divider vertical" aria-orientation="vertical"/> }.into_any()
            }
        },
        RenderNode::Button {
            id, child, variant, ..
        } => button(ctx, id.clone(), child, *variant, address),
        RenderNode::TextField { variant, binding, .. } => {
            text_field(ctx, *variant, binding.clone(), &address)
        }
        RenderNode::CheckBox { binding, .. } => check_box(ctx, binding.clone(), &address),
        RenderNode::ChoicePicker {
            options,
            multiple,
            binding,
            ..
        } => choice_picker(ctx, options.clone(), *multiple, binding.clone(), &address),
        RenderNode::Slider { binding, .. } => slider(ctx, binding.clone(), &address),
        RenderNode::DateTimeInput {
            enable_date,
            enable_time,
            binding,
            ..
        } => date_time_input(ctx, (*enable_date, *enable_time), binding.clone(), &address),
        RenderNode::Image { url, description, .. } => {
            view! { <img class="a2ui-image" src=url.clone() alt=description.clone()/> }.into_any()
        }
        RenderNode::Video { url, .. } => {
            view! { <video class="a2ui-media" controls=true preload="metadata" src=url.clone()></video> }
                .into_any()
        }
        RenderNode::AudioPlayer { url, description, .. } => view! {
            <audio class="a2ui-media" controls=true preload="metadata" src=url.clone() aria-label=description.clone()></audio>
        }
        .into_any(),
        RenderNode::Placeholder { reason, text } => placeholder(*reason, text.clone()),
    }
}

/// Notices, "Waiting for the agent…" and inert placeholders.
fn placeholder(reason: PlaceholderReason, text: String) -> AnyView {
    match reason {
        PlaceholderReason::UnsupportedCatalog => {
            view! { <p class="a2ui-notice" data-testid="a2ui-notice" role="note">{text}</p> }.into_any()
        }
        PlaceholderReason::Waiting => {
            view! { <p class="a2ui-waiting muted" role="status">{text}</p> }.into_any()
        }
        _ => view! { <span class="a2ui-placeholder" data-testid="a2ui-placeholder">{text}</span> }.into_any(),
    }
}

/// A `Text`: `h1`..`h5`, a caption or body text; a span inside a button.
fn text(ctx: Ctx, variant: TextVariant, address: &[usize], inline: bool) -> AnyView {
    let value = ctx.live(address, |n| match n {
        RenderNode::Text { text, .. } => Some(text.clone()),
        _ => None,
    });
    if inline {
        return view! { <span class="a2ui-text">{value}</span> }.into_any();
    }
    // The agent's h1…h5 keep their look (the class); the element's level fits the page.
    let class = match variant {
        TextVariant::H1 => "a2ui-text a2ui-h1",
        TextVariant::H2 => "a2ui-text a2ui-h2",
        TextVariant::H3 => "a2ui-text a2ui-h3",
        TextVariant::H4 => "a2ui-text a2ui-h4",
        TextVariant::H5 => "a2ui-text a2ui-h5",
        TextVariant::Caption => return view! { <p class="a2ui-text a2ui-caption">{value}</p> }.into_any(),
        TextVariant::Body => return view! { <p class="a2ui-text">{value}</p> }.into_any(),
    };
    let level = super::shape::heading_index(variant)
        .map(|index| ctx.headings.with_untracked(|levels| levels[index]))
        .unwrap_or(6);
    crate::components::heading::heading(level, class, None, value)
}

/// `a2ui-row a2ui-justify-… a2ui-align-…`.
fn flex_class(base: &str, justify: Option<Justify>, align: Option<Align>) -> String {
    let mut class = base.to_owned();
    if let Some(justify) = justify {
        class.push_str(match justify {
            Justify::Start => " a2ui-justify-start",
            Justify::Center => " a2ui-justify-center",
            Justify::End => " a2ui-justify-end",
            Justify::SpaceBetween => " a2ui-justify-between",
            Justify::SpaceAround => " a2ui-justify-around",
            Justify::SpaceEvenly => " a2ui-justify-evenly",
            Justify::Stretch => " a2ui-justify-stretch",
        });
    }
    if let Some(align) = align {
        class.push_str(align_class(align));
    }
    class
}

fn align_class(align: Align) -> &'static str {
    match align {
        Align::Start => " a2ui-align-start",
        Align::Center => " a2ui-align-center",
        Align::End => " a2ui-align-end",
        Align::Stretch => " a2ui-align-stretch",
    }
}

/// A `Row` or `Column`.
fn container(ctx: Ctx, class: String, children: &[RenderNode], address: &[usize], inline: bool) -> AnyView {
    let children = children
        .iter()
        .enumerate()
        .map(|(i, child)| render_node(ctx, child, child_address(address, i), inline))
        .collect_view();
    view! { <div class=class>{children}</div> }.into_any()
}

/// A `List`: a list of its children, vertical unless `horizontal`.
fn list(
    ctx: Ctx,
    children: &[RenderNode],
    direction: Direction,
    align: Option<Align>,
    address: &[usize],
    inline: bool,
) -> AnyView {
    let mut class = "a2ui-list".to_owned();
    if direction == Direction::Horizontal {
        class.push_str(" horizontal");
    }
    if let Some(align) = align {
        class.push_str(align_class(align));
    }
    let items = children
        .iter()
        .enumerate()
        .map(|(i, child)| {
            let child = render_node(ctx, child, child_address(address, i), inline);
            view! { <div role="listitem" class="a2ui-list-item">{child}</div> }
        })
        .collect_view();
    view! { <div class=class role="list">{items}</div> }.into_any()
}

/// A `Button`: sends its action when enabled; when disabled it says why (tooltip and
/// screen-reader text).
fn button(ctx: Ctx, id: String, child: &RenderNode, variant: ButtonVariant, address: Vec<usize>) -> AnyView {
    let reason = ctx.live(&address, |n| match n {
        RenderNode::Button {
            action: ActionState::Disabled { reason },
            ..
        } => Some(Some(reason.clone())),
        _ => None,
    });
    let class = match variant {
        ButtonVariant::Default => "button a2ui-button",
        ButtonVariant::Primary => "button primary a2ui-button",
        ButtonVariant::Borderless => "button subtle a2ui-button",
    };
    let label = render_node(ctx, child, child_address(&address, 0), true);
    let component_id = id.clone();
    view! {
        <button
            type="button"
            class=class
            data-testid="a2ui-button"
            data-component-id=id
            disabled=move || reason.with(Option::is_some) || ctx.busy.get()
            title=move || reason.get()
            on:click=move |_| ctx.fire(&address, &component_id)
        >
            {label}
            {move || reason.get().map(|r| view! { <span class="visually-hidden">{format!(" ({r})")}</span> })}
        </button>
    }
    .into_any()
}

/// `Tabs`: a tab list (arrow keys, Home and End move between tabs) and one panel per tab.
#[component]
fn Tabs(ctx: Ctx, tabs: Vec<RenderTab>, address: Vec<usize>, inline: bool) -> impl IntoView {
    let selected = RwSignal::new(0_usize);
    let count = tabs.len();
    let refs: Vec<NodeRef<leptos::html::Button>> = (0..count).map(|_| NodeRef::new()).collect();
    let base = ctx.dom_id(&address);
    let keys = refs.clone();
    let on_keydown = move |ev: leptos::ev::KeyboardEvent| {
        let current = selected.get_untracked();
        let next = match ev.key().as_str() {
            "ArrowRight" | "ArrowDown" => (current + 1) % count.max(1),
            "ArrowLeft" | "ArrowUp" => (current + count.max(1) - 1) % count.max(1),
            "Home" => 0,
            "End" => count.saturating_sub(1),
            _ => return,
        };
        ev.prevent_default();
        selected.set(next);
        if let Some(node) = keys.get(next) {
            focus(*node);
        }
    };
    let tab_buttons = tabs
        .iter()
        .enumerate()
        .map(|(i, tab)| {
            let is_selected = move || selected.get() == i;
            view! {
                <button
                    type="button"
                    role="tab"
                    class="a2ui-tab"
                    id=format!("{base}-tab{i}")
                    aria-controls=format!("{base}-panel{i}")
                    aria-selected=move || is_selected().to_string()
                    tabindex=move || if is_selected() { "0" } else { "-1" }
                    node_ref=refs[i]
                    on:click=move |_| selected.set(i)
                >
                    {tab.title.clone()}
                </button>
            }
        })
        .collect_view();
    let panels = tabs
        .iter()
        .enumerate()
        .map(|(i, tab)| {
            let child = render_node(ctx, &tab.child, child_address(&address, i), inline);
            view! {
                <div
                    role="tabpanel"
                    class="a2ui-tabpanel"
                    id=format!("{base}-panel{i}")
                    aria-labelledby=format!("{base}-tab{i}")
                    tabindex="0"
                    hidden=move || selected.get() != i
                >
                    {child}
                </div>
            }
        })
        .collect_view();
    view! {
        <div class="a2ui-tabs">
            <div role="tablist" class="a2ui-tablist" on:keydown=on_keydown>{tab_buttons}</div>
            {panels}
        </div>
    }
}

/// Moves the keyboard focus to a tab.
fn focus(node: NodeRef<leptos::html::Button>) {
    #[cfg(feature = "hydrate")]
    if let Some(element) = node.get_untracked() {
        // Focus cannot fail on a connected button; nothing to report if it does.
        let _ = element.focus();
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = node;
}
