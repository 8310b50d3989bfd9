//! The editable A2UI components: `TextField`, `CheckBox`, `ChoicePicker`, `Slider` and
//! `DateTimeInput`. Each is labelled; it is editable only when its value is bound to a path
//! (§1.4), and a change writes into the surface's edit overlay, never to the agent.

use leptos::prelude::*;
use serde_json::Value;

use super::nodes::Ctx;
use crate::ext::a2ui::{ChoiceOption, RenderNode, TextFieldVariant};
use crate::ext::canonical::js_number_string;

/// Largest integer a JavaScript number holds exactly (2^53 − 1).
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// The edit a number-like input records: a JSON number when the text is one (whole numbers
/// without a fraction, as JavaScript prints them), else the text.
pub(super) fn number_edit(text: &str) -> Value {
    let Some(n) = text.trim().parse::<f64>().ok().filter(|n| n.is_finite()) else {
        return Value::String(text.to_owned());
    };
    if n.fract() == 0.0 && n.abs() <= MAX_SAFE_INTEGER {
        return Value::from(n as i64);
    }
    serde_json::Number::from_f64(n).map_or_else(|| Value::String(text.to_owned()), Value::Number)
}

/// The `<input type>` of a date/time input with these flags (date only when neither is set).
pub(super) fn date_time_type(enable_date: bool, enable_time: bool) -> &'static str {
    match (enable_date, enable_time) {
        (true, true) => "datetime-local",
        (false, true) => "time",
        _ => "date",
    }
}

/// The live label of any input node.
fn label_of(ctx: Ctx, address: &[usize]) -> Signal<String> {
    ctx.live(address, |n| match n {
        RenderNode::TextField { label, .. }
        | RenderNode::CheckBox { label, .. }
        | RenderNode::ChoicePicker { label, .. }
        | RenderNode::Slider { label, .. }
        | RenderNode::DateTimeInput { label, .. } => Some(label.clone()),
        _ => None,
    })
}

/// A `TextField`: text, long text (a text area), obscured (a password box) or a number.
pub(super) fn text_field(
    ctx: Ctx,
    variant: TextFieldVariant,
    binding: Option<String>,
    address: &[usize],
) -> AnyView {
    let id = ctx.dom_id(address);
    let label = label_of(ctx, address);
    let value = ctx.live(address, |n| match n {
        RenderNode::TextField { value, .. } => Some(value.clone()),
        _ => None,
    });
    let readonly = binding.is_none();
    let on_input = move |ev: leptos::ev::Event| {
        if let Some(pointer) = &binding {
            let text = event_target_value(&ev);
            let edit = match variant {
                TextFieldVariant::Number => number_edit(&text),
                _ => Value::String(text),
            };
            ctx.edit(pointer, edit);
        }
    };
    let control = match variant {
        TextFieldVariant::LongText => view! {
            <textarea id=id.clone() rows="4" readonly=readonly prop:value=value on:input=on_input></textarea>
        }
        .into_any(),
        other => {
            let kind = match other {
                TextFieldVariant::Obscured => "password",
                TextFieldVariant::Number => "number",
                _ => "text",
            };
            view! { <input type=kind id=id.clone() readonly=readonly prop:value=value on:input=on_input/> }
                .into_any()
        }
    };
    view! {
        <div class="a2ui-field">
            <label for=id>{label}</label>
            {control}
        </div>
    }
    .into_any()
}

/// A `CheckBox`.
pub(super) fn check_box(ctx: Ctx, binding: Option<String>, address: &[usize]) -> AnyView {
    let id = ctx.dom_id(address);
    let label = label_of(ctx, address);
    let checked = ctx.live(address, |n| match n {
        RenderNode::CheckBox { value, .. } => Some(*value),
        _ => None,
    });
    let disabled = binding.is_none();
    let on_change = move |ev: leptos::ev::Event| {
        if let Some(pointer) = &binding {
            ctx.edit(pointer, Value::Bool(event_target_checked(&ev)));
        }
    };
    view! {
        <div class="a2ui-check">
            <input type="checkbox" id=id.clone() disabled=disabled prop:checked=checked on:change=on_change/>
            <label for=id>{label}</label>
        </div>
    }
    .into_any()
}

/// A `ChoicePicker`: radios, or checkboxes for `multipleSelection`, in a fieldset. A single
/// pick is stored as `[value]` (§1.4).
pub(super) fn choice_picker(
    ctx: Ctx,
    options: Vec<ChoiceOption>,
    multiple: bool,
    binding: Option<String>,
    address: &[usize],
) -> AnyView {
    let name = ctx.dom_id(address);
    let legend = label_of(ctx, address);
    let selected = ctx.live(address, |n| match n {
        RenderNode::ChoicePicker { selected, .. } => Some(selected.clone()),
        _ => None,
    });
    let binding = StoredValue::new(binding);
    let disabled = binding.with_value(Option::is_none);
    let kind = if multiple { "checkbox" } else { "radio" };
    let items = options
        .into_iter()
        .enumerate()
        .map(|(i, option)| {
            let value = StoredValue::new(option.value.clone());
            let checked = move || value.with_value(|v| selected.with(|s| s.contains(v)));
            let on_change = move |ev: leptos::ev::Event| {
                let on = event_target_checked(&ev);
                let picked = value.get_value();
                let next: Vec<Value> = if multiple {
                    let mut list = selected.get_untracked();
                    list.retain(|v| *v != picked);
                    if on {
                        list.push(picked);
                    }
                    list.into_iter().map(Value::String).collect()
                } else {
                    vec![Value::String(picked)]
                };
                binding.with_value(|b| {
                    if let Some(pointer) = b {
                        ctx.edit(pointer, Value::Array(next));
                    }
                });
            };
            let id = format!("{name}-o{i}");
            view! {
                <div class="a2ui-option">
                    <input
                        type=kind
                        id=id.clone()
                        name=name.clone()
                        value=option.value
                        disabled=disabled
                        prop:checked=checked
                        on:change=on_change
                    />
                    <label for=id>{option.label}</label>
                </div>
            }
        })
        .collect_view();
    // A group always has a visible name (issue #32: v0.8 `MultipleChoice` carries no label).
    let fallback = if multiple { "Choose any" } else { "Choose one" };
    let legend = move || {
        legend.with(|l| {
            if l.trim().is_empty() {
                fallback.to_owned()
            } else {
                l.clone()
            }
        })
    };
    view! {
        <fieldset class="a2ui-choice">
            <legend>{legend}</legend>
            {items}
        </fieldset>
    }
    .into_any()
}

/// A `Slider`: a range input with its label and current value.
pub(super) fn slider(ctx: Ctx, binding: Option<String>, address: &[usize]) -> AnyView {
    let id = ctx.dom_id(address);
    let label = label_of(ctx, address);
    let range = ctx.live(address, |n| match n {
        RenderNode::Slider { min, max, value, .. } => Some((*min, *max, *value)),
        _ => None,
    });
    let shown = move || js_number_string(range.get().2);
    let disabled = binding.is_none();
    let on_input = move |ev: leptos::ev::Event| {
        if let Some(pointer) = &binding {
            ctx.edit(pointer, number_edit(&event_target_value(&ev)));
        }
    };
    view! {
        <div class="a2ui-field a2ui-slider">
            <label for=id.clone()>{label}</label>
            <div class="a2ui-slider-row">
                <input
                    type="range"
                    id=id.clone()
                    step="any"
                    min=move || js_number_string(range.get().0)
                    max=move || js_number_string(range.get().1)
                    disabled=disabled
                    prop:value=shown
                    on:input=on_input
                />
                <output for=id>{shown}</output>
            </div>
        </div>
    }
    .into_any()
}

/// A `DateTimeInput`: a date, time or date-and-time input.
pub(super) fn date_time_input(
    ctx: Ctx,
    (enable_date, enable_time): (bool, bool),
    binding: Option<String>,
    address: &[usize],
) -> AnyView {
    let id = ctx.dom_id(address);
    let label = label_of(ctx, address);
    let value = ctx.live(address, |n| match n {
        RenderNode::DateTimeInput { value, .. } => Some(value.clone()),
        _ => None,
    });
    let readonly = binding.is_none();
    let on_input = move |ev: leptos::ev::Event| {
        if let Some(pointer) = &binding {
            ctx.edit(pointer, Value::String(event_target_value(&ev)));
        }
    };
    view! {
        <div class="a2ui-field">
            <label for=id.clone()>{label}</label>
            <input
                type=date_time_type(enable_date, enable_time)
                id=id
                readonly=readonly
                prop:value=value
                on:input=on_input
            />
        </div>
    }
    .into_any()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn number_inputs_record_numbers_when_they_can() {
        assert_eq!(number_edit("3"), json!(3));
        assert_eq!(number_edit("-0"), json!(0));
        assert_eq!(number_edit(" 2.5 "), json!(2.5));
        assert_eq!(number_edit(""), json!(""));
        assert_eq!(number_edit("abc"), json!("abc"));
        assert_eq!(number_edit("inf"), json!("inf"));
    }

    #[test]
    fn date_time_inputs_pick_their_type() {
        assert_eq!(date_time_type(true, true), "datetime-local");
        assert_eq!(date_time_type(true, false), "date");
        assert_eq!(date_time_type(false, true), "time");
        assert_eq!(date_time_type(false, false), "date");
    }
}
