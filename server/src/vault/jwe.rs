//! Compact JWE with `alg: "dir"` and `enc: "A256GCM"` (RFC 7516 §7.1, RFC 7518 §4.5, §5.3), the
//! format of the vault's ciphertexts (`shared/spec/security-and-durability.md` §2.2). The
//! protected header carries `kid` and `typ`; it is the AEAD's additional data, so changing it
//! breaks the tag. AES-256-GCM from RustCrypto's `aes-gcm`.

use aes_gcm::aead::{Aead, KeyInit, Payload};
use aes_gcm::{Aes256Gcm, Nonce};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use serde::{Deserialize, Serialize};

/// The `typ` of every vault ciphertext.
pub const TYP: &str = "a2a-agent-credential";

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Header {
    alg: String,
    enc: String,
    kid: String,
    typ: String,
}

/// Encrypts `plaintext` under `key`, naming `kid` in the protected header.
pub fn seal(key: &[u8; 32], kid: &str, plaintext: &[u8]) -> Option<String> {
    let header = Header {
        alg: "dir".into(),
        enc: "A256GCM".into(),
        kid: kid.into(),
        typ: TYP.into(),
    };
    let protected = B64.encode(serde_json::to_vec(&header).ok()?);
    let mut iv = [0u8; 12];
    getrandom::fill(&mut iv).ok()?;
    let cipher = Aes256Gcm::new(key.into());
    let sealed = cipher
        .encrypt(
            Nonce::from_slice(&iv),
            Payload {
                msg: plaintext,
                aad: protected.as_bytes(),
            },
        )
        .ok()?;
    // aes-gcm appends the 16-byte tag to the ciphertext.
    let (ciphertext, tag) = sealed.split_at(sealed.len() - 16);
    Some(format!(
        "{protected}..{}.{}.{}",
        B64.encode(iv),
        B64.encode(ciphertext),
        B64.encode(tag)
    ))
}

/// The key id a compact JWE names, if its header is readable (before decrypting).
pub fn kid(compact: &str) -> Option<String> {
    let protected = compact.split('.').next()?;
    let header: Header = serde_json::from_slice(&B64.decode(protected).ok()?).ok()?;
    Some(header.kid)
}

/// Decrypts a compact JWE made by [`seal`]: only `dir` / `A256GCM` with `typ` [`TYP`] and `kid`
/// equal to `expected_kid`; any other input is `None`, without saying why.
pub fn open(key: &[u8; 32], expected_kid: &str, compact: &str) -> Option<Vec<u8>> {
    let mut parts = compact.split('.');
    let (protected, encrypted_key, iv, ciphertext, tag) = (
        parts.next()?,
        parts.next()?,
        parts.next()?,
        parts.next()?,
        parts.next()?,
    );
    if parts.next().is_some() || !encrypted_key.is_empty() {
        return None;
    }
    let header: Header = serde_json::from_slice(&B64.decode(protected).ok()?).ok()?;
    if header.alg != "dir" || header.enc != "A256GCM" || header.typ != TYP || header.kid != expected_kid {
        return None;
    }
    let iv = B64.decode(iv).ok()?;
    if iv.len() != 12 {
        return None;
    }
    let mut sealed = B64.decode(ciphertext).ok()?;
    let tag = B64.decode(tag).ok()?;
    if tag.len() != 16 {
        return None;
    }
    sealed.extend_from_slice(&tag);
    Aes256Gcm::new(key.into())
        .decrypt(
            Nonce::from_slice(&iv),
            Payload {
                msg: &sealed,
                aad: protected.as_bytes(),
            },
        )
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: [u8; 32] = [7; 32];

    #[test]
    fn round_trip_and_header() {
        let compact = seal(&KEY, "k1", b"hello").unwrap();
        assert_eq!(compact.split('.').count(), 5);
        assert_eq!(kid(&compact).as_deref(), Some("k1"));
        assert_eq!(open(&KEY, "k1", &compact).as_deref(), Some(&b"hello"[..]));
        // A fresh IV each time.
        assert_ne!(seal(&KEY, "k1", b"hello").unwrap(), compact);
    }

    #[test]
    fn anything_else_fails_closed() {
        let compact = seal(&KEY, "k1", b"hello").unwrap();
        assert!(open(&[8; 32], "k1", &compact).is_none(), "wrong key");
        assert!(open(&KEY, "k2", &compact).is_none(), "other kid");
        let parts: Vec<&str> = compact.split('.').collect();
        // A header rewritten to another kid breaks the tag (it is the additional data).
        let forged = B64.encode(br#"{"alg":"dir","enc":"A256GCM","kid":"k2","typ":"a2a-agent-credential"}"#);
        let swapped = format!("{forged}..{}.{}.{}", parts[2], parts[3], parts[4]);
        assert!(open(&KEY, "k2", &swapped).is_none());
        let mut flipped = B64.decode(parts[3]).unwrap();
        flipped[0] ^= 1;
        let tampered = format!("{}..{}.{}.{}", parts[0], parts[2], B64.encode(flipped), parts[4]);
        assert!(open(&KEY, "k1", &tampered).is_none());
        assert!(open(&KEY, "k1", "not.a.jwe").is_none());
        let none_alg =
            B64.encode(br#"{"alg":"none","enc":"A256GCM","kid":"k1","typ":"a2a-agent-credential"}"#);
        assert!(
            open(
                &KEY,
                "k1",
                &format!("{none_alg}..{}.{}.{}", parts[2], parts[3], parts[4])
            )
            .is_none()
        );
    }
}
