//! Closed sets of words the server stores in string columns and the browser reads from the API:
//! one enum per set, declared with [`stored_words!`](crate::stored_words), which keeps the stored
//! and the JSON strings exactly as they were. With `ssr` the enums are also sea-orm
//! `ActiveEnum`s, usable as column types; the browser build has no sea-orm.
//!
//! Declared here: the command words ([`CommandStatus`], [`CommandAction`]), a member's [`Role`], and a grant's
//! [`GrantPermission`] and [`GrantSubject`]. Elsewhere:
//! [`TaskKind`](crate::projection::TaskKind), the approval words
//! ([`RequestStatus`](crate::ext::approval::RequestStatus),
//! [`Outcome`](crate::ext::approval::Outcome),
//! [`RevisionAuthor`](crate::api::approvals::RevisionAuthor)), and the server's own sets.

/// Declares a status (or other closed set of words) stored in a string column: variants stored
/// and serialised as exactly the given strings, with `as_str`, `parse`, `ALL`, `Display`,
/// `Serialize`/`Deserialize` (as the string; an unknown word does not deserialise) and comparison
/// with `&str`. With `app`'s `ssr` feature (the server build) it is also a sea-orm `ActiveEnum`
/// (`rs_type = "String"`), so the crate using it must depend on sea-orm.
#[macro_export]
macro_rules! stored_words {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $( $(#[$variant_meta:meta])* $variant:ident = $word:literal, )+
        }
    ) => {
        $crate::__stored_words_enum! {
            $(#[$meta])*
            $vis enum $name {
                $( $(#[$variant_meta])* $variant = $word, )+
            }
        }

        impl $name {
            /// Every value, in declaration order.
            #[allow(dead_code)]
            pub const ALL: [$name; [$( $word, )+].len()] = [ $( $name::$variant, )+ ];

            /// The word stored (and serialised) for this value.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $( $name::$variant => $word, )+
                }
            }

            /// The value stored as `word`, if it is one.
            #[allow(dead_code)]
            pub fn parse(word: &str) -> Option<$name> {
                match word {
                    $( $word => Some($name::$variant), )+
                    _ => None,
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, word: &&str) -> bool {
                self.as_str() == *word
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let word = <String as serde::Deserialize>::deserialize(deserializer)?;
                $name::parse(&word).ok_or_else(|| {
                    <D::Error as serde::de::Error>::unknown_variant(&word, &[ $( $word, )+ ])
                })
            }
        }
    };
}

/// The enum itself, with the sea-orm derives (server build).
#[cfg(feature = "ssr")]
#[doc(hidden)]
#[macro_export]
macro_rules! __stored_words_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $( $(#[$variant_meta:meta])* $variant:ident = $word:literal, )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, sea_orm::EnumIter, sea_orm::DeriveActiveEnum)]
        #[sea_orm(rs_type = "String", db_type = "String(sea_orm::sea_query::StringLen::None)")]
        $vis enum $name {
            $( $(#[$variant_meta])* #[sea_orm(string_value = $word)] $variant, )+
        }
    };
}

/// The enum itself (browser build: no sea-orm).
#[cfg(not(feature = "ssr"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __stored_words_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $( $(#[$variant_meta:meta])* $variant:ident = $word:literal, )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        $vis enum $name {
            $( $(#[$variant_meta])* $variant, )+
        }
    };
}

crate::stored_words! {
    /// A command's dispatch status (`task_commands.status`, and its copy in
    /// `decision_executions.status`).
    pub enum CommandStatus {
        /// Stored, not sent yet (also after a discovery failure that will be retried).
        Pending = "pending",
        /// The request is going out (or went out) under a dispatch lease.
        Dispatching = "dispatching",
        Succeeded = "succeeded",
        Failed = "failed",
        /// The request left and its outcome is unknown; never resent.
        Uncertain = "uncertain",
    }
}

impl CommandStatus {
    /// Whether dispatch has ended (`succeeded`, `failed` or `uncertain`).
    pub fn is_settled(self) -> bool {
        matches!(
            self,
            CommandStatus::Succeeded | CommandStatus::Failed | CommandStatus::Uncertain
        )
    }

    /// Whether dispatch ended without a known success (the command's error is shown).
    pub fn is_unsuccessful(self) -> bool {
        matches!(self, CommandStatus::Failed | CommandStatus::Uncertain)
    }
}

crate::stored_words! {
    /// What a command asks of the agent (`task_commands.action`).
    pub enum CommandAction {
        /// `SendMessage` (or `SendStreamingMessage`).
        Send = "send",
        /// `CancelTask`.
        CancelTask = "cancelTask",
    }
}

crate::stored_words! {
    /// What the signatures of an Agent Card prove (`agent_card_snapshots.signature_status`;
    /// `shared/spec/security-and-durability.md` §2.4).
    pub enum CardTrust {
        /// No signatures: allowed unless `A2A_REQUIRE_SIGNED_CARDS=true`.
        Unsigned = "unsigned",
        /// A signature verifies with a key pinned for the card's origin.
        Verified = "verified",
        /// Signed, but no pinned key matches: shown, never called.
        Untrusted = "untrusted",
        /// Signed, a pinned key matches, and the signature does not verify: shown, never called.
        Invalid = "invalid",
    }
}

impl CardTrust {
    /// What the state means, for the agent page and the compliance report.
    pub fn describe(self) -> &'static str {
        match self {
            CardTrust::Unsigned => "Unsigned card.",
            CardTrust::Verified => "Signature verified with a pinned key.",
            CardTrust::Untrusted => {
                "Signed, but no trusted key is pinned for its origin: the console will not call it."
            }
            CardTrust::Invalid => {
                "The signature does not verify with the pinned key: the console will not call it."
            }
        }
    }
}

crate::stored_words! {
    /// The kind of an agent's stored credential (`agent_credentials.kind`;
    /// `shared/spec/security-and-durability.md` §2.1).
    pub enum CredentialKind {
        /// A header `name: value`.
        ApiKey = "apiKey",
        /// `Authorization: Bearer`.
        Bearer = "bearer",
        /// An OAuth client-credentials grant.
        OauthClient = "oauthClient",
        /// A TLS client certificate.
        Mtls = "mtls",
    }
}

impl CredentialKind {
    /// The kind as people read it.
    pub fn label(self) -> &'static str {
        match self {
            CredentialKind::ApiKey => "API key header",
            CredentialKind::Bearer => "Bearer token",
            CredentialKind::OauthClient => "OAuth client credentials",
            CredentialKind::Mtls => "Client certificate (mTLS)",
        }
    }
}

crate::stored_words! {
    /// A member's role in an organization (`memberships.role`; `shared/spec/security-and-durability.md`
    /// §1.3): a ceiling on what grants allow.
    pub enum Role {
        /// Everything, including registering agents and managing access.
        Admin = "admin",
        /// Reads and operates the agents granted to them.
        Operator = "operator",
        /// Reads the agents granted to them; never changes anything.
        Viewer = "viewer",
    }
}

impl Role {
    /// The role as screens name it.
    pub fn label(self) -> &'static str {
        match self {
            Role::Admin => "Admin",
            Role::Operator => "Operator",
            Role::Viewer => "Viewer",
        }
    }
}

crate::stored_words! {
    /// What a grant allows on its agent or skill (`access_grants.permission`;
    /// `shared/spec/security-and-durability.md` §1.3): `operate` implies `read`.
    pub enum GrantPermission {
        /// See the agent (or skill), its tasks, approvals and artifacts.
        Read = "read",
        /// Also send, reply, cancel and decide, within the member's role.
        Operate = "operate",
    }
}

impl GrantPermission {
    /// The permission as screens name it.
    pub fn label(self) -> &'static str {
        match self {
            GrantPermission::Read => "Read",
            GrantPermission::Operate => "Operate",
        }
    }
}

crate::stored_words! {
    /// Who a grant is given to (`access_grants.subject_type`).
    pub enum GrantSubject {
        /// Every member of the organization.
        Organization = "organization",
        /// One membership.
        Membership = "membership",
        /// Every member of a team.
        Team = "team",
    }
}

#[cfg(test)]
mod tests;
