//! The render-model types of A2UI (§1.4 "Rendering rules"): the [`RenderNode`] tree, its option and
//! variant enumerations, and the placeholder texts. Plain serialisable data, built by
//! `a2ui/render.rs` and walked by the Leptos view; no string in it is ever HTML.

use serde::{Deserialize, Serialize};

use super::action::ActionState;

/// Text of the placeholder for `children` given as a template (§1.4).
pub const UNSUPPORTED_CHILDREN_TEXT: &str = "Unsupported children";
/// Text of the placeholder for a node deeper than [`MAX_DEPTH`](super::MAX_DEPTH).
pub const TOO_DEEP_TEXT: &str = "Nested too deeply";
/// Text of the placeholder for a component that contains itself.
pub const CYCLE_TEXT: &str = "Circular reference";
/// Text of the placeholder once [`MAX_RENDER_NODES`](super::MAX_RENDER_NODES) nodes are rendered.
pub const TOO_MANY_NODES_TEXT: &str = "Too many components to show";
/// Text of the placeholder for media that is not an inline `data:` URL of the right kind.
pub const MEDIA_NOT_INLINE_TEXT: &str = "Media not shown: only inline media is displayed";

/// One node of the rendered tree. `id` is the component id.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "kind", rename_all_fields = "camelCase")]
pub enum RenderNode {
    /// Plain text (≤ 5,000 chars).
    Text {
        id: String,
        text: String,
        variant: TextVariant,
    },
    /// A horizontal container.
    Row {
        id: String,
        children: Vec<RenderNode>,
        justify: Option<Justify>,
        align: Option<Align>,
    },
    /// A vertical container.
    Column {
        id: String,
        children: Vec<RenderNode>,
        justify: Option<Justify>,
        align: Option<Align>,
    },
    /// A scrolling list (beyond the original).
    List {
        id: String,
        children: Vec<RenderNode>,
        direction: Direction,
        align: Option<Align>,
    },
    /// A card around one child.
    Card { id: String, child: Box<RenderNode> },
    /// Tabs (beyond the original).
    Tabs { id: String, tabs: Vec<RenderTab> },
    /// A rule.
    Divider { id: String, axis: Axis },
    /// A button; `action` says whether it is clickable and what it sends.
    Button {
        id: String,
        child: Box<RenderNode>,
        variant: ButtonVariant,
        action: ActionState,
    },
    /// A text input; editable when `binding` is set.
    TextField {
        id: String,
        label: String,
        value: String,
        variant: TextFieldVariant,
        binding: Option<String>,
    },
    /// A checkbox; editable when `binding` is set.
    CheckBox {
        id: String,
        label: String,
        value: bool,
        binding: Option<String>,
    },
    /// Checkboxes (`multiple`) or radios; editable when `binding` is set.
    ChoicePicker {
        id: String,
        label: String,
        options: Vec<ChoiceOption>,
        selected: Vec<String>,
        multiple: bool,
        binding: Option<String>,
    },
    /// A slider (beyond the original); editable when `binding` is set.
    Slider {
        id: String,
        label: String,
        min: f64,
        max: f64,
        value: f64,
        binding: Option<String>,
    },
    /// A date/time input (beyond the original); editable when `binding` is set.
    DateTimeInput {
        id: String,
        label: String,
        value: String,
        enable_date: bool,
        enable_time: bool,
        binding: Option<String>,
    },
    /// An image from an inline `data:image/…` URL.
    Image {
        id: String,
        url: String,
        description: String,
    },
    /// A video from an inline `data:video/…` URL.
    Video { id: String, url: String },
    /// Audio from an inline `data:audio/…` URL.
    AudioPlayer {
        id: String,
        url: String,
        description: String,
    },
    /// An inert placeholder (missing, unsupported, too deep, …).
    Placeholder { reason: PlaceholderReason, text: String },
}

/// One tab: a title and its content.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RenderTab {
    /// Plain-text title.
    pub title: String,
    /// The tab content.
    pub child: RenderNode,
}

/// One choice option (`value` is always a string, §1.4).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChoiceOption {
    /// The stored value.
    pub value: String,
    /// Plain-text label (the value when the label does not resolve).
    pub label: String,
}

/// `Text.variant` (§1.4: `h1`..`h5`, `caption`, else `body`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum TextVariant {
    /// `h1`.
    H1,
    /// `h2`.
    H2,
    /// `h3`.
    H3,
    /// `h4`.
    H4,
    /// `h5`.
    H5,
    /// `caption`.
    Caption,
    /// `body`, also for any other value.
    Body,
}

/// `Row`/`Column` `justify` (§1.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Justify {
    /// `start`.
    Start,
    /// `center`.
    Center,
    /// `end`.
    End,
    /// `spaceBetween`.
    SpaceBetween,
    /// `spaceAround`.
    SpaceAround,
    /// `spaceEvenly`.
    SpaceEvenly,
    /// `stretch`.
    Stretch,
}

/// `Row`/`Column`/`List` `align` (§1.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Align {
    /// `start`.
    Start,
    /// `center`.
    Center,
    /// `end`.
    End,
    /// `stretch`.
    Stretch,
}

/// `Divider.axis` (§1.4: `vertical`, else horizontal).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Axis {
    /// Any value but `vertical`.
    Horizontal,
    /// `vertical`.
    Vertical,
}

/// `List.direction` (`horizontal`, else vertical).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Direction {
    /// Any value but `horizontal`.
    Vertical,
    /// `horizontal`.
    Horizontal,
}

/// `Button.variant` (§1.4: `primary`, `borderless`, else default).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ButtonVariant {
    /// Any value but the two below.
    Default,
    /// `primary`.
    Primary,
    /// `borderless`.
    Borderless,
}

/// `TextField.variant` (§1.4: `longText`, `obscured`, `number`, else text).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum TextFieldVariant {
    /// Any value but the three below.
    Text,
    /// `longText`.
    LongText,
    /// `obscured`.
    Obscured,
    /// `number`.
    Number,
}

/// Why a placeholder stands where content would be.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum PlaceholderReason {
    /// No root component yet (or v0.8 before `beginRendering`).
    Waiting,
    /// The surface's catalog is not rendered.
    UnsupportedCatalog,
    /// A referenced component id does not exist.
    MissingComponent,
    /// Deeper than [`MAX_DEPTH`](super::MAX_DEPTH).
    TooDeep,
    /// A component that contains itself.
    Cycle,
    /// The render budget ([`MAX_RENDER_NODES`](super::MAX_RENDER_NODES)) is spent.
    TooManyNodes,
    /// Template children.
    UnsupportedChildren,
    /// A component type outside the supported set.
    UnsupportedComponent,
    /// Media that is not an inline `data:` URL of its kind.
    MediaNotInline,
}
