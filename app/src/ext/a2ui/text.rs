//! String measures with JavaScript semantics for the A2UI module: lengths in UTF-16 code units,
//! compact-JSON lengths, truncation that never splits a code point, and number display.
//! Pure helpers; no allocation beyond the returned strings.

use serde_json::Value;

/// Length of `s` in UTF-16 code units (JavaScript `s.length`).
pub(crate) fn utf16_len(s: &str) -> usize {
    s.chars().map(char::len_utf16).sum()
}

/// Whether `s` is 1..=`max` UTF-16 units long.
pub(crate) fn is_id(s: &str, max: usize) -> bool {
    !s.is_empty() && utf16_len(s) <= max
}

/// `s` cut to at most `max` UTF-16 units, never splitting a code point.
pub(crate) fn truncate_utf16(s: &str, max: usize) -> String {
    let mut used = 0;
    let mut end = 0;
    for (index, c) in s.char_indices() {
        used += c.len_utf16();
        if used > max {
            break;
        }
        end = index + c.len_utf8();
    }
    s[..end].to_string()
}

/// A writer that counts the UTF-16 units of the UTF-8 bytes written to it.
struct Utf16Counter(usize);

impl std::io::Write for Utf16Counter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        for byte in buf {
            // Every non-continuation byte starts a code point; four-byte ones need two units.
            if byte & 0xC0 != 0x80 {
                self.0 += 1;
            }
            if byte & 0xF8 == 0xF0 {
                self.0 += 1;
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Length of `JSON.stringify(value)` (compact) in UTF-16 units.
pub(crate) fn json_len(value: &Value) -> usize {
    let mut counter = Utf16Counter(0);
    match serde_json::to_writer(&mut counter, value) {
        Ok(()) => counter.0,
        // A `Value` always serialises; treat the impossible failure as over every limit.
        Err(_) => usize::MAX,
    }
}

/// A number as JavaScript's `String(n)` prints common values (`1.0` → `"1"`).
pub(crate) fn number_text(n: &serde_json::Number) -> String {
    match n.as_f64() {
        Some(f) if n.is_f64() && f.fract() == 0.0 && f.abs() < 1e21 => format!("{f:.0}"),
        _ => n.to_string(),
    }
}

/// A resolved scalar as display text: strings as is, numbers and booleans printed, else `None`.
pub(crate) fn scalar_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(number_text(n)),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
