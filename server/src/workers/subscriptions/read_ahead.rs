//! Reading a followed stream ahead of its storage, so a stream that outpaces the database is
//! stored in groups (ADR 0013) instead of queueing one event per transaction.
//!
//! An agent's SSE body arrives through hyper as one frame per HTTP chunk, handed over by the
//! connection's own task one frame at a time: right after the observer took an event, the next
//! one is not there yet even when thousands wait in the socket, so polling the body once for
//! "what has already arrived" always found nothing, and every event got a transaction of its
//! own (measured: no group commit at all during a 1,000 events/s flood, the task stored 4.5 s
//! behind the agent). A reader task of its own keeps taking frames off the connection while a
//! group is being stored; what it read meanwhile is the next group.

use futures::StreamExt;
use tokio::sync::mpsc;
use tokio_util::task::AbortOnDropHandle;

use crate::gateway::EventStream;

/// `events`, read ahead by a task of its own into a buffer of at most `capacity` events (a full
/// buffer stops reading, so a slow database slows the agent's connection rather than growing
/// memory). The reader stops after the first error, which is delivered in order; dropping the
/// returned stream stops the reader and closes the connection.
pub fn read_ahead(mut events: EventStream, capacity: usize) -> EventStream {
    let (tx, rx) = mpsc::channel(capacity.max(1));
    let reader = tokio::spawn(async move {
        while let Some(event) = events.next().await {
            let failed = event.is_err();
            if tx.send(event).await.is_err() || failed {
                break;
            }
        }
    });
    let reader = AbortOnDropHandle::new(reader);
    futures::stream::unfold((rx, reader), |(mut rx, reader)| async move {
        let event = rx.recv().await?;
        Some((event, (rx, reader)))
    })
    .boxed()
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

    use futures::FutureExt;
    use serde_json::{Value, json};
    use tokio::sync::Notify;

    use super::*;
    use crate::gateway::GatewayError;

    /// `count` events, each yielded only after handing control back to the runtime once, as
    /// hyper's body does (the next frame comes from the connection's task). `produced` counts
    /// the events handed out; `at` is notified when it reaches `notify_at`.
    fn one_at_a_time(
        count: usize,
        produced: Arc<AtomicUsize>,
        at: Arc<Notify>,
        notify_at: usize,
    ) -> EventStream {
        futures::stream::iter(0..count)
            .then(move |n| {
                let (produced, at) = (produced.clone(), at.clone());
                async move {
                    tokio::task::yield_now().await;
                    if produced.fetch_add(1, Ordering::SeqCst) + 1 == notify_at {
                        at.notify_one();
                    }
                    Ok(json!({ "n": n }))
                }
            })
            .boxed()
    }

    fn numbers(events: Vec<Result<Value, GatewayError>>) -> Vec<u64> {
        events
            .into_iter()
            .map(|e| e.expect("ok")["n"].as_u64().expect("n"))
            .collect()
    }

    #[tokio::test]
    async fn what_arrived_while_the_consumer_was_busy_is_ready_at_once() {
        let (produced, at) = (Arc::new(AtomicUsize::new(0)), Arc::new(Notify::new()));
        let mut plain = one_at_a_time(10, produced.clone(), at.clone(), usize::MAX);
        plain.next().await.expect("first").expect("ok");
        assert!(
            plain.next().now_or_never().is_none(),
            "without a reader, the next event is never ready right away"
        );

        let (produced, at) = (Arc::new(AtomicUsize::new(0)), Arc::new(Notify::new()));
        let mut events = read_ahead(one_at_a_time(10, produced, at.clone(), 10), 64);
        assert_eq!(events.next().await.expect("first").expect("ok"), json!({"n": 0}));
        // While the consumer stores that event, the reader takes the other nine.
        at.notified().await;
        tokio::task::yield_now().await;
        let mut ready = Vec::new();
        while let Some(Some(event)) = events.next().now_or_never() {
            ready.push(event);
        }
        assert_eq!(
            numbers(ready),
            (1..10).collect::<Vec<_>>(),
            "the rest is one group, in order"
        );
    }

    #[tokio::test]
    async fn the_buffer_is_bounded_and_nothing_is_lost_or_reordered() {
        let (produced, at) = (Arc::new(AtomicUsize::new(0)), Arc::new(Notify::new()));
        // Eight buffered and one held by the reader, waiting for room.
        let mut events = read_ahead(one_at_a_time(100, produced.clone(), at.clone(), 9), 8);
        at.notified().await;
        for _ in 0..20 {
            tokio::task::yield_now().await;
        }
        assert_eq!(produced.load(Ordering::SeqCst), 9, "a full buffer stops reading");
        let mut all = Vec::new();
        while let Some(event) = events.next().await {
            all.push(event);
        }
        assert_eq!(numbers(all), (0..100).collect::<Vec<_>>());
    }

    #[tokio::test]
    async fn an_error_is_delivered_in_order_and_ends_the_stream() {
        let source = futures::stream::iter(vec![
            Ok(json!(1)),
            Err(GatewayError::Timeout { seconds: 5 }),
            Ok(json!(2)),
        ])
        .boxed();
        let got: Vec<_> = read_ahead(source, 4).collect().await;
        assert_eq!(got.len(), 2);
        assert!(got[0].is_ok());
        assert!(matches!(got[1], Err(GatewayError::Timeout { seconds: 5 })));
    }

    #[tokio::test]
    async fn dropping_the_stream_stops_the_reader_and_closes_its_source() {
        struct Flag(Arc<AtomicBool>, Arc<Notify>);
        impl Drop for Flag {
            fn drop(&mut self) {
                self.0.store(true, Ordering::SeqCst);
                self.1.notify_one();
            }
        }
        let (dropped, gone) = (Arc::new(AtomicBool::new(false)), Arc::new(Notify::new()));
        let flag = Flag(dropped.clone(), gone.clone());
        // A stream that never ends and owns the flag (a connection that stays open).
        let source = futures::stream::pending::<Result<Value, GatewayError>>()
            .map(move |e| {
                let _ = &flag;
                e
            })
            .boxed();
        let events = read_ahead(source, 4);
        tokio::task::yield_now().await;
        assert!(!dropped.load(Ordering::SeqCst), "open while the stream is kept");
        drop(events);
        gone.notified().await;
        assert!(dropped.load(Ordering::SeqCst));
    }
}
