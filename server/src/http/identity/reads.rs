//! Identity reads that wait together (issue #33, ADR 0049). A storm of requests with one
//! credential — ten thousand browsers' live streams reconnecting after a restart — would each
//! queue their own read of the same membership behind the database pool, every request and its
//! buffers held while it waits. Here a read waits for a turn first (as many turns as the read
//! pool has connections); requests with the same credential that arrive while it is still
//! waiting share it. Once its turn comes the read starts and is shared no more, so its answer is
//! read after every sharer arrived: disabling or demoting someone still applies to their next
//! request (`shared/spec/security-and-durability.md` §1.2).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use futures::FutureExt;
use futures::future::{BoxFuture, Shared};
use tokio::sync::Semaphore;

use crate::http::api::error::ApiError;
use crate::http::api::principal::{IDENTITY_UNAVAILABLE, Principal};

type Read = Shared<BoxFuture<'static, Result<Principal, ApiError>>>;

/// The reads of callers waiting for their turn, by credential.
pub struct IdentityReads {
    waiting: Mutex<HashMap<String, (u64, Read)>>,
    turns: Arc<Semaphore>,
    /// Numbers the reads, so a read that started removes itself and not a later one.
    next: std::sync::atomic::AtomicU64,
}

impl IdentityReads {
    /// Reads with `turns` of them running at once.
    pub fn new(turns: usize) -> Arc<Self> {
        Arc::new(Self {
            waiting: Mutex::default(),
            turns: Arc::new(Semaphore::new(turns.max(1))),
            next: Default::default(),
        })
    }

    /// The caller with `credential`: the answer of a read of it still waiting for its turn, or
    /// of a new one made by `read`.
    pub async fn resolve<F>(self: &Arc<Self>, credential: String, read: F) -> Result<Principal, ApiError>
    where
        F: Future<Output = Result<Principal, ApiError>> + Send + 'static,
    {
        let shared = {
            let mut waiting = self.waiting.lock().unwrap_or_else(PoisonError::into_inner);
            match waiting.get(&credential) {
                Some((_, read)) => read.clone(),
                None => {
                    let id = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    // Its own task: the read runs to its end (and leaves the map) even when every
                    // caller waiting for it has gone.
                    let turn = tokio::spawn(self.clone().turn(credential.clone(), id, read));
                    let read = async move {
                        turn.await
                            .unwrap_or_else(|_| Err(ApiError::unavailable_with(IDENTITY_UNAVAILABLE)))
                    }
                    .boxed()
                    .shared();
                    waiting.insert(credential, (id, read.clone()));
                    read
                }
            }
        };
        shared.await
    }

    async fn turn<F>(self: Arc<Self>, credential: String, id: u64, read: F) -> Result<Principal, ApiError>
    where
        F: Future<Output = Result<Principal, ApiError>> + Send + 'static,
    {
        // The semaphore is never closed.
        let _turn = self.turns.acquire().await;
        {
            let mut waiting = self.waiting.lock().unwrap_or_else(PoisonError::into_inner);
            if waiting
                .get(&credential)
                .is_some_and(|(waiting_id, _)| *waiting_id == id)
            {
                waiting.remove(&credential);
            }
        }
        read.await
    }

    /// How many credentials have a read waiting for its turn (for tests).
    pub fn waiting(&self) -> usize {
        self.waiting.lock().unwrap_or_else(PoisonError::into_inner).len()
    }
}

impl std::fmt::Debug for IdentityReads {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Credentials are session tokens: never printed.
        f.debug_struct("IdentityReads")
            .field("waiting", &self.waiting())
            .field("turns", &self.turns.available_permits())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;
    use crate::store::access::Access;
    use crate::store::identity::Role;

    fn principal(name: &str) -> Principal {
        Principal {
            membership_id: name.into(),
            user_id: name.into(),
            display_name: name.into(),
            role: Role::Admin,
            access: Access::everything("org"),
        }
    }

    #[tokio::test]
    async fn callers_arriving_while_a_read_waits_for_its_turn_share_it_and_later_ones_read_again() {
        let reads = IdentityReads::new(1);
        let made = Arc::new(AtomicUsize::new(0));
        // The only turn is taken: reads of "ada" wait.
        let held = reads.turns.clone().acquire_owned().await.unwrap();
        let read = |name: &'static str| {
            let made = made.clone();
            async move {
                made.fetch_add(1, Ordering::SeqCst);
                Ok(principal(name))
            }
        };
        let mut first = Box::pin(reads.resolve("ada".into(), read("ada")));
        let mut second = Box::pin(reads.resolve("ada".into(), read("ada")));
        let mut other = Box::pin(reads.resolve("bea".into(), read("bea")));
        assert!(futures::poll!(&mut first).is_pending());
        assert!(futures::poll!(&mut second).is_pending());
        assert!(futures::poll!(&mut other).is_pending());
        assert_eq!(reads.waiting(), 2);
        drop(held);
        let (first, second, other) = tokio::join!(first, second, other);
        assert_eq!(first.unwrap().display_name, "ada");
        assert_eq!(second.unwrap().display_name, "ada");
        assert_eq!(other.unwrap().display_name, "bea");
        // One read for the two callers of "ada", one for "bea"; none waits any more.
        assert_eq!(made.load(Ordering::SeqCst), 2);
        assert_eq!(reads.waiting(), 0);
        // A caller after the read started reads afresh.
        reads.resolve("ada".into(), read("ada")).await.unwrap();
        assert_eq!(made.load(Ordering::SeqCst), 3);
    }

    #[tokio::test]
    async fn a_read_whose_callers_all_left_still_ends_and_leaves_no_entry() {
        let reads = IdentityReads::new(1);
        let held = reads.turns.clone().acquire_owned().await.unwrap();
        let mut gone = Box::pin(reads.resolve("ada".into(), async { Ok(principal("ada")) }));
        assert!(futures::poll!(&mut gone).is_pending());
        drop(gone);
        assert_eq!(reads.waiting(), 1);
        drop(held);
        while reads.waiting() > 0 {
            tokio::task::yield_now().await;
        }
    }

    #[tokio::test]
    async fn a_refusal_is_shared_like_an_answer() {
        let reads = IdentityReads::new(1);
        let refused = reads
            .resolve("x".into(), async {
                Err(ApiError::new(
                    axum::http::StatusCode::UNAUTHORIZED,
                    "Sign in to continue.",
                ))
            })
            .await;
        assert_eq!(refused.unwrap_err().status, axum::http::StatusCode::UNAUTHORIZED);
        assert_eq!(reads.waiting(), 0);
    }
}
