//! Normalises v0.8 components (`{id, component:{TypeName:{props}}}`, `a2a-and-a2ui.md` §B.3/B.4)
//! into the internal v0.9-shaped [`Component`]: BoundValues become literals or `{path}`, renamed
//! props (`usageHint`, `distribution`, `textFieldType`, …) get their v0.9 names, `MultipleChoice`
//! becomes `ChoicePicker` and `action {name, context:[…]}` becomes `action {event:{…}}`.

use serde_json::{Map, Value};

use super::model::{Component, Invalid};
use super::pointer::parse_pointer;
use super::text::{is_id, utf16_len};
use super::{MAX_COMPONENT_NAME_CHARS, MAX_ID_CHARS};

/// A model write requested by a BoundValue carrying both a literal and an absolute path.
pub(crate) type InitOp = (Vec<String>, Value);

/// The keys a v0.8 BoundValue may carry.
const BOUND_KEYS: [&str; 5] = [
    "literalString",
    "literalNumber",
    "literalBoolean",
    "literalArray",
    "path",
];

/// One `components` entry: an object with `id` (1..128) and `component` an object with exactly
/// one key (the type name, ≤ 64) whose value is the props object.
pub(crate) fn component(entry: &Value, inits: &mut Vec<InitOp>) -> Result<Component, Invalid> {
    let object = entry.as_object().ok_or(Invalid)?;
    let id = match object.get("id") {
        Some(Value::String(id)) if is_id(id, MAX_ID_CHARS) => id,
        _ => return Err(Invalid),
    };
    let wrapper = object
        .get("component")
        .and_then(Value::as_object)
        .ok_or(Invalid)?;
    let (name, props) = match wrapper.iter().next() {
        Some((name, Value::Object(props))) if wrapper.len() == 1 => (name, props),
        _ => return Err(Invalid),
    };
    if utf16_len(name) > MAX_COMPONENT_NAME_CHARS {
        return Err(Invalid);
    }
    let props: Map<String, Value> = props.iter().map(|(k, v)| (k.clone(), bound(v, inits))).collect();
    let (component, props) = normalise(name, props);
    Ok(Component {
        id: id.clone(),
        component,
        props,
    })
}

/// A BoundValue as a v0.9 value: `{path}` when it has a string path (recording an [`InitOp`] when
/// it also has a literal and the path is a valid absolute pointer), else its literal. Values that
/// are not BoundValues are returned unchanged.
pub(crate) fn bound(value: &Value, inits: &mut Vec<InitOp>) -> Value {
    let Some(object) = value.as_object() else {
        return value.clone();
    };
    if object.is_empty() || !object.keys().all(|k| BOUND_KEYS.contains(&k.as_str())) {
        return value.clone();
    }
    let literal = BOUND_KEYS[..4].iter().find_map(|k| object.get(*k)).cloned();
    match (object.get("path"), literal) {
        (Some(Value::String(path)), literal) => {
            if let (Some(literal), true) = (literal, path.starts_with('/'))
                && let Some(segments) = parse_pointer(path).filter(|s| !s.is_empty())
            {
                inits.push((segments, literal));
            }
            let mut binding = Map::new();
            binding.insert("path".to_string(), Value::String(path.clone()));
            Value::Object(binding)
        }
        (_, Some(literal)) => literal,
        (_, None) => Value::Null,
    }
}

/// Renames the v0.8 props of `name` to their v0.9 form; returns the v0.9 type name and props.
fn normalise(name: &str, mut props: Map<String, Value>) -> (String, Map<String, Value>) {
    match name {
        "Text" => rename(&mut props, "usageHint", "variant"),
        "Image" => {
            rename(&mut props, "altText", "description");
            rename(&mut props, "usageHint", "variant");
        }
        "Row" | "Column" | "List" => {
            rename(&mut props, "distribution", "justify");
            rename(&mut props, "alignment", "align");
            if let Some(children) = props.remove("children") {
                props.insert("children".to_string(), children_list(children));
            }
        }
        "Tabs" => tabs(&mut props),
        "Button" => button(&mut props),
        "TextField" => text_field(&mut props),
        "MultipleChoice" => return ("ChoicePicker".to_string(), choice_picker(props)),
        "Slider" => {
            rename(&mut props, "minValue", "min");
            rename(&mut props, "maxValue", "max");
        }
        _ => {}
    }
    (name.to_string(), props)
}

/// Moves `props[from]` to `props[to]`.
fn rename(props: &mut Map<String, Value>, from: &str, to: &str) {
    if let Some(value) = props.remove(from) {
        props.insert(to.to_string(), value);
    }
}

/// `{explicitList:[ids]}` → `[ids]`; a template (or anything else) stays an object and renders as
/// "Unsupported children".
fn children_list(children: Value) -> Value {
    match children {
        Value::Object(mut object)
            if object.len() == 1 && object.get("explicitList").is_some_and(Value::is_array) =>
        {
            object.remove("explicitList").unwrap_or(Value::Null)
        }
        other => other,
    }
}

/// `tabItems:[{title: BoundValue, child}]` → `tabs:[{title, child}]`.
fn tabs(props: &mut Map<String, Value>) {
    let Some(items) = props.remove("tabItems") else {
        return;
    };
    let tabs = match items {
        Value::Array(items) => Value::Array(items.iter().map(tab).collect()),
        other => other,
    };
    props.insert("tabs".to_string(), tabs);
}

/// One tab item with its title normalised.
fn tab(item: &Value) -> Value {
    match item {
        Value::Object(object) => {
            let mut object = object.clone();
            if let Some(title) = object.get("title") {
                let title = bound(title, &mut Vec::new());
                object.insert("title".to_string(), title);
            }
            Value::Object(object)
        }
        other => other.clone(),
    }
}

/// `primary: true` → `variant: "primary"`; the action is converted.
fn button(props: &mut Map<String, Value>) {
    if props.remove("primary") == Some(Value::Bool(true)) {
        props.insert("variant".to_string(), Value::String("primary".to_string()));
    }
    if let Some(action) = props.remove("action") {
        props.insert("action".to_string(), action_v09(&action));
    }
}

/// `action {name, context:[{key, value}]}` → `{event:{name, context:{key: value}}}`. A malformed
/// context is kept as is (not an object), so the action stays disabled.
pub(crate) fn action_v09(action: &Value) -> Value {
    let mut event = Map::new();
    event.insert(
        "name".to_string(),
        action.get("name").cloned().unwrap_or(Value::Null),
    );
    match action.get("context") {
        None => {}
        Some(Value::Array(entries)) => {
            let context =
                context_object(entries).map_or_else(|| Value::Array(entries.clone()), Value::Object);
            event.insert("context".to_string(), context);
        }
        Some(other) => {
            event.insert("context".to_string(), Value::Array(vec![other.clone()]));
        }
    }
    let mut out = Map::new();
    out.insert("event".to_string(), Value::Object(event));
    Value::Object(out)
}

/// `[{key, value}]` as an object (later keys win), or `None` when an entry is malformed.
fn context_object(entries: &[Value]) -> Option<Map<String, Value>> {
    entries
        .iter()
        .map(|entry| {
            let key = entry.get("key")?.as_str()?;
            Some((key.to_string(), bound(entry.get("value")?, &mut Vec::new())))
        })
        .collect()
}

/// `text` → `value`; `textFieldType` `longText`/`number`/`obscured` → `variant` (others: text).
fn text_field(props: &mut Map<String, Value>) {
    rename(props, "text", "value");
    if let Some(kind) = props.remove("textFieldType")
        && matches!(kind.as_str(), Some("longText" | "number" | "obscured"))
    {
        props.insert("variant".to_string(), kind);
    }
}

/// `MultipleChoice` → `ChoicePicker`: `selections` → `value`, option labels normalised,
/// `maxAllowedSelections: 1` → single choice, else multiple selection.
fn choice_picker(mut props: Map<String, Value>) -> Map<String, Value> {
    rename(&mut props, "selections", "value");
    if let Some(Value::Array(options)) = props.get_mut("options") {
        for option in options.iter_mut().filter_map(Value::as_object_mut) {
            if let Some(label) = option.get("label") {
                let label = bound(label, &mut Vec::new());
                option.insert("label".to_string(), label);
            }
        }
    }
    let single = props.remove("maxAllowedSelections").and_then(|m| m.as_f64()) == Some(1.0);
    let variant = if single {
        "mutuallyExclusive"
    } else {
        "multipleSelection"
    };
    props.insert("variant".to_string(), Value::String(variant.to_string()));
    props
}

#[cfg(test)]
mod tests;
