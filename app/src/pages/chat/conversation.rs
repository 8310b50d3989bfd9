//! One conversation (`/chat/:id`; `/chat/new?agent=` for a chat not started yet): header,
//! timeline, composer and the "{ } Wire" or "Trace" rail. An unknown conversation is a 404 during SSR.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query;

use super::composer::Composer;
use super::follow::NewActivity;
use super::landing::AgentQuery;
use super::state::ChatState;
use super::timeline::Timeline;
use super::wire::WirePanel;
use crate::api::tasks::{ConversationView, get_conversation, get_new_conversation};
use crate::components::copy_id::CopyId;
use crate::components::state_chip::StateChip;
use crate::components::trace::{TraceHistory, TracePanel};
use crate::error::AppError;
use crate::live::encode_segment;

/// The route id of a chat not started yet.
pub const NEW_CHAT: &str = "new";

/// The conversation, or for a new chat an empty one with the agent's name.
async fn load_chat(id: String, agent: String) -> Result<ConversationView, AppError> {
    if id != NEW_CHAT {
        return get_conversation(id).await;
    }
    if agent.is_empty() {
        return Err(AppError::Invalid {
            field: "agent".into(),
            message: "Choose an agent to start a chat with.".into(),
        });
    }
    get_new_conversation(agent).await
}

/// Reads the conversation id (and `?agent=` for a new chat) and loads it.
#[component]
pub fn ConversationPage() -> impl IntoView {
    let page = crate::pages::route::page_id("/chat/");
    let query = use_query::<AgentQuery>();
    // `?agent=` only counts while this page is shown (see `pages::route`).
    let agent = crate::pages::route::while_on("/chat/", move || {
        query.with(|q| q.as_ref().ok().and_then(|q| q.agent.clone()).unwrap_or_default())
    });
    let route = Memo::new(move |_| {
        let id = page.get();
        let agent = if id == NEW_CHAT {
            agent.get()
        } else {
            String::new()
        };
        (id, agent)
    });
    // The first send of a new chat moves it to `/chat/<id>` without loading it again: the page
    // keeps its state (open rails, the Wire log, the composer's choices) and its live stream.
    let handoff = Handoff(StoredValue::new(None));
    provide_context(handoff);
    let load = Memo::new(move |previous: Option<&(String, u32)>| {
        let id = route.with(|(id, _)| id.clone());
        match previous {
            None => (id, 0),
            Some((from, n)) if from == NEW_CHAT && handoff.taken(&id) => (id, *n),
            Some((_, n)) => {
                // Any other move loads, and forgets a handoff that did not happen.
                handoff.forget();
                (id, n + 1)
            }
        }
    });
    // Blocking: the title and the HTTP status (404 for an unknown conversation) come from the data.
    let chat = Resource::new_blocking(
        move || load.with(|(_, n)| *n),
        move |_| {
            let (id, agent) = route.get_untracked();
            load_chat(id, agent)
        },
    );
    view! {
        <Transition fallback=|| view! { <p class="muted" aria-busy="true">"Loading the conversation…"</p> }>
            <ErrorBoundary fallback=|errors| {
                view! {
                    <Title text="Chat"/>
                    <p><a href="/chat">"← Chat"</a></p>
                    <h1>"Conversation"</h1>
                    <p role="alert" class="error">
                        {move || errors.get().into_iter().map(|(_, e)| e.to_string()).collect::<Vec<_>>().join(" ")}
                    </p>
                }
            }>
                {move || Suspend::new(async move {
                    chat.await.map(|initial| view! { <ChatView initial/> })
                })}
            </ErrorBoundary>
        </Transition>
    }
    .into_any()
}

/// The conversation a new chat's first send started, set just before the page moves to its URL
/// (see [`ConversationPage`]); taken by that move, so a later visit loads the page as usual.
#[derive(Clone, Copy)]
pub struct Handoff(StoredValue<Option<String>>);

impl Handoff {
    /// Records that this page's new chat became `conversation_id`.
    pub fn started(self, conversation_id: &str) {
        self.0.try_set_value(Some(conversation_id.to_owned()));
    }

    /// Forgets a recorded start (the page moved elsewhere first).
    fn forget(self) {
        self.0.try_set_value(None);
    }

    /// Whether the page moved to `id` because its new chat started it (then forgets it).
    fn taken(self, id: &str) -> bool {
        self.0
            .try_update_value(|started| started.take_if(|started| started == id).is_some())
            .unwrap_or(false)
    }
}

/// The loaded conversation with its live stream.
#[component]
fn ChatView(initial: ConversationView) -> impl IntoView {
    let conversation_id = initial.conversation_id.clone();
    let state = ChatState::new(initial);
    let wire_open = RwSignal::new(false);
    // One rail at a time: opening Trace closes Wire and the other way round.
    let trace_open = state.trace_open;
    // Opening the Wire panel loads the stored exchange once; live events keep adding to it.
    let history_loaded = StoredValue::new(conversation_id.is_empty());
    let titles = Signal::derive(move || {
        state.conversation.with(|c| {
            c.tasks
                .iter()
                .map(|t| (t.local_id.clone(), t.title.clone()))
                .collect::<Vec<_>>()
        })
    });
    view! {
        <div class="chat-layout" class:with-rail=move || wire_open.get() || trace_open.get()>
            <div class="chat-main">
                <ChatHeader state wire_open trace_open/>
                <Timeline state/>
                <div class="chat-dock">
                    <NewActivity follow=state.follow/>
                    <Composer state/>
                </div>
            </div>
            <Show when=move || wire_open.get()>
                <aside class="chat-rail" aria-label="Wire inspector">
                    {wire_rail(state, history_loaded)}
                </aside>
            </Show>
            <Show when=move || trace_open.get()>
                <aside class="chat-rail" aria-label="Trace">
                    // Read when opened: a new chat has its id once its first send is stored.
                    <TracePanel feed=state.trace history=TraceHistory { conversation_id: state.conversation_id(), task_id: None } titles/>
                </aside>
            </Show>
        </div>
    }
    .into_any()
}

/// The Wire rail. The first opening also loads the conversation's stored exchange.
fn wire_rail(state: ChatState, history_loaded: StoredValue<bool>) -> AnyView {
    if !history_loaded.get_value() {
        history_loaded.set_value(true);
        let id = state.conversation_id();
        leptos::task::spawn_local(async move {
            if let Ok(history) = crate::api::tasks::get_conversation_events(id).await {
                state
                    .wire
                    .try_update(|log| super::wire::prepend_history(log, &history));
            }
        });
    }
    view! { <WirePanel entries=state.wire conversation=state.conversation/> }.into_any()
}

/// Agent, short context id, the newest task's state, New chat and the Wire and Trace toggles.
#[component]
fn ChatHeader(state: ChatState, wire_open: RwSignal<bool>, trace_open: RwSignal<bool>) -> impl IntoView {
    let agent_id = state.conversation.with_untracked(|c| c.agent_id.clone());
    let agent_name = {
        let agent_id = agent_id.clone();
        // `try_`: the page title keeps this closure and may run it once more while the page is
        // being left, after the conversation's signals are gone.
        move || {
            state
                .conversation
                .try_with(|c| c.agent_name.clone())
                .flatten()
                .unwrap_or_else(|| agent_id.clone())
        }
    };
    let context = move || {
        state.conversation.with(|c| {
            c.remote_context_id
                .clone()
                .or_else(|| c.tasks.iter().rev().find_map(|t| t.remote_context_id.clone()))
        })
    };
    let newest = move || {
        state
            .conversation
            .with(|c| c.tasks.last().map(|t| (t.state.clone(), t.kind)))
    };
    view! {
        <Title text=agent_name.clone()/>
        <header class="chat-header">
            <div class="chat-title">
                <p class="back-link"><a href="/chat">"← Chat"</a></p>
                <h1>{agent_name}</h1>
                <p class="agent-meta">
                    {move || match context() {
                        Some(id) => view! { "context " <CopyId id what="context id"/> }.into_any(),
                        None => view! { "new conversation" }.into_any(),
                    }}
                </p>
            </div>
            <div class="chat-actions">
                {move || newest().map(|(state, kind)| view! { <StateChip state kind/> })}
                <a class="button subtle" href=format!("/chat/{NEW_CHAT}?agent={}", encode_segment(&agent_id))>"New chat"</a>
                <button
                    type="button"
                    class="button"
                    data-testid="wire-toggle"
                    aria-pressed=move || wire_open.get().to_string()
                    on:click=move |_| {
                        wire_open.update(|open| *open = !*open);
                        if wire_open.get_untracked() {
                            trace_open.set(false);
                        }
                    }
                >
                    "{ } Wire"
                </button>
                <button
                    type="button"
                    class="button"
                    data-testid="trace-toggle"
                    aria-pressed=move || trace_open.get().to_string()
                    on:click=move |_| {
                        trace_open.update(|open| *open = !*open);
                        if trace_open.get_untracked() {
                            wire_open.set(false);
                        }
                    }
                >
                    "Trace"
                </button>
            </div>
        </header>
    }
    .into_any()
}
