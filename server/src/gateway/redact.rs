//! Redaction of echoed secrets (`shared/spec/security-and-durability.md` §2.3 step 9): before an
//! agent's answer is stored or shown, every known secret of the credential it was called with
//! is replaced by [`REDACTED`], as written literally, in base64 (standard and URL-safe, with or
//! without padding) and URL-encoded; in object keys as well as values; and inside the base64
//! bytes of file parts (`raw` in 1.0, `bytes` in 0.3), which are decoded, patched and
//! re-encoded. Only known literals are caught: an agent that splits or transforms a secret
//! defeats this, which the threat model accepts.

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
use serde_json::{Map, Value};

/// What a secret is replaced with.
pub const REDACTED: &str = "[redacted]";

/// The forms of a set of secrets to look for; empty when there are none.
#[derive(Clone, Debug, Default)]
pub struct Redactor {
    /// Every form of every secret, longest first so a longer form is replaced before a shorter
    /// one that it contains.
    needles: Vec<String>,
}

impl Redactor {
    /// A redactor for `secrets` (empty strings are ignored).
    pub fn new<'a>(secrets: impl IntoIterator<Item = &'a str>) -> Redactor {
        let mut needles = Vec::new();
        for secret in secrets.into_iter().filter(|s| !s.is_empty()) {
            let bytes = secret.as_bytes();
            needles.push(secret.to_owned());
            for engine in [&STANDARD, &STANDARD_NO_PAD, &URL_SAFE, &URL_SAFE_NO_PAD] {
                needles.push(engine.encode(bytes));
            }
            needles.push(url::form_urlencoded::byte_serialize(bytes).collect());
            needles.push(percent_encode(bytes));
        }
        needles.sort_by_key(|n| std::cmp::Reverse(n.len()));
        needles.dedup();
        Redactor { needles }
    }

    /// Whether there is nothing to redact.
    pub fn is_empty(&self) -> bool {
        self.needles.is_empty()
    }

    /// `text` with every form replaced.
    pub fn text(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for needle in &self.needles {
            if out.contains(needle.as_str()) {
                out = out.replace(needle.as_str(), REDACTED);
            }
        }
        out
    }

    /// Redacts `value` in place: strings, keys, and the decoded bytes of file parts.
    pub fn value(&self, value: &mut Value) {
        if self.is_empty() {
            return;
        }
        match value {
            Value::String(text) => {
                if self.needles.iter().any(|n| text.contains(n.as_str())) {
                    *text = self.text(text);
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|item| self.value(item)),
            Value::Object(map) => {
                let entries = std::mem::take(map);
                let mut redacted = Map::with_capacity(entries.len());
                for (key, mut item) in entries {
                    if matches!(key.as_str(), "raw" | "bytes")
                        && let Value::String(encoded) = &mut item
                        && let Some(patched) = self.base64_bytes(encoded)
                    {
                        *encoded = patched;
                    }
                    self.value(&mut item);
                    redacted.insert(self.text(&key), item);
                }
                *map = redacted;
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }

    /// The base64 `encoded` with secrets replaced inside its decoded bytes, re-encoded the same
    /// way; `None` when it is not base64 or holds no secret.
    fn base64_bytes(&self, encoded: &str) -> Option<String> {
        let url_safe = encoded.contains(['-', '_']);
        let engine = match (url_safe, encoded.ends_with('=')) {
            (true, true) => &URL_SAFE,
            (true, false) => &URL_SAFE_NO_PAD,
            (false, true) => &STANDARD,
            (false, false) => &STANDARD_NO_PAD,
        };
        let bytes = engine.decode(encoded).ok()?;
        let mut patched = bytes.clone();
        for needle in &self.needles {
            patched = replace_bytes(&patched, needle.as_bytes(), REDACTED.as_bytes());
        }
        (patched != bytes).then(|| engine.encode(patched))
    }
}

fn replace_bytes(haystack: &[u8], needle: &[u8], with: &[u8]) -> Vec<u8> {
    if needle.is_empty() || haystack.len() < needle.len() {
        return haystack.to_vec();
    }
    let mut out = Vec::with_capacity(haystack.len());
    let mut i = 0;
    while i < haystack.len() {
        if haystack[i..].starts_with(needle) {
            out.extend_from_slice(with);
            i += needle.len();
        } else {
            out.push(haystack[i]);
            i += 1;
        }
    }
    out
}

/// RFC 3986 percent-encoding of everything but unreserved characters.
fn percent_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 3);
    for &b in bytes {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const SECRET: &str = "s3cr3t/tok+en=?&";

    #[test]
    fn every_form_is_redacted_in_keys_values_and_file_bytes_section_2_3_step_9() {
        let redactor = Redactor::new([SECRET]);
        let file = format!("header {SECRET} footer");
        let mut answer = json!({
            "text": format!("your key is {SECRET}"),
            "b64": STANDARD.encode(SECRET),
            "b64url": URL_SAFE_NO_PAD.encode(SECRET),
            "url": format!("https://x.example/?k={}", url::form_urlencoded::byte_serialize(SECRET.as_bytes()).collect::<String>()),
            "pct": percent_encode(SECRET.as_bytes()),
            SECRET: "as a key",
            "parts": [{"raw": STANDARD.encode(&file), "mediaType": "text/plain"},
                      {"file": {"bytes": STANDARD.encode(&file)}}],
        });
        redactor.value(&mut answer);
        let shown = answer.to_string();
        for form in [
            SECRET.to_owned(),
            STANDARD.encode(SECRET),
            URL_SAFE_NO_PAD.encode(SECRET),
            percent_encode(SECRET.as_bytes()),
        ] {
            assert!(!shown.contains(&form), "{form} in {shown}");
        }
        assert_eq!(answer["text"], "your key is [redacted]");
        assert_eq!(answer["b64"], REDACTED);
        assert_eq!(answer[REDACTED], "as a key");
        let raw = STANDARD
            .decode(answer["parts"][0]["raw"].as_str().unwrap())
            .unwrap();
        assert_eq!(raw, b"header [redacted] footer");
        let bytes = STANDARD
            .decode(answer["parts"][1]["file"]["bytes"].as_str().unwrap())
            .unwrap();
        assert_eq!(bytes, b"header [redacted] footer");
    }

    #[test]
    fn nothing_known_nothing_changed() {
        let mut answer = json!({"text": "hello", "raw": STANDARD.encode("plain bytes")});
        let before = answer.clone();
        Redactor::new([SECRET]).value(&mut answer);
        assert_eq!(answer, before);
        Redactor::default().value(&mut answer);
        assert_eq!(answer, before);
    }
}
