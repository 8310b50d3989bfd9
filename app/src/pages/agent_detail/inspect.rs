//! The agent page's inspector parts (issue #32): each interface with whether it answers now,
//! and the card's JSON as served, with a copy button.

use leptos::prelude::*;

use crate::a2a::AgentInterface;
use crate::api::agents::{InterfaceProbe, probe_agent_interfaces};
use crate::components::copy_id::CopyButton;

/// The card's interfaces, each with its reachability (probed when the page opens in the
/// browser, and again on "Check again"). The probes come back in card order, one per interface.
#[component]
pub fn InterfacesPanel(agent_id: String, interfaces: Vec<AgentInterface>) -> impl IntoView {
    let again = RwSignal::new(0_u32);
    let probes = RwSignal::new(None::<Vec<InterfaceProbe>>);
    let failed = RwSignal::new(None::<String>);
    let checking = RwSignal::new(true);
    // Browser only (effects do not run on the server); an error ends the check too.
    Effect::new(move |_| {
        again.track();
        checking.set(true);
        let agent_id = agent_id.clone();
        leptos::task::spawn_local(async move {
            match probe_agent_interfaces(agent_id).await {
                Ok(found) => {
                    probes.try_set(Some(found));
                    failed.try_set(None);
                }
                Err(error) => {
                    failed.try_set(Some(error.to_string()));
                }
            }
            checking.try_set(false);
        });
    });
    view! {
        <section class="panel" aria-label="Interfaces">
            <h2>"Interfaces"</h2>
            <ul class="plain-list interface-list">
                {interfaces
                    .into_iter()
                    .enumerate()
                    .map(|(index, i)| {
                        let probe = move || probes.with(|p| p.as_ref().and_then(|p| p.get(index).cloned()));
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
            {move || failed.get().map(|e| view! { <p role="alert" class="error">{format!("Could not check: {e}")}</p> })}
            <button
                type="button"
                class="button subtle"
                disabled=move || checking.get()
                on:click=move |_| again.update(|n| *n += 1)
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
