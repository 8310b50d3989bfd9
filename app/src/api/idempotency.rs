//! Idempotency keys of the browser's sends and cancels (issue #26, "Browser sends are not
//! idempotent"; `shared/spec/security-and-durability.md` §3.4, `shared/spec/reference.md` §4.4).
//!
//! Each control that sends (the composer, a prompt's form, an A2UI surface, Cancel task) holds
//! one [`DraftKey`]: the key is made once for the draft and sent with every attempt, so a
//! retried or double-clicked submit replays the stored command instead of making a second one.
//! The next draft gets a new key once the server accepted this one, or once the server said the
//! key already belongs to other content (the earlier attempt was stored; the edited draft is a
//! new command).

use leptos::prelude::*;

use crate::error::AppError;

/// Longest idempotency key (reference §4.4).
pub const MAX_KEY_CHARS: usize = 255;
/// Refusal of a missing, blank or over-long key (the same words as the JSON API's).
pub const KEY_REQUIRED: &str = "An idempotency key of 1–255 characters is required.";
/// Refusal of a key reused with other content (the same words as the JSON API's).
pub const KEY_CONFLICT: &str = "This idempotency key already belongs to different command content.";

/// The key of the draft a control is sending; `Copy`.
#[derive(Clone, Copy)]
pub struct DraftKey(StoredValue<Option<String>>);

impl Default for DraftKey {
    fn default() -> Self {
        DraftKey::new()
    }
}

impl DraftKey {
    /// No key yet: it is made on the first send of the draft.
    pub fn new() -> DraftKey {
        DraftKey(StoredValue::new(None))
    }

    /// The draft's key, made once and kept until [`DraftKey::settle`] renews it.
    pub fn get(self) -> String {
        self.0
            .try_update_value(|key| key.get_or_insert_with(new_key).clone())
            .unwrap_or_else(new_key)
    }

    /// After an answer: accepted (the draft is done) or refused because the key already holds
    /// other content, the next send gets a new key. Any other failure keeps it, so a retry
    /// replays whatever the server may already have stored.
    pub fn settle<T>(self, result: &Result<T, AppError>) {
        if renews(result) {
            self.0.try_set_value(None);
        }
    }
}

/// Whether `result` ends the draft's key.
fn renews<T>(result: &Result<T, AppError>) -> bool {
    match result {
        Ok(_) => true,
        Err(AppError::Conflict(message)) => message == KEY_CONFLICT,
        Err(_) => false,
    }
}

/// Whether `key` is acceptable: 1–255 characters once trimmed.
pub fn valid_key(key: &str) -> bool {
    let key = key.trim();
    !key.is_empty() && key.chars().count() <= MAX_KEY_CHARS
}

/// A new random key: 128 bits from the browser's `crypto.getRandomValues` (available on plain
/// HTTP too, unlike `randomUUID`), in hex.
#[cfg(all(feature = "hydrate", not(feature = "ssr")))]
pub fn new_key() -> String {
    let mut bytes = [0_u8; 16];
    let filled = web_sys::window()
        .and_then(|w| w.crypto().ok())
        .is_some_and(|c| c.get_random_values_with_u8_array(&mut bytes).is_ok());
    if !filled {
        // No Web Crypto: the clock, a pseudo-random number and a counter.
        use web_sys::js_sys::{Date, Math};
        let mixed = Date::now().to_bits() ^ Math::random().to_bits();
        bytes[..8].copy_from_slice(&mixed.to_le_bytes());
        bytes[8..].copy_from_slice(&next_counter().to_le_bytes());
    }
    hex(&bytes)
}

/// Outside the browser (the server's render never sends): time and a counter.
#[cfg(not(all(feature = "hydrate", not(feature = "ssr"))))]
pub fn new_key() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let mut bytes = [0_u8; 16];
    bytes[..8].copy_from_slice(&nanos.to_le_bytes());
    bytes[8..].copy_from_slice(&next_counter().to_le_bytes());
    hex(&bytes)
}

fn next_counter() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    COUNTER.fetch_add(1, Ordering::Relaxed)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_distinct_and_valid() {
        let (a, b) = (new_key(), new_key());
        assert_ne!(a, b);
        assert_eq!(a.len(), 32);
        assert!(valid_key(&a));
    }

    #[test]
    fn key_rule_is_1_to_255_characters_trimmed_reference_4_4() {
        assert!(!valid_key(""));
        assert!(!valid_key("   "));
        assert!(valid_key("k"));
        assert!(valid_key(&"é".repeat(255)));
        assert!(!valid_key(&"é".repeat(256)));
    }

    #[test]
    fn a_draft_keeps_its_key_until_accepted_or_taken() {
        let owner = Owner::new();
        owner.with(|| {
            let key = DraftKey::new();
            let first = key.get();
            assert_eq!(key.get(), first, "made once per draft");
            key.settle::<()>(&Err(AppError::Transport("offline".into())));
            assert_eq!(key.get(), first, "a failed attempt is retried with the same key");
            key.settle::<()>(&Err(AppError::Conflict("The task is finished.".into())));
            assert_eq!(key.get(), first);
            key.settle::<()>(&Err(AppError::Conflict(KEY_CONFLICT.into())));
            let second = key.get();
            assert_ne!(second, first, "the key holds other content: the next send is new");
            key.settle(&Ok(()));
            assert_ne!(key.get(), second, "an accepted send ends the draft");
        });
    }
}
