//! Leaf A2UI components for the render model (§1.4 and, beyond it, `Slider`, `DateTimeInput` and
//! inline-only media): values are resolved with the edit overlay, strings are cut and kept plain,
//! inputs carry their binding pointer, and media keeps a URL only when it is an inline `data:` URL.

use serde_json::{Map, Value};

use super::action::{binding, resolve};
use super::model::Component;
use super::render::{Walker, placeholder};
use super::render_types::{
    ChoiceOption, MEDIA_NOT_INLINE_TEXT, PlaceholderReason, RenderNode, TextFieldVariant, TextVariant,
};
use super::text::{scalar_text, truncate_utf16};
use super::{MAX_CHOICE_OPTIONS, MAX_TEXT_CHARS};

/// `Slider.min` when it does not resolve to a number.
pub const SLIDER_DEFAULT_MIN: f64 = 0.0;
/// `Slider.max` when it does not resolve to a number.
pub const SLIDER_DEFAULT_MAX: f64 = 100.0;

impl Walker<'_> {
    /// A value resolved to display text (≤ 5,000 chars), empty when it does not resolve.
    pub(crate) fn text(&self, value: Option<&Value>) -> String {
        let text = self
            .resolved(value)
            .as_ref()
            .and_then(scalar_text)
            .unwrap_or_default();
        truncate_utf16(&text, MAX_TEXT_CHARS)
    }

    /// A value resolved against the surface model and the edits.
    fn resolved(&self, value: Option<&Value>) -> Option<Value> {
        resolve(value?, &self.surface.model, self.edits)
    }

    /// A value resolved to a boolean, else `default`.
    fn flag(&self, value: Option<&Value>, default: bool) -> bool {
        self.resolved(value).and_then(|v| v.as_bool()).unwrap_or(default)
    }

    /// A value resolved to a number, else `default`.
    fn number(&self, value: Option<&Value>, default: f64) -> f64 {
        self.resolved(value).and_then(|v| v.as_f64()).unwrap_or(default)
    }

    /// The leaf components; any other type is an "Unsupported component" placeholder.
    pub(crate) fn leaf(&self, component: &Component) -> RenderNode {
        let id = component.id.clone();
        let props = &component.props;
        let label = self.text(props.get("label"));
        let binding = props.get("value").and_then(binding).map(str::to_string);
        match component.component.as_str() {
            "Text" => RenderNode::Text {
                id,
                text: self.text(props.get("text")),
                variant: text_variant(props),
            },
            "TextField" => RenderNode::TextField {
                id,
                label,
                value: self.text(props.get("value")),
                variant: text_field_variant(props),
                binding,
            },
            "CheckBox" => RenderNode::CheckBox {
                id,
                label,
                value: self.flag(props.get("value"), false),
                binding,
            },
            "ChoicePicker" => self.choice_picker(id, label, props, binding),
            "Slider" => {
                let min = self.number(props.get("min"), SLIDER_DEFAULT_MIN);
                let max = self.number(props.get("max"), SLIDER_DEFAULT_MAX);
                let value = self.number(props.get("value"), min);
                RenderNode::Slider {
                    id,
                    label,
                    min,
                    max,
                    value,
                    binding,
                }
            }
            "DateTimeInput" => RenderNode::DateTimeInput {
                id,
                label,
                value: self.text(props.get("value")),
                enable_date: self.flag(props.get("enableDate"), true),
                enable_time: self.flag(props.get("enableTime"), false),
                binding,
            },
            "Image" | "Video" | "AudioPlayer" => self.media(component),
            other => Walker::unsupported(other),
        }
    }

    /// A `ChoicePicker`: up to 50 options with string values; `multipleSelection` → checkboxes.
    fn choice_picker(
        &self,
        id: String,
        label: String,
        props: &Map<String, Value>,
        binding: Option<String>,
    ) -> RenderNode {
        let options = match props.get("options") {
            Some(Value::Array(options)) => options
                .iter()
                .take(MAX_CHOICE_OPTIONS)
                .filter_map(|o| self.option(o))
                .collect(),
            _ => Vec::new(),
        };
        let selected = match self.resolved(props.get("value")) {
            Some(Value::Array(values)) => values
                .iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect(),
            Some(Value::String(value)) => vec![value],
            _ => Vec::new(),
        };
        let multiple = props.get("variant").and_then(Value::as_str) == Some("multipleSelection");
        RenderNode::ChoicePicker {
            id,
            label,
            options,
            selected,
            multiple,
            binding,
        }
    }

    /// One `{value, label}` option; a non-string value drops it, a missing label shows the value.
    fn option(&self, option: &Value) -> Option<ChoiceOption> {
        let value = option.get("value")?.as_str()?.to_string();
        let label = match self.text(option.get("label")) {
            label if label.is_empty() => truncate_utf16(&value, MAX_TEXT_CHARS),
            label => label,
        };
        Some(ChoiceOption { value, label })
    }

    /// `Image`/`Video`/`AudioPlayer` from an inline `data:` URL of the matching kind only.
    fn media(&self, component: &Component) -> RenderNode {
        let props = &component.props;
        let (family, name) = match component.component.as_str() {
            "Image" => ("image", "Image"),
            "Video" => ("video", "Video"),
            _ => ("audio", "AudioPlayer"),
        };
        let url = self
            .resolved(props.get("url"))
            .and_then(|u| u.as_str().map(str::to_string));
        let Some(url) = url.filter(|u| is_inline_media(u, family)) else {
            return placeholder(PlaceholderReason::MediaNotInline, MEDIA_NOT_INLINE_TEXT);
        };
        let id = component.id.clone();
        let description = self.text(props.get("description"));
        match name {
            "Image" => RenderNode::Image { id, url, description },
            "Video" => RenderNode::Video { id, url },
            _ => RenderNode::AudioPlayer { id, url, description },
        }
    }
}

/// Whether `url` is `data:<family>/<subtype>[;…],…` (case-insensitive scheme and type). SVG images
/// are refused too: they are documents, not pictures.
pub fn is_inline_media(url: &str, family: &str) -> bool {
    let Some(rest) = url
        .get(..5)
        .filter(|scheme| scheme.eq_ignore_ascii_case("data:"))
        .and(url.get(5..))
    else {
        return false;
    };
    let Some((meta, _)) = rest.split_once(',') else {
        return false;
    };
    let media_type = meta
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    let Some((top, sub)) = media_type.split_once('/') else {
        return false;
    };
    let token = |s: &str| {
        !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"!#$&-^_.+".contains(&b))
    };
    top == family && token(sub) && media_type != "image/svg+xml"
}

/// `Text.variant`: `h1`..`h5`, `caption`, else body.
fn text_variant(props: &Map<String, Value>) -> TextVariant {
    match props.get("variant").and_then(Value::as_str) {
        Some("h1") => TextVariant::H1,
        Some("h2") => TextVariant::H2,
        Some("h3") => TextVariant::H3,
        Some("h4") => TextVariant::H4,
        Some("h5") => TextVariant::H5,
        Some("caption") => TextVariant::Caption,
        _ => TextVariant::Body,
    }
}

/// `TextField.variant`: `longText`, `obscured`, `number`, else text.
fn text_field_variant(props: &Map<String, Value>) -> TextFieldVariant {
    match props.get("variant").and_then(Value::as_str) {
        Some("longText") => TextFieldVariant::LongText,
        Some("obscured") => TextFieldVariant::Obscured,
        Some("number") => TextFieldVariant::Number,
        _ => TextFieldVariant::Text,
    }
}

#[cfg(test)]
mod tests;
