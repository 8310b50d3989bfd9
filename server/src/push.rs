//! Push callback tokens (`shared/spec/security-and-durability.md` §3.7): each registration's
//! token is derived, never stored: `base64url(HMAC-SHA256(A2A_PUSH_SIGNING_KEY,
//! JSON(["a2a-task-push-v1", organizationId, registrationId])))`, 43 characters, sent to the
//! agent as the config's `Bearer` credential and checked in constant time on every callback.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::hmac;

/// The token's domain separator.
const PURPOSE: &str = "a2a-task-push-v1";

fn message(organization_id: &str, registration_id: &str) -> Vec<u8> {
    serde_json::to_vec(&[PURPOSE, organization_id, registration_id]).expect("strings serialise")
}

/// The callback token of a registration.
pub fn callback_token(key: &[u8; 32], organization_id: &str, registration_id: &str) -> String {
    let tag = hmac::sign(
        &hmac::Key::new(hmac::HMAC_SHA256, key),
        &message(organization_id, registration_id),
    );
    URL_SAFE_NO_PAD.encode(tag.as_ref())
}

/// Whether `presented` is the registration's token (compared in constant time).
pub fn token_matches(key: &[u8; 32], organization_id: &str, registration_id: &str, presented: &str) -> bool {
    let Ok(tag) = URL_SAFE_NO_PAD.decode(presented) else {
        return false;
    };
    hmac::verify(
        &hmac::Key::new(hmac::HMAC_SHA256, key),
        &message(organization_id, registration_id),
        &tag,
    )
    .is_ok()
}

/// The token of an `Authorization` header of exactly `Bearer <43 base64url characters>`.
pub fn bearer_token(header: &str) -> Option<&str> {
    let token = header.strip_prefix("Bearer ")?;
    (token.len() == 43
        && token
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'))
    .then_some(token)
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: [u8; 32] = [7; 32];

    #[test]
    fn a_token_is_43_characters_bound_to_its_organization_and_registration_3_7() {
        let token = callback_token(&KEY, "org-1", "reg-1");
        assert_eq!(token.len(), 43);
        assert!(token_matches(&KEY, "org-1", "reg-1", &token));
        assert!(!token_matches(&KEY, "org-2", "reg-1", &token));
        assert!(!token_matches(&KEY, "org-1", "reg-2", &token));
        assert!(
            !token_matches(&[8; 32], "org-1", "reg-1", &token),
            "a changed key"
        );
        assert!(!token_matches(&KEY, "org-1", "reg-1", "not base64!"));
        // The message is the JSON array the original signs (JSON.stringify).
        assert_eq!(message("o", "r"), br#"["a2a-task-push-v1","o","r"]"#.to_vec());
    }

    #[test]
    fn only_an_exact_bearer_header_carries_a_token_3_7() {
        let token = callback_token(&KEY, "o", "r");
        assert_eq!(bearer_token(&format!("Bearer {token}")), Some(token.as_str()));
        for header in [
            format!("bearer {token}"),
            format!("Bearer  {token}"),
            format!("Bearer {token}x"),
            format!("Bearer {}", &token[..42]),
            format!("Bearer {}+", &token[..42]),
            token.clone(),
        ] {
            assert_eq!(bearer_token(&header), None, "{header}");
        }
    }
}
