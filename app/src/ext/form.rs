//! Structured form extension (`shared/spec/reference.md` §1.1): parses an agent's form definition
//! into a flat, allow-listed field list, validates and coerces the person's answers, and builds the
//! reply parts. Pure data: nothing in a definition is evaluated, fetched or rendered as markup, and
//! no regex (`pattern`) is ever run.

use serde_json::{Map, Value, json};

use super::canonical::{number_f64, truncate_utf16};
use super::uri::{FORM_MEDIA_TYPE, FORM_URI};

mod validate;
pub use validate::{FieldError, initial_values, js_string_to_number, validate_form};

/// Most properties a form may declare (§1.1 `schema.properties`: 1 to 30 entries).
pub const MAX_FIELDS: usize = 30;
/// Most `enum` entries of a choice field (§1.1: 1..50).
pub const MAX_OPTIONS: usize = 50;
/// Title, field label and option label truncation, in UTF-16 units (§1.1).
pub const MAX_LABEL_CHARS: usize = 120;
/// Form and field description truncation, in UTF-16 units (§1.1).
pub const MAX_DESCRIPTION_CHARS: usize = 2_000;
/// `submitLabel` truncation, in UTF-16 units (§1.1).
pub const MAX_SUBMIT_LABEL_CHARS: usize = 40;
/// Cap on `maxLength`, default-string slicing and the implicit maximum of text answers (§1.1).
pub const MAX_STRING_CHARS: usize = 10_000;
/// A text field is multi-line when its `maxLength` exceeds this (§1.1).
pub const MULTILINE_OVER_CHARS: u32 = 200;
/// Longest property key: `^[A-Za-z_][A-Za-z0-9_]{0,63}$` (§1.1).
pub const MAX_KEY_CHARS: usize = 64;
/// Title used when the definition has none (§1.1).
pub const DEFAULT_TITLE: &str = "Agent request";
/// Submit button label used when the definition has none (§1.1).
pub const DEFAULT_SUBMIT_LABEL: &str = "Submit";
/// Media type of the reply data part (§1.1 "Reply on the wire").
pub const REPLY_MEDIA_TYPE: &str = "application/json";
/// Property keys refused because they collide with `Object.prototype` members (§1.1).
pub const RESERVED_KEYS: [&str; 13] = [
    "__proto__",
    "constructor",
    "prototype",
    "toString",
    "valueOf",
    "hasOwnProperty",
    "isPrototypeOf",
    "propertyIsEnumerable",
    "toLocaleString",
    "__defineGetter__",
    "__defineSetter__",
    "__lookupGetter__",
    "__lookupSetter__",
];
/// Longest key quoted back in a [`FormRejection`] (keeps the UI note short).
const MAX_QUOTED_KEY_CHARS: usize = 64;

/// A parsed form, fields in display order.
#[derive(Clone, Debug, PartialEq)]
pub struct FormDefinition {
    /// Heading (default [`DEFAULT_TITLE`]).
    pub title: String,
    /// Optional description shown under the title (plain text).
    pub description: Option<String>,
    /// Submit button label (default [`DEFAULT_SUBMIT_LABEL`]).
    pub submit_label: String,
    /// The fields, in display order.
    pub fields: Vec<FormField>,
}

/// One field of a form.
#[derive(Clone, Debug, PartialEq)]
pub struct FormField {
    /// Property key; the key of the answer in the submission.
    pub key: String,
    /// Label (the property `title`, else the key).
    pub label: String,
    /// Optional help text (plain text).
    pub description: Option<String>,
    /// Listed in `schema.required` (never true in effect for booleans).
    pub required: bool,
    /// What kind of input this is, with its constraints.
    pub kind: FieldKind,
}

/// The allow-listed field kinds (§1.1).
#[derive(Clone, Debug, PartialEq)]
pub enum FieldKind {
    /// `type: "string"`.
    Text {
        /// Floored `minLength` (kept as a number: it is not capped and prints in messages).
        min_length: Option<f64>,
        /// Floored `maxLength`, capped at [`MAX_STRING_CHARS`].
        max_length: Option<u32>,
        /// `format: "multiline"` or `maxLength` over [`MULTILINE_OVER_CHARS`].
        multiline: bool,
        /// String `default`, sliced to [`MAX_STRING_CHARS`].
        default: Option<String>,
    },
    /// `type: "number"` or `"integer"`.
    Number {
        /// `type: "integer"`.
        integer: bool,
        /// Finite `minimum`.
        minimum: Option<f64>,
        /// Finite `maximum`.
        maximum: Option<f64>,
        /// Finite `default` (not checked against the bounds).
        default: Option<f64>,
    },
    /// `type: "boolean"`.
    Boolean {
        /// Boolean `default`.
        default: Option<bool>,
    },
    /// A property with an `enum` array, whatever its `type`.
    Choice {
        /// The options, in `enum` order.
        options: Vec<ChoiceOption>,
        /// `default` when it is one of the option values.
        default: Option<String>,
    },
}

/// One option of a choice field.
#[derive(Clone, Debug, PartialEq)]
pub struct ChoiceOption {
    /// The submitted value (an `enum` entry).
    pub value: String,
    /// The shown label (`enumNames` entry, else the value).
    pub label: String,
}

/// Why a definition was rejected as a whole (§1.1 "Whole-form rejection triggers"). A rejected form
/// is never rendered; the part stays ordinary data.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FormRejection {
    /// The definition is not a JSON object.
    #[error("The form definition is not an object.")]
    NotAnObject,
    /// `schema` is missing or not an object.
    #[error("The form has no schema object.")]
    MissingSchema,
    /// `schema.type` is not `"object"`.
    #[error("The form schema is not of type \"object\".")]
    SchemaNotObject,
    /// `schema.properties` is missing or not an object.
    #[error("The form schema has no properties object.")]
    MissingProperties,
    /// `schema.properties` is empty.
    #[error("The form has no fields.")]
    NoFields,
    /// More than [`MAX_FIELDS`] properties.
    #[error("The form has more than 30 fields.")]
    TooManyFields,
    /// A key does not match `^[A-Za-z_][A-Za-z0-9_]{0,63}$`.
    #[error("The field name \"{0}\" is not allowed.")]
    InvalidKey(String),
    /// A key is one of [`RESERVED_KEYS`].
    #[error("The field name \"{0}\" is reserved.")]
    ReservedKey(String),
    /// A property value is not an object.
    #[error("The field \"{0}\" is not an object.")]
    FieldNotObject(String),
    /// An `enum` is empty, longer than [`MAX_OPTIONS`] or has a non-string entry.
    #[error("The options of field \"{0}\" are not 1 to 50 strings.")]
    InvalidEnum(String),
    /// The `type` is not string, number, integer or boolean.
    #[error("The field \"{0}\" has an unsupported type.")]
    UnsupportedType(String),
}

/// Parses a form definition (a part's `data`, or a card's `startForm`) per §1.1.
pub fn parse_form(data: &Value) -> Result<FormDefinition, FormRejection> {
    let root = data.as_object().ok_or(FormRejection::NotAnObject)?;
    let schema = root
        .get("schema")
        .and_then(Value::as_object)
        .ok_or(FormRejection::MissingSchema)?;
    if schema.get("type").and_then(Value::as_str) != Some("object") {
        return Err(FormRejection::SchemaNotObject);
    }
    let properties = schema
        .get("properties")
        .and_then(Value::as_object)
        .ok_or(FormRejection::MissingProperties)?;
    if properties.is_empty() {
        return Err(FormRejection::NoFields);
    }
    if properties.len() > MAX_FIELDS {
        return Err(FormRejection::TooManyFields);
    }
    let required = string_entries(schema.get("required"));
    let order = string_entries(root.get("order"));
    let mut entries: Vec<(&String, &Value)> = properties.iter().collect();
    // Stable: unlisted keys keep their original relative order after the listed ones.
    entries.sort_by_key(|(key, _)| order.iter().position(|o| o == key).unwrap_or(order.len()));
    let fields = entries
        .into_iter()
        .map(|(key, raw)| parse_field(key, raw, required.contains(&key.as_str())))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(FormDefinition {
        title: text(root.get("title"), MAX_LABEL_CHARS).unwrap_or_else(|| DEFAULT_TITLE.to_owned()),
        description: text(root.get("description"), MAX_DESCRIPTION_CHARS),
        submit_label: text(root.get("submitLabel"), MAX_SUBMIT_LABEL_CHARS)
            .unwrap_or_else(|| DEFAULT_SUBMIT_LABEL.to_owned()),
        fields,
    })
}

/// The string entries of an optional array (non-arrays and non-strings ignored).
fn string_entries(value: Option<&Value>) -> Vec<&str> {
    let items = value
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    items.iter().filter_map(Value::as_str).collect()
}

/// A non-empty string, truncated to `max` UTF-16 units; anything else is `None`.
fn text(value: Option<&Value>, max: usize) -> Option<String> {
    text_str(value.and_then(Value::as_str), max)
}

fn text_str(value: Option<&str>, max: usize) -> Option<String> {
    value
        .filter(|s| !s.is_empty())
        .map(|s| truncate_utf16(s, max).to_owned())
}

/// A finite JSON number (every JSON number is finite).
fn finite(value: Option<&Value>) -> Option<f64> {
    value?.as_number().map(number_f64).filter(|x| x.is_finite())
}

/// Whether `key` matches `^[A-Za-z_][A-Za-z0-9_]{0,63}$`.
pub fn is_valid_key(key: &str) -> bool {
    let bytes = key.as_bytes();
    let Some((first, rest)) = bytes.split_first() else {
        return false;
    };
    (first.is_ascii_alphabetic() || *first == b'_')
        && rest.len() < MAX_KEY_CHARS
        && rest.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'_')
}

fn quoted(key: &str) -> String {
    truncate_utf16(key, MAX_QUOTED_KEY_CHARS).to_owned()
}

fn parse_field(key: &str, raw: &Value, required: bool) -> Result<FormField, FormRejection> {
    if !is_valid_key(key) {
        return Err(FormRejection::InvalidKey(quoted(key)));
    }
    if RESERVED_KEYS.contains(&key) {
        return Err(FormRejection::ReservedKey(key.to_owned()));
    }
    let raw = raw
        .as_object()
        .ok_or_else(|| FormRejection::FieldNotObject(key.to_owned()))?;
    let kind = match raw.get("enum").and_then(Value::as_array) {
        Some(values) => parse_choice(key, values, raw)?,
        None => parse_typed(key, raw)?,
    };
    Ok(FormField {
        key: key.to_owned(),
        label: text(raw.get("title"), MAX_LABEL_CHARS).unwrap_or_else(|| key.to_owned()),
        description: text(raw.get("description"), MAX_DESCRIPTION_CHARS),
        required,
        kind,
    })
}

fn parse_choice(key: &str, entries: &[Value], raw: &Map<String, Value>) -> Result<FieldKind, FormRejection> {
    let values: Vec<&str> = entries.iter().filter_map(Value::as_str).collect();
    if values.is_empty() || values.len() > MAX_OPTIONS || values.len() != entries.len() {
        return Err(FormRejection::InvalidEnum(key.to_owned()));
    }
    let names = raw
        .get("enumNames")
        .and_then(Value::as_array)
        .filter(|names| names.len() == values.len());
    let options = values
        .iter()
        .enumerate()
        .map(|(index, value)| {
            let name = names.map_or(Some(*value), |names| names.get(index).and_then(Value::as_str));
            let label = text_str(name, MAX_LABEL_CHARS).unwrap_or_else(|| (*value).to_owned());
            ChoiceOption {
                value: (*value).to_owned(),
                label,
            }
        })
        .collect();
    let default = raw
        .get("default")
        .and_then(Value::as_str)
        .filter(|d| values.contains(d))
        .map(str::to_owned);
    Ok(FieldKind::Choice { options, default })
}

fn parse_typed(key: &str, raw: &Map<String, Value>) -> Result<FieldKind, FormRejection> {
    match raw.get("type").and_then(Value::as_str) {
        Some("string") => Ok(parse_text(raw)),
        Some(kind @ ("number" | "integer")) => Ok(FieldKind::Number {
            integer: kind == "integer",
            minimum: finite(raw.get("minimum")),
            maximum: finite(raw.get("maximum")),
            default: finite(raw.get("default")),
        }),
        Some("boolean") => Ok(FieldKind::Boolean {
            default: raw.get("default").and_then(Value::as_bool),
        }),
        _ => Err(FormRejection::UnsupportedType(key.to_owned())),
    }
}

fn parse_text(raw: &Map<String, Value>) -> FieldKind {
    let min_length = finite(raw.get("minLength")).filter(|n| *n >= 0.0).map(f64::floor);
    let max_length = finite(raw.get("maxLength"))
        .filter(|n| *n >= 0.0)
        .map(|n| n.floor().min(MAX_STRING_CHARS as f64) as u32);
    let multiline = raw.get("format").and_then(Value::as_str) == Some("multiline")
        || max_length.is_some_and(|max| max > MULTILINE_OVER_CHARS);
    let default = raw
        .get("default")
        .and_then(Value::as_str)
        .map(|d| truncate_utf16(d, MAX_STRING_CHARS).to_owned());
    FieldKind::Text {
        min_length,
        max_length,
        multiline,
        default,
    }
}

/// Whether a part's (any-case) media type is the structured form media type.
pub fn is_form_media_type(media_type: &str) -> bool {
    super::lowercases_to(media_type, FORM_MEDIA_TYPE)
}

/// The start-of-task form of an Agent Card: `params.startForm` of the first
/// `capabilities.extensions` entry whose `uri` is the form URI, when it parses (§1.1).
pub fn start_form(card: &Value) -> Option<FormDefinition> {
    parse_form(start_form_entry(card)?).ok()
}

/// [`start_form`] as the card states it (the definition, not the parsed form), when it parses.
pub fn start_form_definition(card: &Value) -> Option<Value> {
    let definition = start_form_entry(card)?;
    parse_form(definition).is_ok().then(|| definition.clone())
}

fn start_form_entry(card: &Value) -> Option<&Value> {
    let extensions = card.get("capabilities")?.get("extensions")?.as_array()?;
    let entry = extensions
        .iter()
        .find(|entry| entry.get("uri").and_then(Value::as_str) == Some(FORM_URI))?;
    entry.get("params")?.get("startForm")
}

/// Quick replies of an `INPUT_REQUIRED` data part (§1.1, end): its `options` (or, when `options`
/// is absent or null, `choices`) if that is an array of strings; otherwise none.
pub fn quick_replies(data: &Value) -> Vec<String> {
    let Some(object) = data.as_object() else {
        return Vec::new();
    };
    let list = object
        .get("options")
        .filter(|v| !v.is_null())
        .or_else(|| object.get("choices"));
    let Some(items) = list.and_then(Value::as_array) else {
        return Vec::new();
    };
    items
        .iter()
        .map(|item| item.as_str().map(str::to_owned))
        .collect::<Option<Vec<_>>>()
        .unwrap_or_default()
}

/// The reply parts for a submission: exactly `[{"data": …, "mediaType": "application/json"}]`.
pub fn reply_parts(submission: &Map<String, Value>) -> Value {
    json!([{ "data": submission, "mediaType": REPLY_MEDIA_TYPE }])
}

#[cfg(test)]
mod field_tests;
#[cfg(test)]
mod tests;
