//! RFC 6901 JSON Pointers over an A2UI data model (§1.4 `updateDataModel`): parsing with the
//! length and forbidden-segment rules, reads, and set/delete with intermediate creation.
//! Pure data operations; the size limit of the result is checked by the caller.

use serde_json::{Map, Value};

use super::text::utf16_len;
use super::{MAX_MODEL_JSON_CHARS, MAX_POINTER_CHARS};

/// Segments that make a pointer invalid (§1.4).
pub const FORBIDDEN_SEGMENTS: [&str; 3] = ["__proto__", "constructor", "prototype"];

/// Parses an absolute pointer into unescaped segments (§1.4): at most 512 UTF-16 units, `""` and
/// `"/"` are the root (no segments), otherwise it starts with `/`; `~1` → `/`, `~0` → `~`. A `~`
/// followed by anything else (not RFC 6901) and any `__proto__`/`constructor`/`prototype`
/// segment make it invalid (`None`).
pub fn parse_pointer(pointer: &str) -> Option<Vec<String>> {
    if utf16_len(pointer) > MAX_POINTER_CHARS {
        return None;
    }
    if pointer.is_empty() || pointer == "/" {
        return Some(Vec::new());
    }
    let rest = pointer.strip_prefix('/')?;
    rest.split('/').map(unescape_segment).collect()
}

/// One segment, unescaped and checked against [`FORBIDDEN_SEGMENTS`].
fn unescape_segment(raw: &str) -> Option<String> {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c != '~' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('1') => out.push('/'),
            Some('0') => out.push('~'),
            _ => return None,
        }
    }
    (!FORBIDDEN_SEGMENTS.contains(&out.as_str())).then_some(out)
}

/// A canonical array index (`"0"`, `"12"`; not `"01"`, `"-"` or `"+1"`), as JavaScript arrays
/// treat property names.
pub(crate) fn array_index(segment: &str) -> Option<usize> {
    let canonical = !segment.is_empty()
        && segment.bytes().all(|b| b.is_ascii_digit())
        && (segment == "0" || !segment.starts_with('0'));
    if canonical { segment.parse().ok() } else { None }
}

/// The value at `segments` below `root`, if any.
pub(crate) fn get<'a>(root: &'a Value, segments: &[String]) -> Option<&'a Value> {
    segments.iter().try_fold(root, |current, segment| match current {
        Value::Object(map) => map.get(segment),
        Value::Array(items) => items.get(array_index(segment)?),
        _ => None,
    })
}

/// Why a non-root write was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Conflict;

/// Largest index a write may pad an array to: beyond it the nulls alone exceed the model limit.
const MAX_PADDED_INDEX: usize = MAX_MODEL_JSON_CHARS / 5;

/// Sets (`Some`) or deletes (`None`) the value at non-empty `segments` (§1.4): missing
/// intermediate objects are created (not for a delete, which is then a no-op); an intermediate
/// non-container value or a non-numeric index into an array is a [`Conflict`]. Arrays are padded
/// with `null` when written past their end (as JavaScript would); deleting an array element
/// removes it.
pub(crate) fn write(root: &mut Value, segments: &[String], value: Option<Value>) -> Result<(), Conflict> {
    let Some((last, parents)) = segments.split_last() else {
        return Err(Conflict);
    };
    let mut current = root;
    for segment in parents {
        match descend(current, segment, value.is_some())? {
            Some(child) => current = child,
            None => return Ok(()),
        }
    }
    write_last(current, last, value)
}

/// The container child at `segment`, created when missing and `create` is set.
fn descend<'a>(
    current: &'a mut Value,
    segment: &str,
    create: bool,
) -> Result<Option<&'a mut Value>, Conflict> {
    let child = match current {
        Value::Object(map) if !map.contains_key(segment) && !create => return Ok(None),
        Value::Object(map) => map.entry(segment).or_insert_with(|| Value::Object(Map::new())),
        Value::Array(items) => {
            let index = array_index(segment).ok_or(Conflict)?;
            if index >= items.len() {
                if !create {
                    return Ok(None);
                }
                pad_to(items, index)?;
                items.push(Value::Object(Map::new()));
            }
            items.get_mut(index).ok_or(Conflict)?
        }
        _ => return Err(Conflict),
    };
    if child.is_object() || child.is_array() {
        Ok(Some(child))
    } else {
        Err(Conflict)
    }
}

/// Pads `items` with `null` up to (not including) `index`.
fn pad_to(items: &mut Vec<Value>, index: usize) -> Result<(), Conflict> {
    if index > MAX_PADDED_INDEX {
        return Err(Conflict);
    }
    items.resize(index.max(items.len()), Value::Null);
    Ok(())
}

/// The final step of [`write()`].
fn write_last(parent: &mut Value, segment: &str, value: Option<Value>) -> Result<(), Conflict> {
    match (parent, value) {
        (Value::Object(map), Some(value)) => {
            map.insert(segment.to_string(), value);
        }
        (Value::Object(map), None) => {
            map.remove(segment);
        }
        (Value::Array(items), value) => {
            let index = array_index(segment).ok_or(Conflict)?;
            match value {
                Some(value) if index < items.len() => items[index] = value,
                Some(value) => {
                    pad_to(items, index)?;
                    items.push(value);
                }
                None if index < items.len() => {
                    items.remove(index);
                }
                None => {}
            }
        }
        _ => return Err(Conflict),
    }
    Ok(())
}

#[cfg(test)]
mod tests;
