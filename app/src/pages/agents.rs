//! The Agents screen (`/agents`): registered agents with live reachability, searchable.

use leptos::prelude::*;
use leptos_meta::Title;

use crate::api::agents::{AgentSummary, list_agents};

/// The agent list; the page owns the resource and the search text.
#[component]
pub fn AgentsPage() -> impl IntoView {
    let agents = Resource::new(|| (), |_| list_agents());
    let (query, set_query) = signal(String::new());
    view! {
        <Title text="Agents"/>
        <header class="page-header">
            <h1>"Agents"</h1>
            <p class="lede">"Registered A2A agents, checked live: each card is fetched again when this list loads."</p>
        </header>
        <div class="toolbar">
            <label class="search">
                <span class="visually-hidden">"Search agents"</span>
                <input
                    type="search"
                    placeholder="Search by name, description, skill or URL"
                    prop:value=query
                    on:input=move |ev| set_query.set(event_target_value(&ev))
                />
            </label>
        </div>
        <Transition fallback=|| view! { <p class="muted" aria-busy="true">"Discovering agents…"</p> }>
            <ErrorBoundary fallback=|errors| {
                view! {
                    <p role="alert" class="error">
                        {move || errors.get().into_iter().map(|(_, e)| e.to_string()).collect::<Vec<_>>().join(" ")}
                    </p>
                }
            }>
                {move || Suspend::new(async move {
                    agents.await.map(|list| view! { <AgentList agents=list query=query/> })
                })}
            </ErrorBoundary>
        </Transition>
        <p class="hint">
            "Adding and removing agents from this screen arrives with the console issue (#4). Until then, list card URLs in "
            <code>"A2A_REGISTERED_AGENTS"</code> "."
        </p>
    }
}

/// The filtered list, or an empty state.
#[component]
fn AgentList(agents: Vec<AgentSummary>, #[prop(into)] query: Signal<String>) -> impl IntoView {
    if agents.is_empty() {
        return view! {
            <section class="empty-state">
                <h2>"No agents yet"</h2>
                <p>"Register agents by listing their card URLs in A2A_REGISTERED_AGENTS (scripts/run registers the demo agent)."</p>
            </section>
        }
        .into_any();
    }
    let agents = StoredValue::new(agents);
    let visible = move || {
        let query = query.get();
        agents.with_value(|all| {
            all.iter()
                .filter(|a| a.matches(&query))
                .cloned()
                .collect::<Vec<_>>()
        })
    };
    view! {
        <ul class="agent-list" aria-label="Registered agents">
            <For each=visible key=|agent| agent.id.clone() children=|agent| view! { <AgentRow agent/> }/>
        </ul>
        <Show when=move || visible().is_empty()>
            <p class="muted">"No agent matches this search."</p>
        </Show>
    }
    .into_any()
}

/// One agent: name, card version, A2A version and auth (or the discovery error), card URL, status.
#[component]
fn AgentRow(agent: AgentSummary) -> impl IntoView {
    let reachable = agent.reachable();
    let meta = match &agent.error {
        None => {
            let mut parts = vec![format!("v{}", agent.card_version.as_deref().unwrap_or("?"))];
            parts.extend(
                agent
                    .protocol_version
                    .as_ref()
                    .map(|version| format!("A2A {version}")),
            );
            parts.push(agent.auth.clone().unwrap_or_else(|| "no auth".into()));
            parts.join(" · ")
        }
        Some(error) => error.clone(),
    };
    view! {
        <li class="agent-row" data-reachable=reachable.to_string()>
            <span class="status-dot" class:ok=reachable aria-hidden="true"></span>
            <div class="agent-main">
                <p class="agent-name">{agent.name.clone().unwrap_or_else(|| "Unreachable agent".into())}</p>
                <p class="agent-meta" class:error=!reachable>{meta}</p>
                <p class="agent-url">{agent.card_url.clone()}</p>
            </div>
            <span class="status-label">{if reachable { "Reachable" } else { "Discovery failed" }}</span>
        </li>
    }
}
