//! Sessions and sign-in attempts (`shared/spec/security-and-durability.md` §1.1 step 2–3, §1.2):
//! both are random 32-byte tokens handed to the browser in a cookie, base64url (43 characters),
//! and stored by their SHA-256 only, so the database never holds a usable token. A session has
//! an absolute expiry; an attempt expires after 10 minutes and is consumed at most once.

use chrono::{DateTime, Utc};
use sea_orm::{ActiveModelTrait, ColumnTrait, EntityTrait, QueryFilter, Set, TransactionTrait};
use sha2::{Digest, Sha256};

use super::audit;
use super::identity::Member;
use super::{StoreError, new_id};
use crate::db::Db;
use crate::db::entity::{login_attempt, membership, user, user_session};

/// How long a sign-in attempt may take at the provider.
pub const ATTEMPT_LIFETIME: std::time::Duration = std::time::Duration::from_secs(600);

/// A fresh random token: 32 bytes, base64url without padding.
pub fn new_token() -> String {
    use base64::Engine as _;
    let mut bytes = [0_u8; 32];
    getrandom::fill(&mut bytes).expect("the operating system's random source is available");
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// Whether `token` has a token's shape (`^[A-Za-z0-9_-]{43}$`); anything else is never looked up.
pub fn well_formed(token: &str) -> bool {
    token.len() == 43
        && token
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

fn hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

/// Starts a session for `membership_id` until `expires_at`, with its `session.started` audit fact;
/// returns its token, for the cookie.
pub async fn create(db: &Db, membership_id: &str, expires_at: DateTime<Utc>) -> Result<String, StoreError> {
    let token = new_token();
    let tx = db.write.begin().await?;
    let session = user_session::ActiveModel {
        id: Set(new_id()),
        membership_id: Set(membership_id.to_owned()),
        token_hash: Set(hash(&token)),
        expires_at: Set(expires_at),
        created_at: Set(Utc::now()),
    }
    .insert(&tx)
    .await?;
    session_fact(&tx, &session, "session.started").await?;
    tx.commit().await?;
    Ok(token)
}

/// Records `action` about `session` (`session.started`, `session.ended`), as its member's.
async fn session_fact(
    tx: &sea_orm::DatabaseTransaction,
    session: &user_session::Model,
    action: &'static str,
) -> Result<(), StoreError> {
    let Some(membership) = membership::Entity::find_by_id(session.membership_id.clone())
        .one(tx)
        .await?
    else {
        return Ok(());
    };
    audit::record(
        tx,
        audit::Fact {
            organization_id: &membership.organization_id,
            event_key: format!("{action}:{}", session.id),
            action,
            actor: &audit::Actor::User(membership.user_id.clone()),
            target_id: &membership.id,
            detail: serde_json::json!({}),
        },
    )
    .await?;
    Ok(())
}

/// The member signed in with `token`, read afresh (role and enabled flags as they are now), or
/// `None` for an unknown, malformed or expired token.
pub async fn member(db: &Db, token: &str, now: DateTime<Utc>) -> Result<Option<Member>, StoreError> {
    if !well_formed(token) {
        return Ok(None);
    }
    let Some(session) = user_session::Entity::find()
        .filter(user_session::Column::TokenHash.eq(hash(token)))
        .filter(user_session::Column::ExpiresAt.gt(now))
        .one(&db.read)
        .await?
    else {
        return Ok(None);
    };
    let Some(membership) = membership::Entity::find_by_id(session.membership_id)
        .one(&db.read)
        .await?
    else {
        return Ok(None);
    };
    let Some(user) = user::Entity::find_by_id(membership.user_id.clone())
        .one(&db.read)
        .await?
    else {
        return Ok(None);
    };
    Ok(Some(super::identity::member(membership, user)))
}

/// Ends the session of `token` (sign-out), with its `session.ended` audit fact. Unknown tokens
/// are fine.
pub async fn delete(db: &Db, token: &str) -> Result<(), StoreError> {
    if !well_formed(token) {
        return Ok(());
    }
    let tx = db.write.begin().await?;
    let found = user_session::Entity::find()
        .filter(user_session::Column::TokenHash.eq(hash(token)))
        .one(&tx)
        .await?;
    if let Some(session) = found {
        user_session::Entity::delete_by_id(session.id.clone())
            .exec(&tx)
            .await?;
        session_fact(&tx, &session, "session.ended").await?;
    }
    tx.commit().await?;
    Ok(())
}

/// What a sign-in attempt must remember until its callback.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attempt {
    pub state: String,
    pub nonce: String,
    pub pkce_verifier: String,
    /// Where to go once signed in: a path checked before it was stored.
    pub return_to: String,
}

/// Stores a sign-in attempt for [`ATTEMPT_LIFETIME`]; returns the login cookie's token.
pub async fn begin_attempt(db: &Db, attempt: &Attempt) -> Result<String, StoreError> {
    let token = new_token();
    let now = Utc::now();
    login_attempt::ActiveModel {
        id: Set(new_id()),
        token_hash: Set(hash(&token)),
        state: Set(attempt.state.clone()),
        nonce: Set(attempt.nonce.clone()),
        pkce_verifier: Set(attempt.pkce_verifier.clone()),
        return_to: Set(attempt.return_to.clone()),
        expires_at: Set(now + ATTEMPT_LIFETIME),
        created_at: Set(now),
    }
    .insert(&db.write)
    .await?;
    Ok(token)
}

/// Consumes the attempt of the login cookie `token`: it is deleted whatever happens next, so a
/// replayed callback finds nothing. `None` when unknown, malformed, already used or expired.
pub async fn consume_attempt(
    db: &Db,
    token: &str,
    now: DateTime<Utc>,
) -> Result<Option<Attempt>, StoreError> {
    if !well_formed(token) {
        return Ok(None);
    }
    let tx = db.write.begin().await?;
    let found = login_attempt::Entity::find()
        .filter(login_attempt::Column::TokenHash.eq(hash(token)))
        .one(&tx)
        .await?;
    let Some(found) = found else {
        return Ok(None);
    };
    // Two callbacks at once: only the one whose delete removed the row goes on.
    let deleted = login_attempt::Entity::delete_by_id(found.id.clone())
        .exec(&tx)
        .await?;
    tx.commit().await?;
    if deleted.rows_affected != 1 || found.expires_at <= now {
        return Ok(None);
    }
    Ok(Some(Attempt {
        state: found.state,
        nonce: found.nonce,
        pkce_verifier: found.pkce_verifier,
        return_to: found.return_to,
    }))
}

/// Deletes expired sessions and attempts; returns how many rows went.
pub async fn purge_expired(db: &Db, now: DateTime<Utc>) -> Result<u64, StoreError> {
    let sessions = user_session::Entity::delete_many()
        .filter(user_session::Column::ExpiresAt.lte(now))
        .exec(&db.write)
        .await?;
    let attempts = login_attempt::Entity::delete_many()
        .filter(login_attempt::Column::ExpiresAt.lte(now))
        .exec(&db.write)
        .await?;
    Ok(sessions.rows_affected + attempts.rows_affected)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_43_url_safe_characters_and_only_those_are_looked_up() {
        let token = new_token();
        assert!(well_formed(&token), "{token}");
        assert_ne!(token, new_token());
        for bad in [
            "",
            "short",
            &format!("{token}x"),
            &token.replace(&token[..1], "+"),
            &"a".repeat(42),
        ] {
            assert!(!well_formed(bad), "{bad}");
        }
        assert_eq!(hash(&token).len(), 64);
    }
}
