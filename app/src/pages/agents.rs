//! The Agents screen (`/agents`): registered agents with live reachability, searchable.

use leptos::prelude::*;
use leptos_meta::Title;

use crate::a2a::{ComplianceReport, Severity};
use crate::api::agents::{AgentPreview, AgentSummary, PreviewAgent, RegisterAgent, RemoveAgent, list_agents};
use crate::api::{Load, resource};

/// The agent list; the page owns the resource, the actions that change it and the search text.
#[component]
pub fn AgentsPage() -> impl IntoView {
    let register = ServerAction::<RegisterAgent>::new();
    let remove = ServerAction::<RemoveAgent>::new();
    // Refetch after every registration or removal.
    let agents = resource(
        Load::Streamed,
        move || (register.version().get(), remove.version().get()),
        |_| list_agents(),
    );
    let (query, set_query) = signal(String::new());
    let action_error = move || {
        let failed = |value: Option<Result<_, crate::error::AppError>>| value.and_then(Result::err);
        failed(register.value().get().map(|r| r.map(|_| ()))).or_else(|| failed(remove.value().get()))
    };
    view! {
        <Title text="Agents"/>
        <header class="page-header">
            <h1>"Agents"</h1>
            <p class="lede">"Registered A2A agents, checked live: each card is fetched again when this list loads."</p>
        </header>
        <div class="toolbar">
            <AddAgent register/>
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
        {move || action_error().map(|error| view! { <p role="alert" class="error">{error.to_string()}</p> })}
        <Transition fallback=|| view! { <p class="muted" aria-busy="true">"Discovering agents…"</p> }>
            <ErrorBoundary fallback=crate::components::error_alert::error_alert>
                {move || Suspend::new(async move {
                    agents.await.map(|list| view! { <AgentList agents=list query=query remove/> })
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
    remove: ServerAction<RemoveAgent>,
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
            <For each=visible key=|agent| agent.id.clone() children=move |agent| view! { <AgentRow agent remove/> }/>
        </ul>
        <Show when=move || visible().is_empty()>
            <p class="muted">"No agent matches this search."</p>
        </Show>
    }
    .into_any()
}

/// One agent: name, card version, A2A version and auth (or the discovery error), card URL, status.
#[component]
fn AgentRow(agent: AgentSummary, remove: ServerAction<RemoveAgent>) -> impl IntoView {
    let id = StoredValue::new(agent.id.clone());
    let removable = agent.removable;
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
                <p class="agent-name">
                    <a href=format!("/agents/{}", agent.id)>
                        {agent.name.clone().unwrap_or_else(|| "Unreachable agent".into())}
                    </a>
                </p>
                <p class="agent-meta" class:error=!reachable>{meta}</p>
                <p class="agent-url">{agent.card_url.clone()}</p>
            </div>
            <span class="status-label">{if reachable { "Reachable" } else { "Discovery failed" }}</span>
            <Show when=move || removable>
                <RemoveControl id remove/>
            </Show>
        </li>
    }
    .into_any()
}

/// "Remove", then an inline confirmation (history is kept); type-erased to keep row types small.
#[component]
fn RemoveControl(id: StoredValue<String>, remove: ServerAction<RemoveAgent>) -> impl IntoView {
    let (confirming, set_confirming) = signal(false);
    view! {
        <Show
            when=move || confirming.get()
            fallback=move || view! {
                <button type="button" class="button subtle" on:click=move |_| set_confirming.set(true)>"Remove"</button>
            }
        >
            <span class="confirm" role="group" aria-label="Confirm removal">
                "Remove this agent? Its history is kept."
                <button
                    type="button"
                    class="button danger"
                    on:click=move |_| {
                        remove.dispatch(RemoveAgent { agent_id: id.get_value() });
                    }
                >
                    "Remove agent"
                </button>
                <button type="button" class="button subtle" on:click=move |_| set_confirming.set(false)>"Cancel"</button>
            </span>
        </Show>
    }
    .into_any()
}

/// The "Add agent" flow: card URL → preview with the compliance report → connect.
#[component]
fn AddAgent(register: ServerAction<RegisterAgent>) -> impl IntoView {
    let (open, set_open) = signal(false);
    let preview = ServerAction::<PreviewAgent>::new();
    let card_url = RwSignal::new(String::new());
    let close = Callback::new(move |()| set_open.set(false));
    view! {
        <button
            type="button"
            class="button primary"
            aria-expanded=move || open.get().to_string()
            on:click=move |_| set_open.update(|open| *open = !*open)
        >
            "Add agent"
        </button>
        <Show when=move || open.get()>
            <section class="panel" aria-label="Add agent">
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
                        autofocus
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
                        Ok(card) => view! { <PreviewCard card register close/> }.into_any(),
                        Err(error) => view! { <p role="alert" class="error">{error.to_string()}</p> }.into_any(),
                    })
                }}
            </section>
        </Show>
    }
}

/// The fetched card, its compliance report and the Connect button.
#[component]
fn PreviewCard(
    card: AgentPreview,
    register: ServerAction<RegisterAgent>,
    close: Callback<()>,
) -> impl IntoView {
    let url = card.card_url.clone();
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
            <button
                type="button"
                class="button primary"
                on:click=move |_| {
                    register.dispatch(RegisterAgent { card_url: url.clone() });
                    close.run(());
                }
            >
                "Connect"
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
