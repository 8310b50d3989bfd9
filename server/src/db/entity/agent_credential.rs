//! `agent_credentials`: one agent's encrypted credential binding (§2.2); never plaintext.

use sea_orm::entity::prelude::*;

use crate::vault::CredentialKind;

#[derive(Clone, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "agent_credentials")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub organization_id: String,
    pub agent_id: String,
    pub kind: CredentialKind,
    /// Compact JWE (`dir`, `A256GCM`) of the binding with its organization and agent.
    pub ciphertext: String,
    /// The key of `A2A_VAULT_KEYS` it was sealed under.
    pub key_id: String,
    /// False once revoked: calls fail closed until a credential is stored again.
    pub enabled: bool,
    /// 1 for the first store, one more for each store, revoke and re-encryption.
    pub revision: i64,
    pub updated_at: DateTimeUtc,
}

impl std::fmt::Debug for Model {
    /// Everything but the ciphertext.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("agent_credential::Model")
            .field("agent_id", &self.agent_id)
            .field("kind", &self.kind)
            .field("key_id", &self.key_id)
            .field("enabled", &self.enabled)
            .field("revision", &self.revision)
            .finish()
    }
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
