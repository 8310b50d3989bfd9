//! The archived-bytes URL convention: the console serves bytes it archived itself at
//! `/api/artifacts/<sha256>`, and only such URLs are ever loaded inline (media rule).
//!
//! Pure string checks; this module does not know how or where the bytes are stored.

/// Path prefix of every archived-bytes URL; the rest is the SHA-256 of the bytes.
pub const ARCHIVE_URL_PREFIX: &str = "/api/artifacts/";

/// Length of a SHA-256 digest in hex.
const DIGEST_HEX_LEN: usize = 64;

/// The URL at which the bytes with this lowercase-hex SHA-256 `digest` are served.
pub fn archive_url(digest: &str) -> String {
    format!("{ARCHIVE_URL_PREFIX}{digest}")
}

/// The digest of an archived-bytes URL: `url` must be exactly the prefix followed by 64
/// lowercase hex digits, with no query, fragment or trailing slash; anything else is `None`.
pub fn archived_digest(url: &str) -> Option<&str> {
    let digest = url.strip_prefix(ARCHIVE_URL_PREFIX)?;
    let valid = digest.len() == DIGEST_HEX_LEN
        && digest
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    valid.then_some(digest)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIGEST: &str = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

    #[test]
    fn archive_url_round_trips() {
        let url = archive_url(DIGEST);
        assert_eq!(url, format!("/api/artifacts/{DIGEST}"));
        assert_eq!(archived_digest(&url), Some(DIGEST));
    }

    #[test]
    fn archived_digest_requires_64_lowercase_hex() {
        assert_eq!(archived_digest(&archive_url(&DIGEST.to_uppercase())), None);
        assert_eq!(archived_digest(&archive_url(&DIGEST[1..])), None);
        assert_eq!(archived_digest(&archive_url(&format!("{DIGEST}0"))), None);
        assert_eq!(archived_digest(&archive_url(&"g".repeat(64))), None);
        assert_eq!(archived_digest(ARCHIVE_URL_PREFIX), None);
    }

    #[test]
    fn archived_digest_rejects_anything_after_the_digest() {
        for suffix in ["/", "?x=1", "#f", " ", "/../x"] {
            assert_eq!(archived_digest(&format!("{}{suffix}", archive_url(DIGEST))), None);
        }
    }

    #[test]
    fn archived_digest_rejects_other_urls() {
        for url in [
            format!("https://example.com/api/artifacts/{DIGEST}"),
            format!("api/artifacts/{DIGEST}"),
            format!("//api/artifacts/{DIGEST}"),
            format!(" /api/artifacts/{DIGEST}"),
            format!("/API/artifacts/{DIGEST}"),
            format!("/api/artifacts//{DIGEST}"),
        ] {
            assert_eq!(archived_digest(&url), None, "{url}");
        }
    }
}
