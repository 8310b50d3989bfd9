//! Agent Card signatures and trust pins (`shared/spec/security-and-durability.md` §2.4).
//!
//! `A2A_TRUSTED_CARD_KEYS` is a JSON array of `{origin, kid, jwk, expiresAt}`: the exact origin
//! of a card URL, a key id, a **public** RSA, EC (P-256) or OKP (Ed25519) key with `alg`
//! `RS256`, `ES256` or `EdDSA`, and when the pin stops counting (optional). Private or symmetric
//! keys are ignored; an expired pin counts as absent. A card's `signatures` are JWS with a
//! detached payload: the signing input is `protected` + `.` + base64url of the RFC 8785 form of
//! the card without `signatures` (also tried with empty values left out, as the A2A SDKs
//! canonicalize). Key URLs in a card or header (`jku`, `x5u`) are never fetched.

use app::words::CardTrust;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use chrono::{DateTime, Utc};
use ring::signature::{self, UnparsedPublicKey};
use serde::Deserialize;
use serde_json::{Map, Value};

/// The RFC 8785 form of `value`: the workspace's one canonical-JSON writer (UTF-16 key order,
/// ECMAScript numbers, `JSON.stringify` escaping), which is exactly JCS.
pub fn canonical(value: &Value) -> Vec<u8> {
    app::ext::canonical::canonical_json(value).into_bytes()
}

/// One trust pin, as configured.
#[derive(Clone, PartialEq, Eq)]
pub struct Pin {
    pub origin: String,
    pub kid: String,
    alg: Alg,
    /// The key in the form `ring` verifies with.
    key: Vec<u8>,
    /// RSA: the modulus and exponent.
    rsa: Option<(Vec<u8>, Vec<u8>)>,
    pub expires_at: Option<DateTime<Utc>>,
}

impl std::fmt::Debug for Pin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pin")
            .field("origin", &self.origin)
            .field("kid", &self.kid)
            .field("alg", &self.alg)
            .finish_non_exhaustive()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Alg {
    Rs256,
    Es256,
    EdDsa,
}

impl Alg {
    fn parse(name: &str) -> Option<Alg> {
        match name {
            "RS256" => Some(Alg::Rs256),
            "ES256" => Some(Alg::Es256),
            "EdDSA" => Some(Alg::EdDsa),
            _ => None,
        }
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawPin {
    origin: String,
    kid: String,
    jwk: Map<String, Value>,
    #[serde(default)]
    expires_at: Option<String>,
}

/// Reads `A2A_TRUSTED_CARD_KEYS`. Malformed JSON, an origin that is not exact, or an unreadable
/// date is an error naming the entry; private or symmetric keys, unknown key types and
/// algorithms are left out (they never count), as the spec says.
pub fn parse_pins(json: &str) -> Result<Vec<Pin>, String> {
    let raw: Vec<RawPin> = serde_json::from_str(json)
        .map_err(|_| "must be a JSON array of {origin, kid, jwk, expiresAt}".to_owned())?;
    let mut pins = Vec::new();
    for (index, entry) in raw.into_iter().enumerate() {
        let origin = crate::config::exact_origin(&entry.origin)
            .ok_or_else(|| format!("entry {index}: origin must be an exact http(s) origin"))?;
        let expires_at = entry
            .expires_at
            .map(|at| {
                DateTime::parse_from_rfc3339(&at)
                    .map(|at| at.with_timezone(&Utc))
                    .map_err(|_| format!("entry {index}: expiresAt must be an RFC 3339 date"))
            })
            .transpose()?;
        if let Some(pin) = public_key(&entry.jwk).map(|(alg, key, rsa)| Pin {
            origin,
            kid: entry.kid,
            alg,
            key,
            rsa,
            expires_at,
        }) {
            pins.push(pin);
        } else {
            tracing::warn!(
                entry = index,
                "A2A_TRUSTED_CARD_KEYS: a key that is not a usable public RS256, ES256 or EdDSA key is ignored"
            );
        }
    }
    Ok(pins)
}

type Key = (Alg, Vec<u8>, Option<(Vec<u8>, Vec<u8>)>);

/// The public key of a JWK with its algorithm; `None` for private, symmetric or unsupported keys.
fn public_key(jwk: &Map<String, Value>) -> Option<Key> {
    let text = |name: &str| jwk.get(name).and_then(Value::as_str);
    let bytes = |name: &str| text(name).and_then(|v| B64.decode(v).ok());
    // A private part ("d", or RSA's primes) or a symmetric key: ignored.
    if ["d", "p", "q", "dp", "dq", "qi", "k"]
        .iter()
        .any(|m| jwk.contains_key(*m))
    {
        return None;
    }
    let alg = Alg::parse(text("alg")?)?;
    match (text("kty")?, alg) {
        ("RSA", Alg::Rs256) => {
            let (n, e) = (bytes("n")?, bytes("e")?);
            Some((alg, Vec::new(), Some((n, e))))
        }
        ("EC", Alg::Es256) if text("crv") == Some("P-256") => {
            let (x, y) = (bytes("x")?, bytes("y")?);
            if x.len() != 32 || y.len() != 32 {
                return None;
            }
            let mut point = vec![4u8];
            point.extend(x);
            point.extend(y);
            Some((alg, point, None))
        }
        ("OKP", Alg::EdDsa) if text("crv") == Some("Ed25519") => {
            let x = bytes("x")?;
            (x.len() == 32).then_some((alg, x, None))
        }
        _ => None,
    }
}

impl Pin {
    fn verify(&self, message: &[u8], signature_bytes: &[u8]) -> bool {
        match (self.alg, &self.rsa) {
            (Alg::Rs256, Some((n, e))) => signature::RsaPublicKeyComponents { n, e }
                .verify(&signature::RSA_PKCS1_2048_8192_SHA256, message, signature_bytes)
                .is_ok(),
            (Alg::Es256, _) => UnparsedPublicKey::new(&signature::ECDSA_P256_SHA256_FIXED, &self.key)
                .verify(message, signature_bytes)
                .is_ok(),
            (Alg::EdDsa, _) => UnparsedPublicKey::new(&signature::ED25519, &self.key)
                .verify(message, signature_bytes)
                .is_ok(),
            (Alg::Rs256, None) => false,
        }
    }
}

/// What `raw`'s signatures prove for a card served from `origin`, under `pins` at `now`.
pub fn verify(raw: &Value, origin: &str, pins: &[Pin], now: DateTime<Utc>) -> CardTrust {
    let signatures = match raw.get("signatures").and_then(Value::as_array) {
        Some(list) if !list.is_empty() => list,
        _ => return CardTrust::Unsigned,
    };
    let payloads = payloads(raw);
    let mut pinned = false;
    for entry in signatures {
        let protected = entry.get("protected").and_then(Value::as_str).unwrap_or_default();
        let header: Map<String, Value> = B64
            .decode(protected)
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default();
        let kid = header
            .get("kid")
            .or_else(|| entry.get("header").and_then(|h| h.get("kid")))
            .and_then(Value::as_str);
        let Some(kid) = kid else { continue };
        let usable: Vec<&Pin> = pins
            .iter()
            .filter(|p| p.origin == origin && p.kid == kid && p.expires_at.is_none_or(|at| at > now))
            .collect();
        if usable.is_empty() {
            continue;
        }
        pinned = true;
        let alg = header.get("alg").and_then(Value::as_str).and_then(Alg::parse);
        let signature_bytes = entry
            .get("signature")
            .and_then(Value::as_str)
            .and_then(|s| B64.decode(s).ok());
        let (Some(alg), Some(signature_bytes)) = (alg, signature_bytes) else {
            continue;
        };
        let verified = usable.iter().filter(|pin| pin.alg == alg).any(|pin| {
            payloads.iter().any(|payload| {
                let input = format!("{protected}.{}", B64.encode(payload));
                pin.verify(input.as_bytes(), &signature_bytes)
            })
        });
        if verified {
            return CardTrust::Verified;
        }
    }
    if pinned {
        CardTrust::Invalid
    } else {
        CardTrust::Untrusted
    }
}

/// The canonical forms a signer may have signed: the card as served without `signatures`, and
/// the same with empty strings, arrays and objects left out (the A2A SDKs' form).
fn payloads(raw: &Value) -> Vec<Vec<u8>> {
    let mut unsigned = raw.clone();
    if let Some(map) = unsigned.as_object_mut() {
        map.remove("signatures");
    }
    let plain = canonical(&unsigned);
    let cleaned = canonical(&without_empty(unsigned));
    if cleaned == plain {
        vec![plain]
    } else {
        vec![plain, cleaned]
    }
}

fn without_empty(value: Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(k, v)| (k, without_empty(v)))
                .filter(|(_, v)| !is_empty(v))
                .collect(),
        ),
        Value::Array(items) => Value::Array(
            items
                .into_iter()
                .map(without_empty)
                .filter(|v| !is_empty(v))
                .collect(),
        ),
        other => other,
    }
}

fn is_empty(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        _ => false,
    }
}

/// Signs `card` (without `signatures`) with an Ed25519 key and adds the signature: the demo
/// agent's signed variant and the tests use it; the console only verifies.
pub fn sign_ed25519(card: &mut Value, seed: &[u8; 32], kid: &str) {
    let Ok(pair) = signature::Ed25519KeyPair::from_seed_unchecked(seed) else {
        return;
    };
    if let Some(map) = card.as_object_mut() {
        map.remove("signatures");
    }
    let protected = B64.encode(serde_json::json!({"alg": "EdDSA", "kid": kid, "typ": "JOSE"}).to_string());
    let input = format!("{protected}.{}", B64.encode(canonical(card)));
    let signed = B64.encode(pair.sign(input.as_bytes()).as_ref());
    card["signatures"] = serde_json::json!([{"protected": protected, "signature": signed}]);
}

/// The public JWK of the Ed25519 key with `seed`.
pub fn ed25519_public_jwk(seed: &[u8; 32]) -> Value {
    use ring::signature::KeyPair as _;
    let x = signature::Ed25519KeyPair::from_seed_unchecked(seed)
        .map(|pair| B64.encode(pair.public_key().as_ref()))
        .unwrap_or_default();
    serde_json::json!({"kty": "OKP", "crv": "Ed25519", "alg": "EdDSA", "x": x})
}

#[cfg(test)]
mod tests;
