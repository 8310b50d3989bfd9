//! The Agents screen (`/agents`): registered agents with live reachability, searchable.
//!
//! The screen hydrates what it shows: the list, its search and the buttons that open the two
//! forms that write. What those forms need (the card preview and its compliance report, the
//! registration, the removal) is code of its own, loaded when a form is first opened (ADR 0015,
//! ADR 0020): neither is open when the server renders the page, so the page waits for none of it.

use leptos::prelude::*;
use leptos_meta::Title;

use crate::a2a::{ComplianceReport, Severity};
use crate::api::agents::{
    AgentPreview, AgentSummary, PreviewAgent, list_agents, register_agent, remove_agent,
};
use crate::api::{Load, resource};
use crate::error::AppError;

/// What the forms that write tell the page: the list changed (it is fetched again), or the last
/// request failed (the page shows why until the next one succeeds).
#[derive(Clone, Copy)]
struct Changes {
    version: RwSignal<u32>,
    error: RwSignal<Option<String>>,
}

impl Changes {
    fn new() -> Self {
        Changes {
            version: RwSignal::new(0),
            error: RwSignal::new(None),
        }
    }

    /// Records a finished request and fetches the list again either way: a request that failed
    /// because another client changed the list first (an agent removed twice) still leaves the
    /// page showing what is stored. `false` if it failed. The page may be gone by then
    /// (navigation), so nothing here panics on disposed signals.
    fn settle<T>(self, result: Result<T, AppError>) -> bool {
        let failed = result.err().map(|error| error.to_string());
        let ok = failed.is_none();
        self.error.try_set(failed);
        self.version.try_update(|version| *version += 1);
        ok
    }
}

/// The agent list; the page owns the resource, the record of changes and the search text.
#[component]
pub fn AgentsPage() -> impl IntoView {
    let changes = Changes::new();
    // Fetched again after every registration or removal.
    let agents = resource(Load::Streamed, move || changes.version.get(), |_| list_agents());
    let (query, set_query) = signal(String::new());
    view! {
        <Title text="Agents"/>
        <header class="page-header">
            <h1>"Agents"</h1>
            <p class="lede">"Registered A2A agents, checked live: each card is fetched again when this list loads."</p>
        </header>
        <div class="toolbar">
            <AddAgent changes/>
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
        {move || changes.error.get().map(|error| view! { <p role="alert" class="error">{error}</p> })}
        <Transition fallback=|| view! { <p class="muted" aria-busy="true">"Discovering agents…"</p> }>
            <ErrorBoundary fallback=crate::components::error_alert::error_alert>
                {move || Suspend::new(async move {
                    agents.await.map(|list| view! { <AgentList agents=list query=query changes/> })
                })}
            </ErrorBoundary>
        </Transition>
    }
}

/// The filtered list, or an empty state.
#[component]
fn AgentList(
    agents: Vec<AgentSummary>,
    #[prop(into)] query: Signal<String>,
    changes: Changes,
) -> impl IntoView {
    if agents.is_empty() {
        return view! {
            <section class="empty-state">
                <h2>"No agents yet"</h2>
                <p>"Add one with its Agent Card URL, or list card URLs in A2A_REGISTERED_AGENTS."</p>
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
            <For each=visible key=|agent| agent.id.clone() children=move |agent| view! { <AgentRow agent changes/> }/>
        </ul>
        <Show when=move || visible().is_empty()>
            <p class="muted">"No agent matches this search."</p>
        </Show>
    }
    .into_any()
}

/// One agent: name, card version, A2A version and auth (or the discovery error), card URL, status.
#[component]
fn AgentRow(agent: AgentSummary, changes: Changes) -> impl IntoView {
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
    let remove = agent.removable.then(|| {
        let id = StoredValue::new(agent.id.clone());
        view! { <RemoveControl id changes/> }
    });
    view! {
        <li class="agent-row" data-reachable=reachable.to_string()>
            <span class="status-dot" class:ok=reachable aria-hidden="true"></span>
            <div class="agent-main">
                <p class="agent-name">
                    <a href=format!("/agents/{}", agent.id)>
                        {agent.name.clone().unwrap_or_else(|| "Unreachable agent".into())}
                    </a>
                </p>
                <p class="agent-meta" class:error=!reachable>{meta}</p>
                <p class="agent-url">{agent.card_url.clone()}</p>
            </div>
            <span class="status-label">{if reachable { "Reachable" } else { "Discovery failed" }}</span>
            {remove}
        </li>
    }
    .into_any()
}

/// "Remove", then an inline confirmation (history is kept). The confirmation and the request
/// load when it is first asked for.
#[component]
fn RemoveControl(id: StoredValue<String>, changes: Changes) -> impl IntoView {
    let confirming = RwSignal::new(false);
    view! {
        <Show
            when=move || confirming.get()
            fallback=move || view! {
                <button type="button" class="button subtle" on:click=move |_| confirming.set(true)>"Remove"</button>
            }
        >
            {remove_agent_confirm(id, confirming, changes)}
        </Show>
    }
    .into_any()
}

fn remove_agent_confirm(id: StoredValue<String>, confirming: RwSignal<bool>, changes: Changes) -> AnyView {
    let busy = RwSignal::new(false);
    let remove = move |_| {
        busy.set(true);
        let agent_id = id.get_value();
        leptos::task::spawn_local(async move {
            // On success the row leaves the list with the refetch; on failure the page says why.
            changes.settle(remove_agent(agent_id).await);
            busy.try_set(false);
        });
    };
    view! {
        <span class="confirm" role="group" aria-label="Confirm removal">
            "Remove this agent? Its history is kept."
            <button type="button" class="button danger" disabled=move || busy.get() on:click=remove>
                {move || if busy.get() { "Removing…" } else { "Remove agent" }}
            </button>
            <button type="button" class="button subtle" on:click=move |_| confirming.set(false)>"Cancel"</button>
        </span>
    }
    .into_any()
}

/// The "Add agent" button and its panel; the panel's form loads when first opened.
#[component]
fn AddAgent(changes: Changes) -> impl IntoView {
    let open = RwSignal::new(false);
    view! {
        <button
            type="button"
            class="button primary"
            aria-expanded=move || open.get().to_string()
            on:click=move |_| open.update(|open| *open = !*open)
        >
            "Add agent"
        </button>
        <Show when=move || open.get()>
            <section class="panel" aria-label="Add agent">
                {add_agent_panel(open, changes)}
            </section>
        </Show>
    }
}

/// The panel's flow: card URL → preview with the compliance report → connect.
fn add_agent_panel(open: RwSignal<bool>, changes: Changes) -> AnyView {
    let preview = ServerAction::<PreviewAgent>::new();
    let card_url = RwSignal::new(String::new());
    let input = NodeRef::<leptos::html::Input>::new();
    // The field takes the keyboard as soon as it is shown (`autofocus` only acts on page load).
    Effect::new(move |_| {
        if let Some(input) = input.get() {
            let _ = input.focus();
        }
    });
    view! {
        // A plain form, not `ActionForm`: that one decodes its fields with serde_qs in the
        // browser, a decoder that no other part of the app needs (issue #6, wasm size).
        <form
            class="add-agent-form"
            on:submit=move |ev| {
                ev.prevent_default();
                preview.dispatch(PreviewAgent { card_url: card_url.get_untracked() });
            }
        >
            <label for="card-url">"Agent Card URL"</label>
            <input
                id="card-url"
                name="card_url"
                type="url"
                required
                node_ref=input
                placeholder="https://agent.example/.well-known/agent-card.json"
                prop:value=card_url
                on:input=move |ev| card_url.set(event_target_value(&ev))
            />
            <button type="submit" class="button" disabled=move || preview.pending().get()>
                {move || if preview.pending().get() { "Fetching…" } else { "Fetch Agent Card" }}
            </button>
        </form>
        {move || {
            preview.value().get().map(|result| match result {
                Ok(card) => view! { <PreviewCard card open changes/> }.into_any(),
                Err(error) => view! { <p role="alert" class="error">{error.to_string()}</p> }.into_any(),
            })
        }}
    }
    .into_any()
}

/// The fetched card, its compliance report and the Connect button, which closes the panel once
/// the agent is registered (and leaves it open, the page saying why, if that failed).
#[component]
fn PreviewCard(card: AgentPreview, open: RwSignal<bool>, changes: Changes) -> impl IntoView {
    let url = StoredValue::new(card.card_url.clone());
    let connecting = RwSignal::new(false);
    let connect = move |_| {
        connecting.set(true);
        let card_url = url.get_value();
        leptos::task::spawn_local(async move {
            if changes.settle(register_agent(card_url).await) {
                open.try_set(false);
            }
            connecting.try_set(false);
        });
    };
    let ComplianceReport {
        version,
        score,
        issues,
    } = card.report;
    view! {
        <article class="preview" aria-label="Agent Card preview">
            <h2>{card.name}</h2>
            <p class="muted">{card.description}</p>
            <p class="agent-meta">
                {format!("v{} · A2A {} · compliance {score}/100 · found at {}", card.card_version, version.as_str(), card.resolved_url)}
            </p>
            {(!issues.is_empty()).then(|| view! {
                <ul class="issues" aria-label="Compliance issues">
                    {issues
                        .into_iter()
                        .map(|issue| {
                            let severity = severity_label(issue.severity);
                            view! {
                                <li class=format!("issue {severity}")>
                                    <strong>{severity}</strong> " " <code>{issue.path}</code> " " {issue.message}
                                </li>
                            }
                        })
                        .collect_view()}
                </ul>
            })}
            <button type="button" class="button primary" disabled=move || connecting.get() on:click=connect>
                {move || if connecting.get() { "Connecting…" } else { "Connect" }}
            </button>
        </article>
    }
}

fn severity_label(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "info",
    }
}
