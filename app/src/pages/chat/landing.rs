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
    // The search outlives the list: every commit re-reads (and re-renders) the list, and the
    // words typed and the agent chosen must apply to the new list, not be cleared by it.
    let words = RwSignal::new(String::new());
    let agent = RwSignal::new(String::new());
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
                        conversations.await.map(|list| view! { <ConversationList conversations=list words agent/> })
                    })}
                </ErrorBoundary>
            </Transition>
        </section>
    }
}

/// Whether a conversation matches the search words (title or agent, any case) and the agent.
pub fn conversation_matches(c: &ConversationSummary, words: &str, agent_id: &str) -> bool {
    if !agent_id.is_empty() && c.agent_id != agent_id {
        return false;
    }
    let agent = c.agent_name.as_deref().unwrap_or(&c.agent_id).to_lowercase();
    let title = c.title.to_lowercase();
    words
        .split_whitespace()
        .map(str::to_lowercase)
        .all(|w| title.contains(&w) || agent.contains(&w))
}

/// A search box and an agent choice over the list, or an empty state. `words` and `agent` are
/// kept by the caller across re-reads of the list.
#[component]
fn ConversationList(
    conversations: Vec<ConversationSummary>,
    words: RwSignal<String>,
    agent: RwSignal<String>,
) -> impl IntoView {
    if conversations.is_empty() {
        return view! { <p class="muted">"No conversations yet. Start one with an agent above."</p> }
            .into_any();
    }
    let mut agents: Vec<(String, String)> = Vec::new();
    for c in &conversations {
        if !agents.iter().any(|(id, _)| *id == c.agent_id) {
            agents.push((
                c.agent_id.clone(),
                c.agent_name.clone().unwrap_or_else(|| c.agent_id.clone()),
            ));
        }
    }
    let all = StoredValue::new(conversations);
    let shown = move || {
        let (words, agent) = (words.get(), agent.get());
        all.with_value(|list| {
            list.iter()
                .filter(|c| conversation_matches(c, &words, &agent))
                .cloned()
                .collect::<Vec<_>>()
        })
    };
    view! {
        <div class="conversation-search" role="search" aria-label="Search conversations">
            <label for="conversation-search" class="visually-hidden">"Search conversations"</label>
            <input
                id="conversation-search"
                type="search"
                placeholder="Search titles and agents"
                prop:value=words
                on:input=move |ev| words.set(event_target_value(&ev))
            />
            <label for="conversation-agent" class="visually-hidden">"Agent"</label>
            <select id="conversation-agent" on:change=move |ev| agent.set(event_target_value(&ev))>
                <option value="">"All agents"</option>
                {agents
                    .into_iter()
                    .map(|(id, name)| {
                        let selected = agent.get_untracked() == id;
                        view! { <option value=id selected=selected>{name}</option> }
                    })
                    .collect_view()}
            </select>
        </div>
        <ul class="conversation-list" data-keynav>
            <For each=shown key=|c| c.conversation_id.clone() children=|c| view! { <ConversationRow c/> }/>
        </ul>
        <Show when=move || words.with(|w| !w.trim().is_empty()) || agent.with(|a| !a.is_empty())>
            {move || shown().is_empty().then(|| view! { <p class="muted">"No recent conversation matches."</p> })}
        </Show>
    }
    .into_any()
}

/// One conversation: title, agent, task count, last change and the newest task's state.
#[component]
fn ConversationRow(c: ConversationSummary) -> impl IntoView {
    let agent = c.agent_name.clone().unwrap_or_else(|| c.agent_id.clone());
    let tasks = if c.task_count == 1 {
        "1 task".to_owned()
    } else {
        format!("{} tasks", c.task_count)
    };
    view! {
        <li class="conversation-row">
            <div class="task-row-main">
                <a class="task-title" href=format!("/chat/{}", c.conversation_id)>{display_title(&c.title)}</a>
                <p class="task-meta">{agent} " · " {tasks} " · " <When at=c.updated_at.clone()/></p>
            </div>
            <StateChip state=c.state.clone()/>
        </li>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversations_match_every_word_in_title_or_agent_and_the_agent() {
        let c = ConversationSummary {
            conversation_id: "c".into(),
            agent_id: "a1".into(),
            agent_name: Some("Deploy Bot".into()),
            title: "Roll back billing".into(),
            task_count: 1,
            state: crate::a2a::TaskState::Completed,
            updated_at: "2026-12-05T10:00:00Z".into(),
        };
        assert!(conversation_matches(&c, "", ""));
        assert!(conversation_matches(&c, " BILLING  deploy ", ""));
        assert!(!conversation_matches(&c, "billing payroll", ""));
        assert!(conversation_matches(&c, "roll", "a1"));
        assert!(!conversation_matches(&c, "", "a2"));
    }

    #[test]
    fn new_chat_links_name_the_agent() {
        assert_eq!(new_chat_href("a-1"), "/chat/new?agent=a-1");
        assert_eq!(new_chat_href("a&b"), "/chat/new?agent=a%26b");
    }
}
