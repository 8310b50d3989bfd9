//! What an [`Ingestor`](super::Ingestor) remembers across transactions: the tasks known to have
//! a subscription row ([`Subscribed`]) and the counts `/metrics` shows ([`IngestCounters`]).

use std::sync::atomic::AtomicU64;

/// Counts of what ingestion committed in this process (`GET /metrics`).
#[derive(Debug, Default)]
pub struct IngestCounters {
    /// Events appended to the ledger (a duplicate is not).
    pub events: AtomicU64,
    /// Transactions that stored a group of several observations ([`Ingestor::ingest_group`](super::Ingestor::ingest_group)).
    pub group_commits: AtomicU64,
    /// Ledger events those transactions appended.
    pub grouped_events: AtomicU64,
    /// Groups the commit queue took from followed streams ([`super::queue`]).
    pub queue_groups: AtomicU64,
    /// Transactions the commit queue committed (several groups each when they queued together).
    pub queue_commits: AtomicU64,
}

/// Tasks whose subscription row is known to exist in the database. A row is never deleted, so
/// an event of a task in this set skips the lookup `subscriptions::arm` would make: one
/// statement fewer per followed event, each a round trip to the database driver (issue #6).
/// Filled only after a commit ([`Ingestor::publish`](super::Ingestor::publish)); cleared when it grows past
/// [`Subscribed::CAPACITY`] tasks.
#[derive(Clone, Debug, Default)]
pub struct Subscribed(std::sync::Arc<std::sync::Mutex<std::collections::HashSet<String>>>);

impl Subscribed {
    /// Tasks remembered before the set starts over (a few MB at most).
    pub const CAPACITY: usize = 50_000;

    pub fn contains(&self, task_id: &str) -> bool {
        self.0.lock().is_ok_and(|set| set.contains(task_id))
    }

    pub(super) fn remember(&self, task_id: &str) {
        if let Ok(mut set) = self.0.lock()
            && !set.contains(task_id)
        {
            if set.len() >= Self::CAPACITY {
                set.clear();
            }
            set.insert(task_id.to_owned());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Subscribed;

    #[test]
    fn the_remembered_tasks_start_over_when_full() {
        let subscribed = Subscribed::default();
        for n in 0..Subscribed::CAPACITY {
            subscribed.remember(&n.to_string());
        }
        assert!(subscribed.contains("0"));
        subscribed.remember("0");
        assert!(subscribed.contains("0"), "a known task does not count twice");
        subscribed.remember("one more");
        assert!(subscribed.contains("one more"));
        assert!(
            !subscribed.contains("0"),
            "forgotten: it is looked up again, never skipped wrongly"
        );
    }
}
