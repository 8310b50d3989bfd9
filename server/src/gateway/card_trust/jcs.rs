//! RFC 8785 JSON Canonicalization Scheme: object members sorted by the UTF-16 code units of
//! their names, no whitespace, strings escaped minimally, numbers as ECMAScript prints them. The
//! signing input of an Agent Card signature is this form of the card without `signatures`.

use serde_json::Value;

/// The canonical bytes of `value`.
pub fn canonical(value: &Value) -> Vec<u8> {
    let mut out = String::new();
    write(value, &mut out);
    out.into_bytes()
}

fn write(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&number(n)),
        Value::String(s) => string(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|(a, _), (b, _)| a.encode_utf16().cmp(b.encode_utf16()));
            out.push('{');
            for (i, (key, item)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                string(key, out);
                out.push(':');
                write(item, out);
            }
            out.push('}');
        }
    }
}

/// ECMAScript `Number.prototype.toString` for the values cards hold: integers exactly, other
/// finite numbers in the shortest form that reads back, with ECMAScript's exponent rules.
fn number(n: &serde_json::Number) -> String {
    if let Some(i) = n.as_i64() {
        return i.to_string();
    }
    if let Some(u) = n.as_u64() {
        return u.to_string();
    }
    let f = n.as_f64().unwrap_or(0.0);
    if f == 0.0 {
        return "0".into();
    }
    if f.fract() == 0.0 && f.abs() < 1e21 {
        return format!("{f:.0}");
    }
    // Rust's shortest round-trip digits, laid out as ECMAScript does.
    let formatted = format!("{f:e}");
    let (mantissa, exponent) = formatted.split_once('e').unwrap_or((&formatted, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let negative = mantissa.starts_with('-');
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let k = digits.len() as i32;
    let n = exponent + 1;
    let body = if (k..=21).contains(&n) {
        format!("{digits}{}", "0".repeat((n - k) as usize))
    } else if 0 < n && n <= 21 {
        format!("{}.{}", &digits[..n as usize], &digits[n as usize..])
    } else if -6 < n && n <= 0 {
        format!("0.{}{digits}", "0".repeat((-n) as usize))
    } else {
        let sign = if n - 1 >= 0 { "+" } else { "-" };
        let rest = if k > 1 {
            format!(".{}", &digits[1..])
        } else {
            String::new()
        };
        format!("{}{rest}e{sign}{}", &digits[..1], (n - 1).abs())
    };
    if negative { format!("-{body}") } else { body }
}

fn string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{08}' => out.push_str("\\b"),
            '\u{0c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn canon(value: Value) -> String {
        String::from_utf8(canonical(&value)).unwrap()
    }

    #[test]
    fn members_are_sorted_by_utf16_and_nothing_is_spaced() {
        assert_eq!(
            canon(
                json!({"b": [1, {"z": null, "a": true}], "a": "x", "\u{e9}": 1, "\u{1f600}": 2, "\u{fb33}": 3})
            ),
            "{\"a\":\"x\",\"b\":[1,{\"a\":true,\"z\":null}],\"\u{e9}\":1,\"\u{1f600}\":2,\"\u{fb33}\":3}"
        );
    }

    #[test]
    fn strings_and_numbers_follow_rfc_8785() {
        assert_eq!(
            canon(json!("a\"b\\c\n\u{1}\u{7f}é")),
            "\"a\\\"b\\\\c\\n\\u0001\u{7f}é\""
        );
        let numbers: Value =
            serde_json::from_str("[0, -0.0, 1.0, 4.5, 0.000001, 1e-7, 1e21, 123456789012, 1.5e300, -2.25]")
                .unwrap();
        assert_eq!(
            canon(numbers),
            "[0,0,1,4.5,0.000001,1e-7,1e+21,123456789012,1.5e+300,-2.25]"
        );
    }
}
