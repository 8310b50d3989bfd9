//! Live updates in the browser: `EventSource` subscriptions to the server's event streams,
//! decoded into [`LiveFrame`]s. On the server (SSR) the hook does nothing; nothing here
//! changes data, it only tells the pages what was committed.
//!
//! - `/api/live/conversations/{id}` and `/api/live/tasks/{id}`: `ledger` frames (a
//!   [`LedgerEvent`], its sequence as the SSE id, so reconnects resume), `command` frames (a
//!   [`CommandView`] whose status changed) and `task` frames (a task the page has not seen).
//! - `/api/tasks/events`: the app-wide freshness signal (`ready`, `freshness`, `resync`).

use leptos::prelude::*;
use serde::Deserialize;

use crate::a2a::{DecodedEvent, decode_stream_event};
use crate::api::tasks::{CommandView, LedgerEvent};
use crate::projection::TaskView;

/// The app-wide freshness signal: lists re-query on any of its frames.
pub const FRESHNESS_URL: &str = "/api/tasks/events";

/// Every SSE event name the live routes send.
pub const FRAME_NAMES: [&str; 6] = ["ledger", "command", "task", "ready", "freshness", "resync"];

/// One decoded frame of a live stream.
#[derive(Clone, Debug, PartialEq)]
pub enum LiveFrame {
    /// A committed ledger event, to fold into the task it names.
    Ledger(LedgerEvent),
    /// A command of the conversation changed status.
    Command(CommandView),
    /// A task appeared that the page has not loaded; the page re-fetches.
    NewTask(String),
    /// Something was committed somewhere (or the stream reconnected): lists re-query.
    Freshness,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct NewTaskData {
    task_id: String,
}

/// Decodes the `data:` of an SSE event named `name`; `None` for unknown names and for data
/// that does not decode (a frame the page cannot use is skipped, never fatal).
pub fn parse_frame(name: &str, data: &str) -> Option<LiveFrame> {
    match name {
        "ledger" => serde_json::from_slice(data.as_bytes())
            .ok()
            .map(LiveFrame::Ledger),
        "command" => serde_json::from_slice(data.as_bytes())
            .ok()
            .map(LiveFrame::Command),
        "task" => serde_json::from_slice::<NewTaskData>(data.as_bytes())
            .ok()
            .map(|d| LiveFrame::NewTask(d.task_id)),
        "ready" | "freshness" | "resync" => Some(LiveFrame::Freshness),
        _ => None,
    }
}

/// Folds a ledger event into the task it names: decodes the stored A2A payload and applies
/// it with the shared projection fold. `Ok(true)` when the view changed, `Ok(false)` when the
/// event was already folded in (a reconnect delivers it again); `Err` with the decode error.
pub fn fold_ledger_event(view: &mut TaskView, event: &LedgerEvent) -> Result<bool, String> {
    fold_decoded(view, event.sequence, &decode_ledger_event(event))
}

/// A ledger event's stored A2A payload, decoded (once: a page that folds it and also shows it
/// in the Wire panel hands the one result to both), or why it does not decode.
pub fn decode_ledger_event(event: &LedgerEvent) -> Result<DecodedEvent, String> {
    decode_stream_event(&event.payload).map_err(|e| e.to_string())
}

/// [`fold_ledger_event`] of an event already decoded.
pub fn fold_decoded(
    view: &mut TaskView,
    sequence: i64,
    decoded: &Result<DecodedEvent, String>,
) -> Result<bool, String> {
    match decoded {
        Ok(decoded) => Ok(view.apply(sequence, &decoded.event)),
        Err(error) => Err(error.clone()),
    }
}

/// The live stream of one conversation, resuming after `after`.
pub fn conversation_stream_url(conversation_id: &str, after: i64) -> String {
    format!(
        "/api/live/conversations/{}?after={after}",
        encode_segment(conversation_id)
    )
}

/// The live stream of one task, resuming after `after`.
pub fn task_stream_url(task_id: &str, after: i64) -> String {
    format!("/api/live/tasks/{}?after={after}", encode_segment(task_id))
}

/// Percent-encodes everything but RFC 3986 unreserved characters (ids are UUIDs, but a URL
/// is never built from unchecked text).
pub fn encode_segment(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len());
    for byte in segment.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.' | b'~') {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// Subscribes to the stream at `url` while the calling component lives, calling `on_frame` for
/// each frame. A new URL closes the old connection and opens the new one; `None` closes it.
/// The browser reconnects by itself and sends `Last-Event-ID`.
///
/// Frames are handed over once per animation frame, in arrival order: at a thousand events a
/// second the page then renders sixty times a second, not a thousand (the reactive system runs
/// its effects once after a batch).
#[cfg(feature = "hydrate")]
pub fn use_live_stream(url: Signal<Option<String>>, on_frame: impl Fn(LiveFrame) + 'static) {
    let on_frame: std::rc::Rc<dyn Fn(LiveFrame)> = std::rc::Rc::new(on_frame);
    let connection = StoredValue::new_local(None::<connection::Connection>);
    // EventSource retries dropped connections by itself, but gives up for good on an HTTP error
    // (a restarting server's 503, a proxy's 502). Then a new one is opened after a pause; events
    // it repeats are ignored by the fold (their sequence is not newer).
    let generation = RwSignal::new(0u32);
    let reopen: std::rc::Rc<dyn Fn()> = std::rc::Rc::new(move || {
        connection::after(connection::REOPEN_AFTER_MS, move || {
            let _ = generation.try_update(|g| *g += 1);
        });
    });
    Effect::new(move |_| {
        let url = url.get();
        generation.track();
        // A replaced connection hands over the frames it received and has not delivered yet
        // (a page that refetched and reconnects must not miss them); dropping it closes it.
        if let Some(old) = connection.try_update_value(Option::take).flatten() {
            old.flush_pending();
        }
        if let Some(url) = url {
            connection.set_value(connection::Connection::open(
                &url,
                on_frame.clone(),
                reopen.clone(),
            ));
        }
    });
    on_cleanup(move || {
        connection.try_update_value(|current| *current = None);
    });
}

/// On the server there is no live stream: the page renders what it loaded.
#[cfg(not(feature = "hydrate"))]
pub fn use_live_stream(url: Signal<Option<String>>, on_frame: impl Fn(LiveFrame) + 'static) {
    let _ = (url, on_frame);
}

/// A trailing throttle: the first signal acts at once and opens a window; signals within the
/// window act once more when it ends (one load, not one per signal, and never a last change
/// missed). Pure state, so it is tested natively; [`use_freshness_throttled`] drives it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Throttle {
    window_open: bool,
    again: bool,
}

impl Throttle {
    /// A signal arrived: `true` when the caller acts now (and opens a window).
    pub fn signal(&mut self) -> bool {
        if self.window_open {
            self.again = true;
            false
        } else {
            self.window_open = true;
            true
        }
    }

    /// The window ended: `true` when a signal arrived within it, so the caller acts now (and a
    /// new window opens).
    pub fn window_ended(&mut self) -> bool {
        let again = std::mem::take(&mut self.again);
        self.window_open = again;
        again
    }
}

/// How often the app-wide freshness signal may set off a load of something beside the page's
/// own content (the navigation's Inbox badge). The server sends up to four frames a second
/// while agents stream; the badge's two queries need not follow each one.
pub const BESIDE_PAGE_EVERY_MS: i32 = 2000;

/// Counts the app-wide freshness signal's frames, at most one change per `every_ms`
/// (trailing: a frame within the window counts when it ends). Track it to re-load.
pub fn use_freshness_throttled(every_ms: i32) -> ReadSignal<u64> {
    let (count, set_count) = signal(0_u64);
    #[cfg(feature = "hydrate")]
    {
        let throttle = StoredValue::new(Throttle::default());
        let bump = move || set_count.try_update(|n| *n += 1).is_some();
        fn window(throttle: StoredValue<Throttle>, bump: impl Fn() -> bool + Copy + 'static, ms: i32) {
            connection::after(ms, move || {
                if throttle.try_update_value(Throttle::window_ended) == Some(true) && bump() {
                    window(throttle, bump, ms);
                }
            });
        }
        use_live_stream(Signal::derive(|| Some(FRESHNESS_URL.to_owned())), move |frame| {
            if frame == LiveFrame::Freshness
                && throttle.try_update_value(Throttle::signal) == Some(true)
                && bump()
            {
                window(throttle, bump, every_ms);
            }
        });
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = (set_count, every_ms);
    count
}

#[cfg(feature = "hydrate")]
mod connection {
    use std::cell::RefCell;
    use std::rc::Rc;

    use wasm_bindgen::JsCast;
    use wasm_bindgen::closure::Closure;
    use web_sys::{EventSource, MessageEvent};

    use super::{FRAME_NAMES, LiveFrame, parse_frame};

    /// An open `EventSource` and the listeners it calls; closed when dropped.
    pub(super) struct Connection {
        source: EventSource,
        _listeners: Vec<Closure<dyn FnMut(MessageEvent)>>,
        _on_error: Closure<dyn FnMut(web_sys::Event)>,
        batch: Rc<Batch>,
        /// Set when the connection is dropped: a batch still waiting for its animation frame
        /// is discarded then (the component that would receive it may be gone).
        closed: Rc<RefCell<bool>>,
    }

    /// Frames received since the last animation frame, delivered together.
    struct Batch {
        frames: RefCell<Vec<LiveFrame>>,
        on_frame: Rc<dyn Fn(LiveFrame)>,
        closed: Rc<RefCell<bool>>,
    }

    impl Batch {
        fn push(self: &Rc<Self>, frame: LiveFrame) {
            let first = {
                let mut frames = self.frames.borrow_mut();
                frames.push(frame);
                frames.len() == 1
            };
            if first {
                let batch = self.clone();
                let flush = Closure::once_into_js(move || batch.flush());
                let scheduled = web_sys::window()
                    .map(|w| w.request_animation_frame(flush.unchecked_ref()).is_ok())
                    .unwrap_or(false);
                if !scheduled {
                    self.flush();
                }
            }
        }

        fn flush(&self) {
            let frames = std::mem::take(&mut *self.frames.borrow_mut());
            if *self.closed.borrow() {
                return;
            }
            for frame in frames {
                (self.on_frame)(frame);
            }
        }
    }

    /// Pause before a stream the browser gave up on is opened again.
    pub(super) const REOPEN_AFTER_MS: i32 = 2000;

    /// Runs `f` once after `ms` milliseconds.
    pub(super) fn after(ms: i32, f: impl FnOnce() + 'static) {
        let callback = Closure::once_into_js(f);
        if let Some(window) = web_sys::window() {
            let _ =
                window.set_timeout_with_callback_and_timeout_and_arguments_0(callback.unchecked_ref(), ms);
        }
    }

    impl Connection {
        pub(super) fn open(
            url: &str,
            on_frame: Rc<dyn Fn(LiveFrame)>,
            reopen: Rc<dyn Fn()>,
        ) -> Option<Connection> {
            let source = EventSource::new(url).ok()?;
            let closed = Rc::new(RefCell::new(false));
            let batch = Rc::new(Batch {
                frames: RefCell::new(Vec::new()),
                on_frame,
                closed: closed.clone(),
            });
            let listeners = FRAME_NAMES
                .iter()
                .map(|&name| {
                    let batch = batch.clone();
                    let listener = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
                        if let Some(frame) =
                            event.data().as_string().and_then(|data| parse_frame(name, &data))
                        {
                            batch.push(frame);
                        }
                    });
                    // Adding a listener to a live EventSource does not fail for a valid name.
                    let _ = source.add_event_listener_with_callback(name, listener.as_ref().unchecked_ref());
                    listener
                })
                .collect();
            let watched = source.clone();
            let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(move |_event: web_sys::Event| {
                if watched.ready_state() == EventSource::CLOSED {
                    reopen();
                }
            });
            let _ = source.add_event_listener_with_callback("error", on_error.as_ref().unchecked_ref());
            Some(Connection {
                source,
                _listeners: listeners,
                _on_error: on_error,
                batch,
                closed,
            })
        }

        /// Delivers the frames received and not delivered yet, now.
        pub(super) fn flush_pending(&self) {
            self.batch.flush();
        }
    }

    impl Drop for Connection {
        fn drop(&mut self) {
            *self.closed.borrow_mut() = true;
            self.source.close();
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::a2a::TaskState;

    #[test]
    fn ledger_command_and_task_frames_decode() {
        let ledger = json!({"sequence": 7, "taskId": "t", "conversationId": "c", "source": "stream",
            "payload": {"statusUpdate": {}}, "extensions": [], "receivedAt": "2026-01-01T00:00:00Z"});
        match parse_frame("ledger", &ledger.to_string()) {
            Some(LiveFrame::Ledger(event)) => assert_eq!(event.sequence, 7),
            other => panic!("{other:?}"),
        }
        let command = json!({"id": "k", "agentId": "a", "action": "send", "messageId": "m", "status": "pending",
            "error": null, "taskId": null, "conversationId": "c", "text": "hi", "createdAt": "x"});
        assert!(
            matches!(parse_frame("command", &command.to_string()), Some(LiveFrame::Command(c)) if c.text == "hi")
        );
        assert_eq!(
            parse_frame("task", r#"{"taskId":"t2"}"#),
            Some(LiveFrame::NewTask("t2".into()))
        );
    }

    #[test]
    fn freshness_frames_and_junk() {
        for name in ["ready", "freshness", "resync"] {
            assert_eq!(parse_frame(name, "{}"), Some(LiveFrame::Freshness));
        }
        assert_eq!(parse_frame("ledger", "not json"), None);
        assert_eq!(parse_frame("ping", "{}"), None);
    }

    fn status_event(sequence: i64, state: &str) -> LedgerEvent {
        LedgerEvent {
            sequence,
            task_id: "t".into(),
            conversation_id: "c".into(),
            source: "stream".into(),
            payload: json!({"statusUpdate": {"taskId": "r", "contextId": "ctx", "status": {"state": state}}}),
            extensions: Vec::new(),
            protocol_version: None,
            received_at: "2026-01-01T00:00:00Z".into(),
        }
    }

    #[test]
    fn folding_applies_once_and_reports_bad_payloads() {
        let mut view = TaskView {
            local_id: "t".into(),
            state: TaskState::Submitted,
            ..TaskView::default()
        };
        assert_eq!(
            fold_ledger_event(&mut view, &status_event(3, "TASK_STATE_WORKING")),
            Ok(true)
        );
        assert_eq!(view.state, TaskState::Working);
        assert_eq!(
            fold_ledger_event(&mut view, &status_event(3, "TASK_STATE_WORKING")),
            Ok(false)
        );
        let mut broken = status_event(4, "x");
        broken.payload = json!({"statusUpdate": "nope"});
        assert!(fold_ledger_event(&mut view, &broken).is_err());
    }

    /// The Inbox badge re-loads once for a burst of freshness frames, and once more after it,
    /// so the last change is shown.
    #[test]
    fn a_burst_of_signals_acts_at_once_and_once_more_when_the_window_ends() {
        let mut throttle = Throttle::default();
        assert!(throttle.signal(), "the first signal acts at once");
        assert!(!throttle.signal());
        assert!(!throttle.signal());
        assert!(
            throttle.window_ended(),
            "the signals within the window act once at its end"
        );
        assert!(!throttle.signal(), "that opened another window");
        assert!(throttle.window_ended());
        assert!(!throttle.window_ended(), "a quiet window closes");
        assert!(
            throttle.signal(),
            "after a quiet window a signal acts at once again"
        );
        assert!(!throttle.window_ended());
    }

    #[test]
    fn urls_resume_after_a_sequence_and_encode_ids() {
        assert_eq!(
            conversation_stream_url("c-1", 0),
            "/api/live/conversations/c-1?after=0"
        );
        assert_eq!(task_stream_url("a/b c", 12), "/api/live/tasks/a%2Fb%20c?after=12");
    }
}
