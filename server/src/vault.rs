//! The credential vault (`shared/spec/security-and-durability.md` §2.2): agent bindings encrypted
//! at rest under the key ring, each ciphertext bound to its organization and agent inside the
//! authenticated payload, so a row copied to another agent or organization does not open.
//!
//! - [`binding`]: the strict binding JSON and its limits (§2.1).
//! - [`keyring`]: `A2A_VAULT_KEYS` / `A2A_VAULT_ACTIVE_KEY`.
//! - [`jwe`]: compact JWE, `dir` + `A256GCM`.
//!
//! Every failure is one of two fixed messages and nothing else: no cause, no key id, no value.

pub mod binding;
pub mod jwe;
pub mod keyring;

use serde::{Deserialize, Serialize};

pub use binding::{Binding, BindingError, Credential, CredentialKind};
pub use keyring::KeyRing;

/// Shown for every failure to read or write a credential (§2.2).
pub const UNAVAILABLE: &str = "Credential vault unavailable.";
/// Shown when the agent's credential was revoked (§2.2).
pub const DISABLED: &str = "Agent credentials are disabled.";

/// Why a credential cannot be used; callers never fall back to calling anonymously.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum VaultError {
    /// No key ring, a key id the ring lacks, a ciphertext that does not open, or a payload for
    /// another organization or agent.
    #[error("Credential vault unavailable.")]
    Unavailable,
    /// The binding was revoked.
    #[error("Agent credentials are disabled.")]
    Disabled,
}

/// The plaintext that is encrypted: the binding with the organization and agent it belongs to.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Payload {
    organization_id: String,
    agent_id: String,
    binding: Binding,
}

/// A sealed binding, ready to store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sealed {
    pub ciphertext: String,
    pub key_id: String,
}

/// The vault of one process; cheap to clone. Without a key ring every operation is
/// [`VaultError::Unavailable`].
#[derive(Clone, Debug, Default)]
pub struct Vault {
    ring: Option<KeyRing>,
}

impl Vault {
    pub fn new(ring: Option<KeyRing>) -> Vault {
        Vault { ring }
    }

    /// Whether a key ring is configured.
    pub fn is_configured(&self) -> bool {
        self.ring.is_some()
    }

    /// Encrypts `binding` for `agent_id` of `organization_id` under the active key.
    pub fn seal(
        &self,
        organization_id: &str,
        agent_id: &str,
        binding: &Binding,
    ) -> Result<Sealed, VaultError> {
        let ring = self.ring.as_ref().ok_or(VaultError::Unavailable)?;
        let payload = Payload {
            organization_id: organization_id.to_owned(),
            agent_id: agent_id.to_owned(),
            binding: binding.clone(),
        };
        let plaintext = serde_json::to_vec(&payload).map_err(|_| VaultError::Unavailable)?;
        let ciphertext =
            jwe::seal(ring.active_key(), ring.active_id(), &plaintext).ok_or(VaultError::Unavailable)?;
        Ok(Sealed {
            ciphertext,
            key_id: ring.active_id().to_owned(),
        })
    }

    /// Decrypts a stored binding, failing closed (§2.2 steps 1–5): the row's key id must be in
    /// the ring and equal the header's, the payload must name `organization_id` and `agent_id`,
    /// and the binding must still be valid.
    pub fn open(
        &self,
        organization_id: &str,
        agent_id: &str,
        key_id: &str,
        ciphertext: &str,
    ) -> Result<Binding, VaultError> {
        let ring = self.ring.as_ref().ok_or(VaultError::Unavailable)?;
        let key = ring.key(key_id).ok_or(VaultError::Unavailable)?;
        let plaintext = jwe::open(key, key_id, ciphertext).ok_or(VaultError::Unavailable)?;
        let payload: Payload = serde_json::from_slice(&plaintext).map_err(|_| VaultError::Unavailable)?;
        if payload.organization_id != organization_id || payload.agent_id != agent_id {
            return Err(VaultError::Unavailable);
        }
        payload.binding.validate().map_err(|_| VaultError::Unavailable)?;
        Ok(payload.binding)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ring(keys: &[(&str, u8)], active: &str) -> KeyRing {
        let json = serde_json::to_string(
            &keys
                .iter()
                .map(|(id, byte)| ((*id).to_owned(), hex::encode([*byte; 32])))
                .collect::<std::collections::BTreeMap<_, _>>(),
        )
        .unwrap();
        KeyRing::from_vars(Some(&json), Some(active)).unwrap().unwrap()
    }

    fn binding() -> Binding {
        Binding::parse(
            br#"{"origins":["https://agent.example"],"credential":{"type":"bearer","token":"tok-123456"}}"#,
        )
        .unwrap()
    }

    #[test]
    fn a_ciphertext_opens_only_for_its_organization_and_agent_section_2_2() {
        let vault = Vault::new(Some(ring(&[("k1", 1)], "k1")));
        let sealed = vault.seal("org-1", "agent-1", &binding()).unwrap();
        assert_eq!(sealed.key_id, "k1");
        assert!(!sealed.ciphertext.contains("tok-123456"));
        assert_eq!(
            vault.open("org-1", "agent-1", "k1", &sealed.ciphertext),
            Ok(binding())
        );
        assert_eq!(
            vault.open("org-1", "agent-2", "k1", &sealed.ciphertext),
            Err(VaultError::Unavailable)
        );
        assert_eq!(
            vault.open("org-2", "agent-1", "k1", &sealed.ciphertext),
            Err(VaultError::Unavailable)
        );
    }

    #[test]
    fn missing_or_mismatched_key_ids_fail_closed() {
        let old = Vault::new(Some(ring(&[("k1", 1)], "k1")));
        let sealed = old.seal("o", "a", &binding()).unwrap();
        let rotated = Vault::new(Some(ring(&[("k2", 2)], "k2")));
        assert_eq!(
            rotated.open("o", "a", "k1", &sealed.ciphertext),
            Err(VaultError::Unavailable)
        );
        let both = Vault::new(Some(ring(&[("k1", 1), ("k2", 2)], "k2")));
        assert_eq!(both.open("o", "a", "k1", &sealed.ciphertext), Ok(binding()));
        // The row says k2 but the ciphertext was made under k1.
        assert_eq!(
            both.open("o", "a", "k2", &sealed.ciphertext),
            Err(VaultError::Unavailable)
        );
        assert_eq!(both.seal("o", "a", &binding()).unwrap().key_id, "k2");
        let none = Vault::default();
        assert_eq!(none.seal("o", "a", &binding()), Err(VaultError::Unavailable));
        assert_eq!(
            none.open("o", "a", "k1", &sealed.ciphertext),
            Err(VaultError::Unavailable)
        );
        assert_eq!(VaultError::Unavailable.to_string(), UNAVAILABLE);
        assert_eq!(VaultError::Disabled.to_string(), DISABLED);
    }
}
