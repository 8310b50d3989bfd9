//! Validation and coercion of form answers (`shared/spec/reference.md` §1.1 "Browser-side validation
//! and coercion"), with JavaScript's `String()` / `Number()` semantics so the submission matches the
//! original console byte for byte. Pure; the caller decides what to do with errors.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{FieldKind, FormDefinition, FormField, MAX_STRING_CHARS};
use crate::ext::canonical::{is_js_whitespace, js_number_string, js_number_value, number_f64, utf16_len};

/// Message for an empty required field.
pub const MSG_REQUIRED: &str = "Required";
/// Message for a number field whose value is not a finite number.
pub const MSG_NUMBER: &str = "Enter a number";
/// Message for an integer field with a fraction.
pub const MSG_WHOLE_NUMBER: &str = "Enter a whole number";
/// Message for a choice that is not one of the options.
pub const MSG_CHOICE: &str = "Choose one of the options";
/// `String(object)` in JavaScript.
const JS_OBJECT_STRING: &str = "[object Object]";

/// A validation error for one field.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FieldError {
    /// The field key.
    pub key: String,
    /// The exact message shown under the field (e.g. `At least 3 characters`).
    pub message: String,
}

/// Initial values: each field's default; booleans without a default start `false`.
pub fn initial_values(form: &FormDefinition) -> Map<String, Value> {
    let mut values = Map::new();
    for field in &form.fields {
        let value = match &field.kind {
            FieldKind::Text { default, .. } | FieldKind::Choice { default, .. } => {
                default.clone().map(Value::String)
            }
            FieldKind::Number { default, .. } => default.map(js_number_value),
            FieldKind::Boolean { default } => Some(Value::Bool(default.unwrap_or(false))),
        };
        if let Some(value) = value {
            values.insert(field.key.clone(), value);
        }
    }
    values
}

/// Validates `values` against `form` field by field in display order. On success, the submission:
/// only declared keys, in field order, coerced to their declared types (booleans always present).
/// A missing key, `null` or `""` counts as empty.
pub fn validate_form(
    form: &FormDefinition,
    values: &Map<String, Value>,
) -> Result<Map<String, Value>, Vec<FieldError>> {
    let mut submission = Map::new();
    let mut errors = Vec::new();
    for field in &form.fields {
        match validate_field(field, values.get(&field.key)) {
            Ok(Some(value)) => {
                submission.insert(field.key.clone(), value);
            }
            Ok(None) => {}
            Err(message) => errors.push(FieldError {
                key: field.key.clone(),
                message,
            }),
        }
    }
    if errors.is_empty() {
        Ok(submission)
    } else {
        Err(errors)
    }
}

/// `Ok(None)` means "omit the key" (empty optional field).
fn validate_field(field: &FormField, raw: Option<&Value>) -> Result<Option<Value>, String> {
    if let FieldKind::Boolean { .. } = field.kind {
        return Ok(Some(Value::Bool(raw == Some(&Value::Bool(true)))));
    }
    let Some(raw) = raw.filter(|raw| !is_empty(raw)) else {
        return if field.required {
            Err(MSG_REQUIRED.to_owned())
        } else {
            Ok(None)
        };
    };
    match &field.kind {
        FieldKind::Text {
            min_length,
            max_length,
            ..
        } => check_text(raw, *min_length, *max_length),
        FieldKind::Number {
            integer,
            minimum,
            maximum,
            ..
        } => check_number(js_to_number(raw), *integer, *minimum, *maximum),
        FieldKind::Choice { options, .. } => match raw.as_str() {
            Some(s) if options.iter().any(|option| option.value == s) => Ok(Some(Value::from(s))),
            _ => Err(MSG_CHOICE.to_owned()),
        },
        FieldKind::Boolean { .. } => Ok(Some(Value::Bool(raw == &Value::Bool(true)))),
    }
}

/// Empty = `undefined` (absent), `""`, or — since JSON has no `undefined` — `null`.
fn is_empty(raw: &Value) -> bool {
    matches!(raw, Value::Null) || raw.as_str() == Some("")
}

fn check_text(
    raw: &Value,
    min_length: Option<f64>,
    max_length: Option<u32>,
) -> Result<Option<Value>, String> {
    let value = js_to_string(raw);
    let length = utf16_len(&value);
    if let Some(min) = min_length.filter(|min| (length as f64) < *min) {
        return Err(format!("At least {} characters", js_number_string(min)));
    }
    let max = max_length.map_or(MAX_STRING_CHARS, |max| max as usize);
    if length > max {
        return Err(format!("At most {max} characters"));
    }
    Ok(Some(Value::String(value)))
}

fn check_number(
    value: f64,
    integer: bool,
    minimum: Option<f64>,
    maximum: Option<f64>,
) -> Result<Option<Value>, String> {
    if !value.is_finite() {
        return Err(MSG_NUMBER.to_owned());
    }
    if integer && value.fract() != 0.0 {
        return Err(MSG_WHOLE_NUMBER.to_owned());
    }
    if let Some(min) = minimum.filter(|min| value < *min) {
        return Err(format!("At least {}", js_number_string(min)));
    }
    if let Some(max) = maximum.filter(|max| value > *max) {
        return Err(format!("At most {}", js_number_string(max)));
    }
    Ok(Some(js_number_value(value)))
}

/// JavaScript `String(value)` for a JSON value.
fn js_to_string(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => js_number_string(number_f64(n)),
        Value::String(s) => s.clone(),
        Value::Array(items) => items
            .iter()
            .map(|item| {
                if item.is_null() {
                    String::new()
                } else {
                    js_to_string(item)
                }
            })
            .collect::<Vec<_>>()
            .join(","),
        Value::Object(_) => JS_OBJECT_STRING.to_owned(),
    }
}

/// JavaScript `Number(value)` for a JSON value.
fn js_to_number(value: &Value) -> f64 {
    match value {
        Value::Null => 0.0,
        Value::Bool(b) => f64::from(u8::from(*b)),
        Value::Number(n) => number_f64(n),
        Value::String(s) => js_string_to_number(s),
        Value::Array(_) => js_string_to_number(&js_to_string(value)),
        Value::Object(_) => f64::NAN,
    }
}

/// JavaScript `Number(string)`: trims JS white space; empty → `0`; `0x`/`0o`/`0b` integers (no
/// sign); `Infinity` with optional sign; decimal literals with optional sign, fraction and
/// exponent; anything else `NaN`.
pub fn js_string_to_number(s: &str) -> f64 {
    let t = s.trim_matches(is_js_whitespace);
    if t.is_empty() {
        return 0.0;
    }
    match t {
        "Infinity" | "+Infinity" => return f64::INFINITY,
        "-Infinity" => return f64::NEG_INFINITY,
        _ => {}
    }
    let radix = match t.get(..2) {
        Some("0x" | "0X") => Some(4),
        Some("0o" | "0O") => Some(3),
        Some("0b" | "0B") => Some(1),
        _ => None,
    };
    match radix {
        Some(bits) => t.get(2..).map_or(f64::NAN, |digits| radix_to_f64(digits, bits)),
        None if is_decimal_literal(t) => t.parse::<f64>().unwrap_or(f64::NAN),
        None => f64::NAN,
    }
}

/// `StrDecimalLiteral` without `Infinity`: `[+-]? (d+ (. d*)? | . d+) ([eE] [+-]? d+)?`.
fn is_decimal_literal(t: &str) -> bool {
    let b = t.as_bytes();
    let mut i = usize::from(matches!(b.first(), Some(b'+' | b'-')));
    let digits_from = |i: &mut usize| {
        let start = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i - start
    };
    let mut mantissa_digits = digits_from(&mut i);
    if b.get(i) == Some(&b'.') {
        i += 1;
        mantissa_digits += digits_from(&mut i);
    }
    if mantissa_digits == 0 {
        return false;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        i += usize::from(matches!(b.get(i), Some(b'+' | b'-')));
        if digits_from(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

/// A binary/octal/hex digit string (`bits` per digit) as the correctly rounded `f64`, or NaN when
/// empty or containing a foreign digit.
fn radix_to_f64(digits: &str, bits: u32) -> f64 {
    if digits.is_empty() {
        return f64::NAN;
    }
    let (mut mantissa, mut used, mut dropped, mut sticky) = (0u64, 0u32, 0i32, false);
    for c in digits.chars() {
        let Some(digit) = c.to_digit(1 << bits) else {
            return f64::NAN;
        };
        for shift in (0..bits).rev() {
            let bit = u64::from((digit >> shift) & 1);
            if used == 0 && bit == 0 {
                continue;
            }
            if used < u64::BITS {
                mantissa = (mantissa << 1) | bit;
                used += 1;
            } else {
                dropped += 1;
                sticky |= bit == 1;
            }
        }
    }
    // 64 kept bits leave 11 below f64's 53: a sticky low bit makes `as` round exactly once.
    (mantissa | u64::from(sticky)) as f64 * 2f64.powi(dropped)
}

#[cfg(test)]
mod tests;
