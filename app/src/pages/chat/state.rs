//! [`ChatState`]: the one handle the conversation page's parts share: the loaded conversation
//! kept current by its live stream, the wire log, and the send in flight.

use leptos::prelude::*;
#[cfg(feature = "hydrate")]
use leptos_router::hooks::use_navigate;
use serde_json::json;

use super::conversation::Handoff;
use super::fold::{Folded, SettledCommands, catch_up, fold_ledger_decoded, knows_task};
use super::follow::Follow;
use super::wire::{WireEntry, check_decoded, record_checked};
use crate::api::extensions::AgentExtensions;
use crate::api::idempotency::DraftKey;
use crate::api::tasks::{CommandView, ConversationView, SendInput, get_conversation, send_message};
use crate::components::trace::TraceFeed;
use crate::live::{LiveFrame, conversation_stream_url, decode_ledger_event, use_live_stream};

/// Where a re-fetch of the conversation stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Refetch {
    Idle,
    Running,
    /// Another re-fetch was asked for while one ran.
    Again,
}

/// Client-side navigation, kept for after an await (hooks cannot be called there).
#[cfg(feature = "hydrate")]
type Navigate = Box<dyn Fn(&str)>;

/// The conversation page's shared state; `Copy`, handed to each part of the page.
#[derive(Clone, Copy)]
pub struct ChatState {
    /// The conversation as loaded, with live events folded in.
    pub conversation: RwSignal<ConversationView>,
    /// The skill the next new task is restricted to (skill routing, reference §1.3).
    pub skill: RwSignal<Option<String>>,
    /// The agent's extensions from its stored card (forms, approvals, A2UI, skills, what each
    /// send carries and why); `None` until loaded. The composer loads them in the browser (it
    /// shows most of them); the timeline reads them too.
    pub extensions: RwSignal<Option<AgentExtensions>>,
    /// The agent's name, modes, credential state and starter prompts; `None` until loaded
    /// (the composer loads it in the browser).
    pub agent: RwSignal<Option<crate::api::agents::ChatAgent>>,
    /// Text for the composer's draft (a starter prompt was chosen); the composer takes it.
    pub prefill: RwSignal<Option<String>>,
    /// The wire inspector's log.
    pub wire: RwSignal<Vec<WireEntry>>,
    /// The Trace rail is open (one rail at a time: opening it closes the Wire rail).
    pub trace_open: RwSignal<bool>,
    /// Live ledger events for the Trace rail, handed over while it is open (opening it loads
    /// the stored ones).
    pub trace: TraceFeed,
    /// Following the newest item as it arrives.
    pub follow: Follow,
    /// A send is on its way to the server.
    pub sending: RwSignal<bool>,
    /// Why the last send was refused.
    pub send_error: RwSignal<Option<String>>,
    refetch: StoredValue<Refetch>,
    settled: StoredValue<SettledCommands>,
    /// Tells the page that its new chat started (absent outside a conversation page).
    handoff: Option<Handoff>,
    /// While a re-fetch runs: every ledger event received meanwhile, folded into the fresh
    /// view when it arrives. The live stream stays open across re-fetches, so no event is
    /// missed (a reconnect would drop those in flight) and none is lost from the view.
    missed: StoredValue<Option<Vec<crate::api::tasks::LedgerEvent>>>,
    /// Browser only: a thread-local value must not live in the server's render, whose owner is
    /// cleaned up on another thread (and the server never navigates).
    #[cfg(feature = "hydrate")]
    navigate: StoredValue<Navigate, LocalStorage>,
}

impl ChatState {
    /// Client-side navigation (nothing on the server).
    fn go_to(self, url: &str) {
        #[cfg(feature = "hydrate")]
        self.navigate.try_with_value(|navigate| navigate(url));
        #[cfg(not(feature = "hydrate"))]
        let _ = url;
    }

    /// State for a loaded conversation (or an empty new chat), subscribed to its live stream
    /// for as long as the calling component lives.
    pub fn new(initial: ConversationView) -> ChatState {
        #[cfg(feature = "hydrate")]
        let navigate = use_navigate();
        let state = ChatState {
            conversation: RwSignal::new(initial),
            skill: RwSignal::new(None),
            extensions: RwSignal::new(None),
            agent: RwSignal::new(None),
            prefill: RwSignal::new(None),
            wire: RwSignal::new(Vec::new()),
            trace_open: RwSignal::new(false),
            trace: TraceFeed::new(),
            follow: Follow::new(),
            sending: RwSignal::new(false),
            send_error: RwSignal::new(None),
            refetch: StoredValue::new(Refetch::Idle),
            settled: StoredValue::new(SettledCommands::default()),
            handoff: use_context::<Handoff>(),
            missed: StoredValue::new(None),
            #[cfg(feature = "hydrate")]
            navigate: StoredValue::new_local(Box::new(move |url: &str| navigate(url, Default::default()))),
        };
        // Opens once the conversation has an id (a new chat gets one with its first send) and
        // resumes after the newest event the page has whenever it (re)opens.
        let id = Memo::new(move |_| state.conversation.with(|c| c.conversation_id.clone()));
        let url = Signal::derive(move || {
            let id = id.get();
            (!id.is_empty()).then(|| {
                let after = state.conversation.with_untracked(|c| c.last_sequence);
                conversation_stream_url(&id, after)
            })
        });
        use_live_stream(url, move |frame| state.on_frame(frame));
        state
    }

    /// The conversation id; empty for a chat not started yet.
    pub fn conversation_id(self) -> String {
        self.conversation.with_untracked(|c| c.conversation_id.clone())
    }

    fn on_frame(self, frame: LiveFrame) {
        let refetch = match frame {
            LiveFrame::Ledger(event) => {
                self.missed.try_update_value(|missed| {
                    if let Some(missed) = missed {
                        missed.push(event.clone());
                    }
                });
                if self.trace_open.try_get_untracked() == Some(true) {
                    self.trace.push(event.clone());
                }
                // Decoded once, for the fold and the Wire panel's check both.
                let decoded = decode_ledger_event(&event);
                // Only a change the page shows re-renders it: a status repeated (a flood of
                // WORKING updates) moves the resume point and nothing else.
                let folded = self
                    .conversation
                    .try_update_untracked(|c| fold_ledger_decoded(c, &event, &decoded));
                if folded == Some(Folded::Changed) {
                    self.conversation.notify();
                }
                let check = check_decoded(&decoded);
                self.wire.update(|log| {
                    record_checked(log, event, check);
                });
                folded == Some(Folded::UnknownTask)
            }
            LiveFrame::Command(command) => self.note_command(command),
            LiveFrame::NewTask(task_id) => !self.conversation.with_untracked(|c| knows_task(c, &task_id)),
            LiveFrame::Freshness => false,
        };
        if refetch {
            self.refetch();
        }
    }

    /// Loads the conversation again (a task appeared that the page has not seen); asks made
    /// while a load runs fold into one more load after it.
    pub fn refetch(self) {
        let was = self.refetch.try_update_value(|r| {
            let was = *r;
            *r = if was == Refetch::Idle {
                Refetch::Running
            } else {
                Refetch::Again
            };
            was
        });
        if was != Some(Refetch::Idle) {
            return;
        }
        leptos::task::spawn_local(async move {
            loop {
                self.missed.try_set_value(Some(Vec::new()));
                let loaded = get_conversation(self.conversation_id()).await;
                let missed = self
                    .missed
                    .try_update_value(Option::take)
                    .flatten()
                    .unwrap_or_default();
                if let Ok(mut fresh) = loaded {
                    self.settled.try_with_value(|settled| settled.apply(&mut fresh));
                    if catch_up(&mut fresh, &missed) {
                        // An event names a task this load did not have yet: load once more.
                        self.refetch.try_update_value(|r| *r = Refetch::Again);
                    }
                    self.conversation.try_set(fresh);
                }
                let again = self.refetch.try_update_value(|r| {
                    let again = *r == Refetch::Again;
                    *r = if again { Refetch::Running } else { Refetch::Idle };
                    again
                });
                if again != Some(true) {
                    break;
                }
            }
        });
    }

    /// Sends a message under the sending control's draft `key` (a retry replays the stored
    /// command, issue #26): logs it, stores it on the server, shows it as pending and runs
    /// `done` once the server accepted it (the composer clears its draft then). A new chat
    /// moves to its conversation's URL.
    pub fn send(self, input: SendInput, key: DraftKey, done: impl FnOnce() + 'static) {
        self.send_then(input, key, Box::new(done));
    }

    /// [`ChatState::send`]'s body, not generic: one copy of its code for every control that sends.
    fn send_then(self, mut input: SendInput, key: DraftKey, done: Box<dyn FnOnce()>) {
        if self.sending.get_untracked() {
            return;
        }
        input.idempotency_key = Some(key.get());
        // Every send carries Settings' extension URIs (reference §2.2), whichever control sent it.
        if input.options.extensions.is_empty() {
            input.options.extensions = crate::settings::active_extension_uris(&crate::settings::load());
        }
        self.sending.set(true);
        self.send_error.set(None);
        // The reader sent something: they want to see it and what comes back.
        self.follow.jump_to_end();
        self.wire.update(|log| {
            log.push(WireEntry::Sent {
                action: "SendMessage",
                body: serde_json::to_value(&input).unwrap_or_default(),
            })
        });
        let new_chat = input.conversation_id.is_none();
        leptos::task::spawn_local(async move {
            let result = send_message(input).await;
            self.sending.try_set(false);
            key.settle(&result);
            match result {
                Ok(command) => {
                    done();
                    let started = command.conversation_id.clone().filter(|_| new_chat);
                    // A page that was left meanwhile (disposed) records nothing and goes nowhere.
                    let started = started.filter(|id| {
                        self.conversation
                            .try_update(|c| c.conversation_id = id.clone())
                            .is_some()
                    });
                    let refetch = self.note_command(command);
                    if let Some(id) = started {
                        // The page stays as it is (see `Handoff`); its stream opens now.
                        if let Some(handoff) = self.handoff {
                            handoff.started(&id);
                        }
                        self.go_to(&format!("/chat/{id}"));
                    } else if refetch {
                        self.refetch();
                    }
                }
                Err(error) => {
                    self.send_error.try_set(Some(error.to_string()));
                }
            }
        });
    }

    /// Records a stored CancelTask: logged on the wire and shown until it settles.
    pub fn cancelled(self, command: CommandView) {
        self.wire.update(|log| {
            log.push(WireEntry::Sent {
                action: "CancelTask",
                body: json!({ "action": command.action, "taskId": command.task_id }),
            })
        });
        self.note_command(command);
    }

    /// Records a command's status (see [`SettledCommands`]); `true` when it landed in a task
    /// this page has not loaded.
    fn note_command(self, command: CommandView) -> bool {
        self.conversation.try_update(|c| {
            self.settled
                .try_update_value(|settled| settled.note(c, command))
                .unwrap_or(false)
        }) == Some(true)
    }
}
