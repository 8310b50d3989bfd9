//! Lenient readers over `serde_json::Value`, shared by every decoder.
//!
//! SDKs differ in small ways: Python sends integers as floats (`2.0`), fills unset fields with
//! empty defaults (`""`, `[]`, `{}`), and some agents send `null` for absent fields. These
//! helpers treat all of that as "absent" or as the intended integer, and never panic.

use serde_json::{Map, Value};

use super::error::DecodeError;

/// Largest float that still converts to an integer exactly (2^53).
const MAX_EXACT_FLOAT: f64 = 9_007_199_254_740_992.0;

/// Joins a parent path and a field name (`""` + `a` → `a`, `a` + `b` → `a.b`).
pub(crate) fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

/// Joins a path and an array index (`parts` + 2 → `parts[2]`).
pub(crate) fn index(path: &str, i: usize) -> String {
    format!("{path}[{i}]")
}

/// The value as an object, or a typed error naming `path`.
pub(crate) fn as_object<'a>(value: &'a Value, path: &str) -> Result<&'a Map<String, Value>, DecodeError> {
    value
        .as_object()
        .ok_or_else(|| DecodeError::wrong_type(path, "an object"))
}

/// A non-negative integer; accepts `2`, `2.0` and `"2"`. Fractions, negatives and huge floats
/// are refused.
pub fn as_u64(value: &Value) -> Option<u64> {
    match value {
        Value::Number(n) => n.as_u64().or_else(|| {
            n.as_f64()
                .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f <= MAX_EXACT_FLOAT)
                // In range and integral, so the cast is exact.
                .map(|f| f as u64)
        }),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// A signed integer; accepts `-32001`, `-32001.0` and `"-32001"`.
pub fn as_i64(value: &Value) -> Option<i64> {
    match value {
        Value::Number(n) => n.as_i64().or_else(|| {
            n.as_f64()
                .filter(|f| f.fract() == 0.0 && f.abs() <= MAX_EXACT_FLOAT)
                // In range and integral, so the cast is exact.
                .map(|f| f as i64)
        }),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// A boolean; accepts `true`/`false` and the strings `"true"`/`"false"`.
pub fn as_bool(value: &Value) -> Option<bool> {
    match value {
        Value::Bool(b) => Some(*b),
        Value::String(s) if s.eq_ignore_ascii_case("true") => Some(true),
        Value::String(s) if s.eq_ignore_ascii_case("false") => Some(false),
        _ => None,
    }
}

/// A string field, `None` when absent, null, not a string or empty (Python default).
pub(crate) fn opt_str(obj: &Map<String, Value>, key: &str) -> Option<String> {
    match obj.get(key) {
        Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
        _ => None,
    }
}

/// A required non-empty string field.
pub(crate) fn req_str(obj: &Map<String, Value>, key: &str, path: &str) -> Result<String, DecodeError> {
    match obj.get(key) {
        Some(Value::String(s)) if !s.is_empty() => Ok(s.clone()),
        None | Some(Value::Null) | Some(Value::String(_)) => Err(DecodeError::missing(join(path, key))),
        Some(_) => Err(DecodeError::wrong_type(join(path, key), "a string")),
    }
}

/// A boolean field, `None` when absent or not a boolean.
pub(crate) fn opt_bool(obj: &Map<String, Value>, key: &str) -> Option<bool> {
    obj.get(key).and_then(as_bool)
}

/// A non-negative integer field, `None` when absent or not an integer.
pub(crate) fn opt_u64(obj: &Map<String, Value>, key: &str) -> Option<u64> {
    obj.get(key).and_then(as_u64)
}

/// The strings of an array field; non-string and empty entries are skipped, anything that is
/// not an array reads as empty.
pub(crate) fn str_list(obj: &Map<String, Value>, key: &str) -> Vec<String> {
    match obj.get(key) {
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    }
}

/// An object field, `None` when absent, not an object, or empty (Python default).
pub(crate) fn opt_object(obj: &Map<String, Value>, key: &str) -> Option<Map<String, Value>> {
    match obj.get(key) {
        Some(Value::Object(m)) if !m.is_empty() => Some(m.clone()),
        _ => None,
    }
}

/// The elements of an array field; anything that is not an array reads as empty.
pub(crate) fn array<'a>(obj: &'a Map<String, Value>, key: &str) -> &'a [Value] {
    match obj.get(key) {
        Some(Value::Array(items)) => items,
        _ => &[],
    }
}

/// A field that is present and not null.
pub(crate) fn present<'a>(obj: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    obj.get(key).filter(|v| !v.is_null())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn integers_given_as_floats_are_accepted() {
        assert_eq!(as_u64(&json!(2.0)), Some(2));
        assert_eq!(as_u64(&json!(2)), Some(2));
        assert_eq!(as_u64(&json!("7")), Some(7));
        assert_eq!(as_u64(&json!(2.5)), None);
        assert_eq!(as_u64(&json!(-1.0)), None);
        assert_eq!(as_u64(&json!(1e300)), None);
        assert_eq!(as_i64(&json!(-32001.0)), Some(-32001));
        assert_eq!(as_i64(&json!(-32001)), Some(-32001));
        assert_eq!(as_i64(&json!(true)), None);
    }

    #[test]
    fn empty_defaults_read_as_absent() {
        let obj = json!({"a": "", "b": null, "c": 3, "d": {}, "e": "x", "l": ["x", 1, ""]});
        let obj = obj.as_object().expect("object");
        assert_eq!(opt_str(obj, "a"), None);
        assert_eq!(opt_str(obj, "b"), None);
        assert_eq!(opt_str(obj, "c"), None);
        assert_eq!(opt_str(obj, "e").as_deref(), Some("x"));
        assert_eq!(opt_object(obj, "d"), None);
        assert_eq!(str_list(obj, "l"), vec!["x".to_owned()]);
        assert_eq!(str_list(obj, "missing"), Vec::<String>::new());
    }

    #[test]
    fn required_strings_report_path() {
        let obj = json!({"a": "", "n": 1});
        let obj = obj.as_object().expect("object");
        assert_eq!(req_str(obj, "a", "msg"), Err(DecodeError::missing("msg.a")));
        assert_eq!(req_str(obj, "z", ""), Err(DecodeError::missing("z")));
        assert_eq!(
            req_str(obj, "n", "x"),
            Err(DecodeError::wrong_type("x.n", "a string"))
        );
    }

    #[test]
    fn paths_join() {
        assert_eq!(join("", "a"), "a");
        assert_eq!(join("a", "b"), "a.b");
        assert_eq!(index("parts", 2), "parts[2]");
    }
}
