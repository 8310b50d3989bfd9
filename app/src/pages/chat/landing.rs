//! The Chat landing (`/chat`): "Start a chat" per reachable agent and the recent conversations,
//! re-queried on the app-wide freshness signal. `/chat?agent=` opens a new chat with that agent.

use leptos::Params;
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::components::Redirect;
use leptos_router::hooks::use_query;
use leptos_router::params::Params;

use super::conversation::NEW_CHAT;
use crate::api::agents::{AgentSummary, list_agents};
use crate::api::tasks::{ConversationSummary, list_conversations};
use crate::components::state_chip::StateChip;
use crate::components::when::When;
use crate::live::{FRESHNESS_URL, LiveFrame, encode_segment, use_live_stream};
use crate::pages::route::non_empty;
use crate::pages::task_detail::display_title;

/// The URL of a new chat with `agent_id`.
pub fn new_chat_href(agent_id: &str) -> String {
    format!("/chat/{NEW_CHAT}?agent={}", encode_segment(agent_id))
}

/// `?agent=`: the agent a new chat is with (`/chat` redirects to it, `/chat/new` starts it).
#[derive(Params, Clone, Debug, PartialEq, Eq)]
pub struct AgentQuery {
    pub agent: Option<String>,
}

/// Start a chat, recent conversations.
#[component]
pub fn ChatPage() -> impl IntoView {
    let query = use_query::<AgentQuery>();
    let agent = move || query.with(|q| q.as_ref().ok().and_then(|q| non_empty(&q.agent)));
    view! {
        {move || agent().map(|agent| view! { <Redirect path=new_chat_href(&agent)/> })}
        <Title text="Chat"/>
        <header class="page-header">
            <h1>"Chat"</h1>
            <p class="lede">"Talk to an agent: send text, files and data, and watch its tasks stream in."</p>
        </header>
        <StartChat/>
        <RecentConversations/>
    }
    .into_any()
}

/// One button per reachable agent.
#[component]
fn StartChat() -> impl IntoView {
    let agents = Resource::new(|| (), |()| list_agents());
    view! {
        <section class="panel" aria-label="Start a chat">
            <h2>"Start a chat"</h2>
            <Transition fallback=|| view! { <p class="muted" aria-busy="true">"Discovering agents…"</p> }>
                <ErrorBoundary fallback=crate::components::error_alert::error_alert>
                    {move || Suspend::new(async move { agents.await.map(|list| view! { <AgentButtons agents=list/> }) })}
                </ErrorBoundary>
            </Transition>
        </section>
    }
}

/// The reachable agents as buttons, or the way to add one.
#[component]
fn AgentButtons(agents: Vec<AgentSummary>) -> impl IntoView {
    let unreachable = agents.iter().filter(|a| !a.reachable()).count();
    let reachable: Vec<AgentSummary> = agents.into_iter().filter(AgentSummary::reachable).collect();
    if reachable.is_empty() {
        return view! {
            <p class="muted">
                {(unreachable > 0).then(|| format!("No registered agent is reachable right now ({unreachable} registered). "))}
                <a href="/agents">"Add an agent first"</a>
            </p>
        }
        .into_any();
    }
    view! {
        <div class="agent-buttons">
            {reachable
                .into_iter()
                .map(|agent| {
                    let name = agent.name.clone().unwrap_or_else(|| agent.id.clone());
                    view! {
                        <a class="button" href=new_chat_href(&agent.id) data-agent-id=agent.id.clone()>{name}</a>
                    }
                })
                .collect_view()}
        </div>
        {(unreachable > 0).then(|| view! {
            <p class="muted small">{format!("{unreachable} unreachable agent(s) not shown; see ")}<a href="/agents">"Agents"</a>"."</p>
        })}
    }
    .into_any()
}

/// Recent conversations, newest first.
#[component]
fn RecentConversations() -> impl IntoView {
    let (freshness, set_freshness) = signal(0_u64);
    let conversations = Resource::new(move || freshness.get(), |_| list_conversations());
    use_live_stream(Signal::derive(|| Some(FRESHNESS_URL.to_owned())), move |frame| {
        if frame == LiveFrame::Freshness {
            set_freshness.update(|n| *n += 1);
        }
    });
    view! {
        <section class="panel" aria-label="Recent conversations">
            <h2>"Recent conversations"</h2>
            <Transition fallback=|| view! { <p class="muted" aria-busy="true">"Loading conversations…"</p> }>
                <ErrorBoundary fallback=crate::components::error_alert::error_alert>
                    {move || Suspend::new(async move {
                        conversations.await.map(|list| view! { <ConversationList conversations=list/> })
                    })}
                </ErrorBoundary>
            </Transition>
        </section>
    }
}

/// The list, or an empty state.
#[component]
fn ConversationList(conversations: Vec<ConversationSummary>) -> impl IntoView {
    if conversations.is_empty() {
        return view! { <p class="muted">"No conversations yet. Start one with an agent above."</p> }
            .into_any();
    }
    view! {
        <ul class="conversation-list" data-keynav>
            {conversations
                .into_iter()
                .map(|c| {
                    let agent = c.agent_name.clone().unwrap_or_else(|| c.agent_id.clone());
                    let tasks = if c.task_count == 1 { "1 task".to_owned() } else { format!("{} tasks", c.task_count) };
                    view! {
                        <li class="conversation-row">
                            <div class="task-row-main">
                                <a class="task-title" href=format!("/chat/{}", c.conversation_id)>{display_title(&c.title)}</a>
                                <p class="task-meta">{agent} " · " {tasks} " · " <When at=c.updated_at.clone()/></p>
                            </div>
                            <StateChip state=c.state.clone()/>
                        </li>
                    }
                })
                .collect_view()}
        </ul>
    }
    .into_any()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_chat_links_name_the_agent() {
        assert_eq!(new_chat_href("a-1"), "/chat/new?agent=a-1");
        assert_eq!(new_chat_href("a&b"), "/chat/new?agent=a%26b");
    }
}
