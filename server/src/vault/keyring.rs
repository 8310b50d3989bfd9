//! The vault's key ring (`shared/spec/security-and-durability.md` §2.2): `A2A_VAULT_KEYS`, a JSON
//! object of key ids (`^[a-zA-Z0-9_-]{1,64}$`) to 64 hex characters (32 bytes), and
//! `A2A_VAULT_ACTIVE_KEY`, the id new encryptions use. Keys never appear in `Debug` output or
//! in an error message.

use std::collections::BTreeMap;
use std::fmt;

/// The configured keys; cheap to clone.
#[derive(Clone, PartialEq, Eq)]
pub struct KeyRing {
    keys: BTreeMap<String, [u8; 32]>,
    active: String,
}

impl fmt::Debug for KeyRing {
    /// Key ids only.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("KeyRing")
            .field("ids", &self.keys.keys().collect::<Vec<_>>())
            .field("active", &self.active)
            .finish()
    }
}

impl KeyRing {
    /// Reads the two variables (errors are reported under `A2A_VAULT_KEYS`). Both unset: `Ok(None)` (no vault; agents without credentials
    /// still work). One without the other, or anything malformed: an error naming the problem,
    /// never a key.
    pub fn from_vars(keys: Option<&str>, active: Option<&str>) -> Result<Option<KeyRing>, String> {
        let (keys, active) = match (keys.map(str::trim), active.map(str::trim)) {
            (None | Some(""), None | Some("")) => return Ok(None),
            (Some(keys), Some(active)) if !keys.is_empty() && !active.is_empty() => (keys, active),
            _ => return Err("must be set together with A2A_VAULT_ACTIVE_KEY".into()),
        };
        let raw: BTreeMap<String, String> = serde_json::from_str(keys)
            .map_err(|_| "must be a JSON object of key ids to 64 hex characters".to_owned())?;
        if raw.is_empty() {
            return Err("must hold at least one key".into());
        }
        let mut ring = BTreeMap::new();
        for (id, hex_key) in raw {
            if !valid_key_id(&id) {
                return Err("key ids are 1 to 64 letters, digits, '_' or '-'".into());
            }
            let bytes = hex::decode(hex_key.trim())
                .ok()
                .and_then(|bytes| <[u8; 32]>::try_from(bytes).ok())
                .ok_or_else(|| format!("key \"{id}\" must be exactly 64 hex characters"))?;
            ring.insert(id, bytes);
        }
        if !ring.contains_key(active) {
            return Err("A2A_VAULT_ACTIVE_KEY must name one of its keys".into());
        }
        Ok(Some(KeyRing {
            keys: ring,
            active: active.to_owned(),
        }))
    }

    /// The id new encryptions use.
    pub fn active_id(&self) -> &str {
        &self.active
    }

    /// The active key.
    pub(super) fn active_key(&self) -> &[u8; 32] {
        // `from_vars` refuses a ring whose active id is not in it.
        &self.keys[&self.active]
    }

    /// The key `id`, if the ring holds it.
    pub(super) fn key(&self, id: &str) -> Option<&[u8; 32]> {
        self.keys.get(id)
    }
}

/// A key id: 1 to 64 of `[a-zA-Z0-9_-]`.
pub fn valid_key_id(id: &str) -> bool {
    (1..=64).contains(&id.len())
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

#[cfg(test)]
mod tests {
    use super::*;

    const K1: &str = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

    #[test]
    fn both_variables_or_neither_section_2_2() {
        assert_eq!(KeyRing::from_vars(None, None), Ok(None));
        assert!(KeyRing::from_vars(Some(&format!(r#"{{"k1":"{K1}"}}"#)), None).is_err());
        assert!(KeyRing::from_vars(None, Some("k1")).is_err());
        let ring = KeyRing::from_vars(Some(&format!(r#"{{"k1":"{K1}"}}"#)), Some("k1"))
            .unwrap()
            .unwrap();
        assert_eq!(ring.active_id(), "k1");
        assert!(ring.key("k2").is_none());
    }

    #[test]
    fn malformed_rings_are_refused_without_showing_a_key() {
        for (keys, active) in [
            (r#"{"k1":"abc"}"#.to_owned(), "k1"),
            (format!(r#"{{"bad id":"{K1}"}}"#), "bad id"),
            (format!(r#"{{"k1":"{K1}"}}"#), "k2"),
            ("{}".to_owned(), "k1"),
            ("not json".to_owned(), "k1"),
        ] {
            let error = KeyRing::from_vars(Some(&keys), Some(active)).unwrap_err();
            assert!(!error.contains(K1) && !error.contains("abc"), "{error}");
        }
        let ring = KeyRing::from_vars(Some(&format!(r#"{{"k1":"{K1}"}}"#)), Some("k1")).unwrap();
        assert!(!format!("{ring:?}").contains(K1));
    }
}
