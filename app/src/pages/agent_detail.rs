//! The agent detail page (`/agents/:id`): capabilities, interfaces (and whether each answers),
//! skills, security and modes of one agent's card, fetched again when the page opens, and the
//! card's JSON as served.

use leptos::prelude::*;
use leptos_meta::Title;

mod connection;
mod credential;
mod inspect;

use crate::a2a::{AgentCard, SecurityScheme};
use crate::api::agents::{AgentDetail, get_agent};
use crate::components::copy_id::CopyId;
use connection::ConnectionSetup;
use credential::CredentialPanel;
use inspect::{CardJson, InterfacesPanel};

/// Reads the agent id from the route and shows its card.
#[component]
pub fn AgentDetailPage() -> impl IntoView {
    let page = crate::pages::route::page_id("/agents/");
    let id = move || page.get();
    // Blocking: the title and the HTTP status (404 for an unknown agent) come from the data.
    let agent = Resource::new_blocking(id, get_agent);
    view! {
        <p><a href="/agents">"← Agents"</a></p>
        <Transition fallback=|| view! { <p class="muted" aria-busy="true">"Fetching the Agent Card…"</p> }>
            <ErrorBoundary fallback=|errors| {
                view! {
                    <Title text="Agent"/>
                    <h1>"Agent"</h1>
                    <p role="alert" class="error">
                        {move || errors.get().into_iter().map(|(_, e)| e.to_string()).collect::<Vec<_>>().join(" ")}
                    </p>
                }
            }>
                {move || Suspend::new(async move { agent.await.map(|detail| view! { <AgentView detail/> }) })}
            </ErrorBoundary>
        </Transition>
    }
}

/// The header and the four cards.
#[component]
fn AgentView(detail: AgentDetail) -> impl IntoView {
    let title = detail
        .card
        .as_ref()
        .map(|c| c.name.clone())
        .unwrap_or_else(|| "Unreachable agent".into());
    view! {
        <Title text=title.clone()/>
        <header class="page-header">
            <h1>{title}</h1>
            <p class="lede">{detail.card.as_ref().map(|c| c.description.clone())}</p>
            <dl class="facts card-urls">
                <dt>"Card URL"</dt><dd><CopyId id=detail.card_url.clone() what="card URL"/></dd>
                {detail.resolved_url.clone().filter(|u| *u != detail.card_url).map(|url| view! {
                    <dt>"Resolved from"</dt><dd><CopyId id=url what="resolved card URL"/></dd>
                })}
            </dl>
        </header>
        {detail.error.clone().map(|error| view! {
            <p role="alert" class="error">{format!("The card could not be fetched just now: {error}")}</p>
        })}
        <p class="page-actions">
            <a class="button" href=format!("/chat/new?agent={}", detail.id)>"Start chat"</a>
        </p>
        {match detail.card {
            Some(card) => {
                let refused: Vec<String> = detail
                    .report
                    .iter()
                    .flat_map(|r| r.refused_interfaces().map(|issue| issue.message.clone()))
                    .collect();
                let report = detail.report.map(|r| format!("compliance {}/100 · A2A {}", r.score, r.version.as_str()));
                let interfaces = card.interfaces.clone();
                view! {
                    <p class="agent-meta">
                        {format!("Agent Card v{}", card.version)} {report.map(|r| format!(" · {r}"))}
                    </p>
                    <p class="card-trust" data-trust=detail.trust.as_str()>
                        <span class="badge" class:ok=detail.trust == crate::words::CardTrust::Verified
                            class:warning=matches!(detail.trust, crate::words::CardTrust::Untrusted | crate::words::CardTrust::Invalid)>
                            {format!("Card {}", detail.trust.as_str())}
                        </span>
                        " "{detail.trust.describe()}
                    </p>
                    {(!refused.is_empty()).then(|| view! {
                        <ul class="issues" role="alert" aria-label="Refused interfaces">
                            {refused.into_iter().map(|message| view! { <li class="error">{message}</li> }).collect_view()}
                        </ul>
                    })}
                    <ConnectionSetup agent_id=detail.id.clone() interfaces pin=detail.pin.clone()/>
                    <CredentialPanel agent_id=detail.id.clone() state=detail.credential/>
                    <CardSections agent_id=detail.id.clone() card/>
                    {detail.raw_card.clone().map(|raw| view! { <CardJson raw/> })}
                }
                .into_any()
            }
            None => view! { <p class="muted">"No card has been fetched for this agent yet."</p> }.into_any(),
        }}
    }
}

/// Capabilities, interfaces (with their reachability), skills and security.
#[component]
fn CardSections(agent_id: String, card: AgentCard) -> impl IntoView {
    let yes_no = |on: bool| if on { "Yes" } else { "No" };
    let caps = card.capabilities;
    view! {
        <div class="card-grid">
            <section class="panel" aria-label="Capabilities">
                <h2>"Capabilities"</h2>
                <dl class="facts">
                    <dt>"Streaming"</dt><dd>{yes_no(caps.streaming)}</dd>
                    <dt>"Push notifications"</dt><dd>{yes_no(caps.push_notifications)}</dd>
                    <dt>"Extended card"</dt><dd>{yes_no(caps.extended_agent_card)}</dd>
                </dl>
                <h3>"Extensions"</h3>
                {if caps.extensions.is_empty() {
                    view! { <p class="muted">"None advertised"</p> }.into_any()
                } else {
                    view! {
                        <ul class="plain-list">
                            {caps.extensions.into_iter().map(|ext| view! {
                                <li><code>{ext.uri}</code>{ext.required.then_some(" (required)")}</li>
                            }).collect_view()}
                        </ul>
                    }.into_any()
                }}
            </section>
            <InterfacesPanel agent_id interfaces=card.interfaces/>
            <section class="panel" aria-label="Skills">
                <h2>"Skills"</h2>
                {if card.skills.is_empty() {
                    view! { <p class="muted">"None advertised"</p> }.into_any()
                } else {
                    view! {
                        <ul class="plain-list">
                            {card.skills.into_iter().map(|skill| view! {
                                <li><strong>{skill.name}</strong><br/><span class="muted">{skill.description}</span></li>
                            }).collect_view()}
                        </ul>
                    }.into_any()
                }}
            </section>
            <section class="panel" aria-label="Security">
                <h2>"Security"</h2>
                {if card.security_schemes.is_empty() {
                    view! { <p class="muted">"None advertised"</p> }.into_any()
                } else {
                    view! {
                        <ul class="plain-list">
                            {card.security_schemes.iter().map(|(name, scheme)| view! {
                                <li><strong>{name.clone()}</strong>" · "{scheme_kind(scheme)}</li>
                            }).collect_view()}
                        </ul>
                    }.into_any()
                }}
                <dl class="facts">
                    <dt>"Input modes"</dt><dd>{card.default_input_modes.join(", ")}</dd>
                    <dt>"Output modes"</dt><dd>{card.default_output_modes.join(", ")}</dd>
                </dl>
            </section>
        </div>
    }
    .into_any()
}

fn scheme_kind(scheme: &SecurityScheme) -> &'static str {
    match scheme {
        SecurityScheme::ApiKey { .. } => "API key",
        SecurityScheme::Http { .. } => "HTTP authentication",
        SecurityScheme::OAuth2 { .. } => "OAuth 2.0",
        SecurityScheme::OpenIdConnect { .. } => "OpenID Connect",
        SecurityScheme::MutualTls { .. } => "Mutual TLS",
        SecurityScheme::Unknown { .. } => "Unrecognised scheme",
    }
}
