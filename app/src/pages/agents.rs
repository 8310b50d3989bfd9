//! The Agents screen (`/agents`): registered agents with live reachability, searchable, the
//! Add agent panel (card preview, compliance report, Connect) and each row's Remove confirmation.

use leptos::prelude::*;
use leptos_meta::Title;

use crate::a2a::{ComplianceReport, Severity};
use crate::api::agents::{AgentPreview, AgentSummary, PreviewAgent, RegisterAgent, RemoveAgent, list_agents};
use crate::components::keys::on_escape;
use crate::error::AppError;

/// The page's two writes. Each finished request fetches the list again, whether it succeeded or
/// not: a request that failed because another client changed the list first (an agent removed
/// twice) still leaves the page showing what is stored.
#[derive(Clone, Copy)]
struct Changes {
    register: ServerAction<RegisterAgent>,
    remove: ServerAction<RemoveAgent>,
}

impl Changes {
    fn new() -> Self {
        Changes {
            register: ServerAction::new(),
            remove: ServerAction::new(),
        }
    }

    /// Changes with every finished request.
    fn version(self) -> (usize, usize) {
        (self.register.version().get(), self.remove.version().get())
    }

    /// The error of the newest finished request, `None` once one succeeds: the page shows why
    /// the last change failed until the next one works.
    fn last_error(self) -> Signal<Option<String>> {
        let newest = Memo::new(move |previous: Option<&((usize, usize), Option<Write>)>| {
            let now = self.version();
            let last = match previous {
                Some((before, _)) if now.0 != before.0 => Some(Write::Register),
                Some((before, _)) if now.1 != before.1 => Some(Write::Remove),
                Some((_, last)) => *last,
                None => None,
            };
            (now, last)
        });
        Signal::derive(move || match newest.with(|(_, last)| *last)? {
            Write::Register => self.register.value().with(error_of),
            Write::Remove => self.remove.value().with(error_of),
        })
    }
}

/// Which of the page's writes finished last.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Write {
    Register,
    Remove,
}

/// A finished request's error, as the page shows it.
fn error_of<T>(result: &Option<Result<T, AppError>>) -> Option<String> {
    result
        .as_ref()
        .and_then(|r| r.as_ref().err())
        .map(ToString::to_string)
}

/// The agent list; the page owns the resource, the writes and the search text.
#[component]
pub fn AgentsPage() -> impl IntoView {
    let changes = Changes::new();
    // Fetched again after every registration or removal.
    let agents = Resource::new(move || changes.version(), |_| list_agents());
    let error = changes.last_error();
    let admin = crate::api::identity::maybe_admin();
    let (query, set_query) = signal(String::new());
    view! {
        <Title text="Agents"/>
        <header class="page-header">
            <h1>"Agents"</h1>
            <p class="lede">"Registered A2A agents, checked live: each card is fetched again when this list loads."</p>
        </header>
        <div class="toolbar">
            <Show
                when=move || admin.get()
                fallback=|| view! { <p class="muted small">{crate::api::identity::ADMINS_ONLY}</p> }
            >
                <AddAgent changes/>
            </Show>
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
        {move || error.get().map(|error| view! { <p role="alert" class="error">{error}</p> })}
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
        <ul class="agent-list" aria-label="Registered agents" data-keynav>
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
    // An agent that needs a credential it does not have is reachable but not usable.
    let blocked = agent.credential.blocked_reason();
    let status = match (reachable, agent.credential.badge()) {
        (false, _) => "Discovery failed",
        (true, Some(badge)) if blocked.is_some() => badge,
        _ => "Reachable",
    };
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
    let admin = crate::api::identity::maybe_admin();
    let remove = agent.removable.then(|| {
        let id = StoredValue::new(agent.id.clone());
        view! {
            <Show when=move || admin.get()>
                <RemoveControl id changes/>
            </Show>
        }
    });
    view! {
        <li class="agent-row" data-reachable=reachable.to_string() data-credential=format!("{:?}", agent.credential)>
            <span class="status-dot" class:ok=reachable && blocked.is_none() class:warning=blocked.is_some() aria-hidden="true"></span>
            <div class="agent-main">
                <p class="agent-name">
                    <a href=format!("/agents/{}", agent.id)>
                        {agent.name.clone().unwrap_or_else(|| "Unreachable agent".into())}
                    </a>
                </p>
                <p class="agent-meta" class:error=!reachable>{meta}</p>
                <p class="agent-url">{agent.card_url.clone()}</p>
            </div>
            <span class="status-label" title=blocked>{status}</span>
            {remove}
        </li>
    }
    .into_any()
}

/// "Remove", then an inline confirmation (history is kept).
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

/// The confirmation. On success the row leaves the list with the refetch; on failure the page
/// says why.
fn remove_agent_confirm(id: StoredValue<String>, confirming: RwSignal<bool>, changes: Changes) -> AnyView {
    // This row's removal is in flight (the action is the page's, shared by every row).
    let busy = move || {
        changes.remove.input().with(|input| {
            input
                .as_ref()
                .is_some_and(|i| id.with_value(|id| *id == i.agent_id))
        })
    };
    let remove = move |_| {
        changes.remove.dispatch(RemoveAgent {
            agent_id: id.get_value(),
        });
    };
    view! {
        <span class="confirm" role="group" aria-label="Confirm removal" on:keydown=on_escape(move || confirming.set(false))>
            "Remove this agent? Its history is kept."
            <button type="button" class="button danger" disabled=busy on:click=remove>
                {move || if busy() { "Removing…" } else { "Remove agent" }}
            </button>
            <button type="button" class="button subtle" on:click=move |_| confirming.set(false)>"Cancel"</button>
        </span>
    }
    .into_any()
}

/// The "Add agent" button and its panel, which closes once an agent is registered.
#[component]
fn AddAgent(changes: Changes) -> impl IntoView {
    let open = RwSignal::new(false);
    // Connect closes the panel only once the agent is registered; a failure leaves it open.
    Effect::new(move |_| {
        if changes.register.value().with(|v| matches!(v, Some(Ok(_)))) {
            open.set(false);
        }
    });
    let opener = NodeRef::<leptos::html::Button>::new();
    // Escape closes the panel and gives the keyboard back to its button.
    let close = move || {
        open.set(false);
        if let Some(button) = opener.get_untracked() {
            let _ = button.focus();
        }
    };
    view! {
        <button
            type="button"
            class="button primary"
            node_ref=opener
            aria-expanded=move || open.get().to_string()
            on:click=move |_| open.update(|open| *open = !*open)
        >
            "Add agent"
        </button>
        <Show when=move || open.get()>
            <section class="panel" aria-label="Add agent" on:keydown=on_escape(close)>
                {add_agent_panel(changes)}
            </section>
        </Show>
    }
}

/// The panel's flow: card URL → preview with the compliance report → connect.
fn add_agent_panel(changes: Changes) -> AnyView {
    let preview = ServerAction::<PreviewAgent>::new();
    let input = NodeRef::<leptos::html::Input>::new();
    // The field takes the keyboard as soon as it is shown (`autofocus` only acts on page load).
    Effect::new(move |_| {
        if let Some(input) = input.get() {
            let _ = input.focus();
        }
    });
    view! {
        <ActionForm action=preview attr:class="add-agent-form">
            <label for="card-url">"Agent Card URL"</label>
            <input
                id="card-url"
                name="card_url"
                type="url"
                required
                node_ref=input
                placeholder="https://agent.example/.well-known/agent-card.json"
            />
            <button type="submit" class="button" disabled=move || preview.pending().get()>
                {move || if preview.pending().get() { "Fetching…" } else { "Fetch Agent Card" }}
            </button>
        </ActionForm>
        {move || {
            preview.value().get().map(|result| match result {
                Ok(card) => view! { <PreviewCard card changes/> }.into_any(),
                Err(error) => view! { <p role="alert" class="error">{error.to_string()}</p> }.into_any(),
            })
        }}
    }
    .into_any()
}

/// The fetched card, its compliance report and the Connect button, which closes the panel once
/// the agent is registered (and leaves it open, the page saying why, if that failed).
#[component]
fn PreviewCard(card: AgentPreview, changes: Changes) -> impl IntoView {
    let url = StoredValue::new(card.card_url.clone());
    let connecting = changes.register.pending();
    let connect = move |_| {
        changes.register.dispatch(RegisterAgent {
            card_url: url.get_value(),
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
