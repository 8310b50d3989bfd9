//! Card signature verification: every state, every algorithm, the pins' rules.

use chrono::Duration;
use ring::rand::SystemRandom;
use ring::signature::{EcdsaKeyPair, KeyPair as _};
use serde_json::json;

use super::*;

const ORIGIN: &str = "https://agent.example";
const SEED: [u8; 32] = [9; 32];

fn card() -> Value {
    json!({"name": "Signed", "description": "", "version": "1.0.0", "skills": [],
           "capabilities": {"streaming": true}, "url": "https://agent.example/a2a"})
}

fn pins(entries: Value) -> Vec<Pin> {
    parse_pins(&entries.to_string()).unwrap()
}

fn ed_pin(kid: &str, expires: Option<DateTime<Utc>>) -> Value {
    json!([{"origin": ORIGIN, "kid": kid, "jwk": ed25519_public_jwk(&SEED), "expiresAt": expires.map(|e| e.to_rfc3339())}])
}

#[test]
fn valid_tampered_unpinned_expired_and_wrong_alg_cards_section_2_4() {
    let now = Utc::now();
    let mut signed = card();
    sign_ed25519(&mut signed, &SEED, "k1");
    assert_eq!(verify(&card(), ORIGIN, &[], now), CardTrust::Unsigned);
    assert_eq!(
        verify(&signed, ORIGIN, &pins(ed_pin("k1", None)), now),
        CardTrust::Verified
    );
    let mut tampered = signed.clone();
    tampered["name"] = json!("Evil");
    assert_eq!(
        verify(&tampered, ORIGIN, &pins(ed_pin("k1", None)), now),
        CardTrust::Invalid
    );
    assert_eq!(verify(&signed, ORIGIN, &[], now), CardTrust::Untrusted, "no pin");
    assert_eq!(
        verify(&signed, ORIGIN, &pins(ed_pin("k2", None)), now),
        CardTrust::Untrusted,
        "other kid"
    );
    assert_eq!(
        verify(&signed, "https://other.example", &pins(ed_pin("k1", None)), now),
        CardTrust::Untrusted
    );
    let expired = pins(ed_pin("k1", Some(now - Duration::minutes(1))));
    assert_eq!(
        verify(&signed, ORIGIN, &expired, now),
        CardTrust::Untrusted,
        "an expired pin is absent"
    );
    // The pin is an ES256 key under the same kid: the EdDSA signature is not accepted.
    let rng = SystemRandom::new();
    let pkcs8 = EcdsaKeyPair::generate_pkcs8(&signature::ECDSA_P256_SHA256_FIXED_SIGNING, &rng).unwrap();
    let ec =
        EcdsaKeyPair::from_pkcs8(&signature::ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref(), &rng).unwrap();
    let point = ec.public_key().as_ref();
    let ec_jwk = json!({"kty": "EC", "crv": "P-256", "alg": "ES256", "x": B64.encode(&point[1..33]), "y": B64.encode(&point[33..])});
    let wrong_alg = pins(json!([{"origin": ORIGIN, "kid": "k1", "jwk": ec_jwk}]));
    assert_eq!(verify(&signed, ORIGIN, &wrong_alg, now), CardTrust::Invalid);
    // And an ES256 signature with that key verifies.
    let mut es = card();
    let protected = B64.encode(json!({"alg": "ES256", "kid": "k1"}).to_string());
    let input = format!("{protected}.{}", B64.encode(canonical(&es)));
    let sig = ec.sign(&rng, input.as_bytes()).unwrap();
    es["signatures"] = json!([{"protected": protected, "signature": B64.encode(sig.as_ref())}]);
    assert_eq!(verify(&es, ORIGIN, &wrong_alg, now), CardTrust::Verified);
}

#[test]
fn sdk_style_signatures_over_the_card_without_empty_values_verify() {
    let pair = signature::Ed25519KeyPair::from_seed_unchecked(&SEED).unwrap();
    let protected = B64.encode(json!({"alg": "EdDSA", "kid": "k1"}).to_string());
    let cleaned = without_empty(card());
    assert!(cleaned.get("description").is_none() && cleaned.get("skills").is_none());
    let input = format!("{protected}.{}", B64.encode(canonical(&cleaned)));
    let mut signed = card();
    signed["signatures"] =
        json!([{"protected": protected, "signature": B64.encode(pair.sign(input.as_bytes()).as_ref())}]);
    assert_eq!(
        verify(&signed, ORIGIN, &pins(ed_pin("k1", None)), Utc::now()),
        CardTrust::Verified
    );
}

#[test]
fn the_signing_input_is_the_rfc_8785_form() {
    let value: Value = serde_json::from_str(
        r#"{"b":[1,{"z":null,"a":true}],"a":"x\n\u0001","\u00e9":1,"\ud83d\ude00":2,"\ufb33":3,"n":[4.5,1e21,0.000001,1e-7,-0.0]}"#,
    )
    .unwrap();
    assert_eq!(
        String::from_utf8(canonical(&value)).unwrap(),
        "{\"a\":\"x\\n\\u0001\",\"b\":[1,{\"a\":true,\"z\":null}],\"n\":[4.5,1e+21,0.000001,1e-7,0],\"\u{e9}\":1,\"\u{1f600}\":2,\"\u{fb33}\":3}"
    );
}

#[test]
fn private_symmetric_and_unknown_keys_never_count() {
    let mut private = ed25519_public_jwk(&SEED);
    private["d"] = json!(B64.encode(SEED));
    let entries = json!([
        {"origin": ORIGIN, "kid": "priv", "jwk": private},
        {"origin": ORIGIN, "kid": "sym", "jwk": {"kty": "oct", "k": "c2VjcmV0", "alg": "HS256"}},
        {"origin": ORIGIN, "kid": "none", "jwk": {"kty": "OKP", "crv": "Ed25519", "alg": "none", "x": "AA"}},
    ]);
    assert!(pins(entries).is_empty());
    assert!(parse_pins("{}").is_err());
    assert!(parse_pins(r#"[{"origin":"https://a.example/path","kid":"k","jwk":{}}]"#).is_err());
    assert!(
        parse_pins(r#"[{"origin":"https://a.example","kid":"k","jwk":{},"expiresAt":"tomorrow"}]"#).is_err()
    );
}

#[test]
fn rsa_pins_verify_rs256_signatures() {
    // A 2048-bit RSA key for this test only (PKCS#1 DER, base64, made with openssl): not a secret.
    let der = base64::engine::general_purpose::STANDARD
        .decode(TEST_RSA_PKCS1.trim())
        .unwrap();
    let pair = signature::RsaKeyPair::from_der(&der).unwrap();
    let public = pair.public().modulus_len();
    assert_eq!(public, 256);
    let components: signature::RsaPublicKeyComponents<Vec<u8>> = pair.public().into();
    let jwk =
        json!({"kty": "RSA", "alg": "RS256", "n": B64.encode(&components.n), "e": B64.encode(&components.e)});
    let protected = B64.encode(json!({"alg": "RS256", "kid": "rsa"}).to_string());
    let mut signed = card();
    let input = format!("{protected}.{}", B64.encode(canonical(&signed)));
    let mut sig = vec![0; pair.public().modulus_len()];
    pair.sign(
        &signature::RSA_PKCS1_SHA256,
        &SystemRandom::new(),
        input.as_bytes(),
        &mut sig,
    )
    .unwrap();
    signed["signatures"] = json!([{"protected": protected, "signature": B64.encode(&sig)}]);
    let pinned = pins(json!([{"origin": ORIGIN, "kid": "rsa", "jwk": jwk}]));
    assert_eq!(verify(&signed, ORIGIN, &pinned, Utc::now()), CardTrust::Verified);
}

const TEST_RSA_PKCS1: &str = include_str!("test_rsa_pkcs1.b64");
