//! The agent page's inspector parts (issue #32): each interface with whether it answers now,
//! and the card's JSON as served, with a copy button.

use leptos::prelude::*;

use crate::a2a::AgentInterface;
use crate::api::agents::{InterfaceProbe, probe_agent_interfaces};
use crate::components::copy_id::CopyButton;

/// The card's interfaces, each with its reachability (probed when the page opens in the
/// browser, and again on "Check again").
#[component]
pub fn InterfacesPanel(agent_id: String, interfaces: Vec<AgentInterface>) -> impl IntoView {
    let again = RwSignal::new(0_u32);
    let probes = crate::api::browser_value(move || {
        again.track();
        probe_agent_interfaces(agent_id.clone())
    });
    let checking = RwSignal::new(true);
    Effect::new(move |_| {
        if probes.with(Option::is_some) {
            checking.set(false);
        }
    });
    view! {
        <section class="panel" aria-label="Interfaces">
            <h2>"Interfaces"</h2>
            <ul class="plain-list interface-list">
                {interfaces
                    .into_iter()
                    .map(|i| {
                        let url = i.url.clone();
                        let probe = move || {
                            probes.with(|p| p.as_ref().and_then(|p| p.iter().find(|x| x.url == url).cloned()))
                        };
                        view! {
                            <li data-testid="interface">
                                <span class="chip">{i.binding.as_str().to_owned()}</span>
                                <span class="chip">{format!("A2A {}", i.protocol_version)}</span>
                                <code>{i.url.clone()}</code>
                                {i.tenant.map(|t| format!(" · tenant {t}"))}
                                <Reachability probe=Signal::derive(probe) checking/>
                            </li>
                        }
                    })
                    .collect_view()}
            </ul>
            <button
                type="button"
                class="button subtle"
                disabled=move || checking.get()
                on:click=move |_| {
                    checking.set(true);
                    again.update(|n| *n += 1);
                }
            >
                {move || if checking.get() { "Checking…" } else { "Check again" }}
            </button>
        </section>
    }
}

/// One interface's probe outcome.
#[component]
fn Reachability(probe: Signal<Option<InterfaceProbe>>, checking: RwSignal<bool>) -> impl IntoView {
    move || match probe.get() {
        Some(probe) => {
            let tone = if probe.reachable { "ok" } else { "warning" };
            view! {
                <p class="reachability" data-testid="reachability" data-reachable=probe.reachable.to_string()>
                    <span class=format!("status-dot {tone}") aria-hidden="true"></span>
                    {if probe.reachable { "Reachable · " } else { "Not reachable · " }}
                    {probe.outcome}
                </p>
            }
            .into_any()
        }
        None if checking.get() => {
            view! { <p class="reachability muted" aria-busy="true">"Checking…"</p> }.into_any()
        }
        None => ().into_any(),
    }
}

/// The card exactly as the console got it, formatted, with a copy button.
#[component]
pub fn CardJson(raw: serde_json::Value) -> impl IntoView {
    let text = serde_json::to_string_pretty(&raw).unwrap_or_default();
    view! {
        <details class="panel card-json" data-testid="card-json">
            <summary>"Card JSON"</summary>
            <p><CopyButton text=text.clone() what="card JSON"/></p>
            <pre class="mono"><code>{text}</code></pre>
        </details>
    }
}
