//! Canonical JSON (`shared/spec/reference.md` §1.2.1) and the JavaScript string/number primitives the
//! extension rules are defined in: ECMAScript number formatting, `JSON.stringify` string escaping,
//! UTF-16 lengths, JS `trim`. Pure functions; nothing here parses agent content or does I/O.
//!
//! The one canonical-JSON writer of the workspace, in two forms that differ only in key order and
//! number text (arrays in order, no whitespace and `JSON.stringify` string escaping in both):
//!
//! - [`canonical_json`], the extension rules' form (§1.2.1): keys in UTF-16 code-unit order,
//!   numbers as JavaScript prints them. The browser and the server must agree on it byte for
//!   byte (approval digests, JSON lengths).
//! - [`ledger_json`], the form the server's stored digests were computed over: keys in UTF-8 byte
//!   (code point) order, numbers as `serde_json` prints them (`1.0`, `1e21`, integers exactly).
//!   The ledger's `payload_digest`, the archive markers of ADR 0023 and the idempotency digests
//!   of stored commands and decisions are over this form, and stored rows must keep verifying,
//!   so it is kept as it was rather than moved to the extension form.

use serde_json::{Number, Value};

/// Largest integer magnitude stored as a JSON integer by [`js_number_value`] (2^63): every integral
/// `f64` below it converts to `i64` exactly.
const I64_EXACT_LIMIT: f64 = 9_223_372_036_854_775_808.0;

/// The canonical JSON of `value` (§1.2.1): arrays in order, object keys sorted by UTF-16 code units
/// at every level, no whitespace, strings and numbers exactly as JavaScript's `JSON.stringify`.
pub fn canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write_canonical(value, Form::Extension, &mut out);
    out
}

/// The ledger form of `value` (see the module docs): keys sorted by UTF-8 bytes at every level,
/// numbers as `serde_json` prints them, no whitespace. Digests stored by the server are over it.
pub fn ledger_json(value: &Value) -> String {
    let mut out = String::new();
    write_canonical(value, Form::Ledger, &mut out);
    out
}

/// Which of the two canonical forms is written.
#[derive(Clone, Copy)]
enum Form {
    /// §1.2.1: UTF-16 key order, JavaScript numbers.
    Extension,
    /// Stored digests: UTF-8 key order, `serde_json` numbers.
    Ledger,
}

fn write_canonical(value: &Value, form: Form, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(number) => match form {
            Form::Extension => out.push_str(&js_number_string(number_f64(number))),
            Form::Ledger => out.push_str(&number.to_string()),
        },
        Value::String(text) => write_json_string(text, out),
        Value::Array(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                write_canonical(item, form, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            match form {
                Form::Extension => keys.sort_by(|a, b| a.encode_utf16().cmp(b.encode_utf16())),
                Form::Ledger => keys.sort(),
            }
            out.push('{');
            for (index, key) in keys.into_iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                write_json_string(key, out);
                out.push(':');
                if let Some(item) = map.get(key) {
                    write_canonical(item, form, out);
                }
            }
            out.push('}');
        }
    }
}

/// UTF-16 length of the compact `JSON.stringify` output of `value` (key order does not change it).
/// This is what the spec calls the "JSON length" of a value.
pub fn json_utf16_len(value: &Value) -> usize {
    utf16_len(&canonical_json(value))
}

/// `s` as a JSON string literal, escaped exactly as `JSON.stringify` does: `\"`, `\\`, `\b`, `\f`,
/// `\n`, `\r`, `\t`, other control characters as lower-case `\u00xx`, everything else literal.
pub fn js_json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    write_json_string(s, &mut out);
    out
}

fn write_json_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// The value of a JSON number as JavaScript would hold it: integers beyond 2^53 round to the
/// nearest `f64` exactly as `JSON.parse` rounds them.
pub fn number_f64(number: &Number) -> f64 {
    // `as_f64` is `Some` for every number serde_json can hold without `arbitrary_precision`.
    number.as_f64().unwrap_or(f64::NAN)
}

/// ECMAScript `Number.prototype.toString()` of `x`: shortest round-trip digits, `-0` as `0`,
/// plain notation for exponents in [-7, 21), otherwise `1e+21` / `1.5e-7` style.
pub fn js_number_string(x: f64) -> String {
    if x.is_nan() {
        return "NaN".to_owned();
    }
    if x == 0.0 {
        return "0".to_owned();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Infinity" } else { "-Infinity" }.to_owned();
    }
    let sign = if x < 0.0 { "-" } else { "" };
    let (digits, n) = shortest_digits(x.abs());
    format!("{sign}{}", layout_digits(&digits, n))
}

/// Shortest round-trip decimal digits of a finite positive `x` and the exponent `n` such that
/// `x = 0.d1d2… × 10^n` (the `n` of ECMAScript's Number::toString algorithm).
fn shortest_digits(x: f64) -> (String, i32) {
    let scientific = format!("{x:e}");
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((scientific.as_str(), "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    (digits, exponent.parse::<i32>().unwrap_or(0) + 1)
}

fn layout_digits(digits: &str, n: i32) -> String {
    let k = digits.len() as i32;
    if k <= n && n <= 21 {
        format!("{digits}{}", "0".repeat((n - k) as usize))
    } else if 0 < n && n <= 21 {
        let (int, frac) = digits.split_at(n as usize);
        format!("{int}.{frac}")
    } else if -6 < n && n <= 0 {
        format!("0.{}{digits}", "0".repeat((-n) as usize))
    } else {
        let e = n - 1;
        let exp_sign = if e < 0 { '-' } else { '+' };
        let (first, rest) = digits.split_at(1);
        let dot = if rest.is_empty() { "" } else { "." };
        format!("{first}{dot}{rest}e{exp_sign}{}", e.abs())
    }
}

/// `x` as a JSON value that serialises the way `JSON.stringify(x)` prints it: integral values as
/// integers (so `3`, not `3.0`), `-0` as `0`, other finite values as floats, NaN/±Infinity as `null`.
pub fn js_number_value(x: f64) -> Value {
    if !x.is_finite() {
        return Value::Null;
    }
    if x == 0.0 {
        return Value::from(0);
    }
    if x.fract() == 0.0 && x.abs() < I64_EXACT_LIMIT {
        return Value::from(x as i64);
    }
    Number::from_f64(x).map_or(Value::Null, Value::Number)
}

/// Length of `s` in UTF-16 code units (JavaScript's `String.prototype.length`).
pub fn utf16_len(s: &str) -> usize {
    s.encode_utf16().count()
}

/// The longest prefix of `s` of at most `max` UTF-16 code units that does not split a code point
/// (JavaScript's `slice(0, max)`, minus a dangling half surrogate pair).
pub fn truncate_utf16(s: &str, max: usize) -> &str {
    let mut units = 0;
    for (index, c) in s.char_indices() {
        units += c.len_utf16();
        if units > max {
            return &s[..index];
        }
    }
    s
}

/// Whether `c` is JavaScript white space or a line terminator (what `String.prototype.trim` and
/// `Number()` strip): unlike Rust's `char::is_whitespace` it includes U+FEFF and excludes U+0085.
pub fn is_js_whitespace(c: char) -> bool {
    matches!(
        c,
        '\u{9}'..='\u{d}'
            | ' '
            | '\u{a0}'
            | '\u{1680}'
            | '\u{2000}'..='\u{200a}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202f}'
            | '\u{205f}'
            | '\u{3000}'
            | '\u{feff}'
    )
}

/// JavaScript's `String.prototype.trim()`.
pub fn js_trim(s: &str) -> &str {
    s.trim_matches(is_js_whitespace)
}

#[cfg(test)]
#[path = "canonical_tests.rs"]
pub(super) mod tests;
