//! The chat's extension controls: the skill picker for a new task (skill routing,
//! `shared/spec/reference.md` §1.3) and the "Extensions" summary of what each send to this agent
//! carries and why (seed "Negotiation rules"), both from the agent's stored card. They are
//! parts of the composer; the browser reads the extensions (the Settings URIs count), so the
//! server renders the summary as not known yet.

use leptos::prelude::*;

use super::state::ChatState;

/// "Skill: Any / <skill>", shown when the agent advertises skill routing and the send starts a
/// new task. A chosen skill binds the new task for its whole life.
#[component]
pub fn SkillPicker(state: ChatState, #[prop(into)] new_task: Signal<bool>) -> impl IntoView {
    let offered = move || {
        new_task.get()
            && state
                .extensions
                .with(|e| e.as_ref().is_some_and(|e| !e.skills.is_empty()))
    };
    let skills = move || {
        state
            .extensions
            .with(|e| e.as_ref().map(|e| e.skills.clone()).unwrap_or_default())
    };
    view! {
        <Show when=offered>
            <div class="skill-picker">
                <label for="skill-picker">"Skill"</label>
                <select
                    id="skill-picker"
                    data-testid="skill-picker"
                    aria-describedby="skill-picker-help"
                    prop:value=move || state.skill.get().unwrap_or_default()
                    on:change=move |ev| {
                        let value = event_target_value(&ev);
                        state.skill.set((!value.is_empty()).then_some(value));
                    }
                >
                    <option value="">"Any skill (not restricted)"</option>
                    {move || skills()
                        .into_iter()
                        .map(|s| {
                            let label = if s.name.is_empty() { s.id.clone() } else { s.name.clone() };
                            view! { <option value=s.id.clone()>{label}</option> }
                        })
                        .collect_view()}
                </select>
                <p class="muted" id="skill-picker-help">"A new task restricted to one skill stays in it; the agent gets the skill in the request."</p>
            </div>
        </Show>
    }
    .into_any()
}

/// A collapsible list of the extensions active for this agent, each with its reason.
#[component]
pub fn ExtensionsSummary(state: ChatState) -> impl IntoView {
    let active = move || {
        state
            .extensions
            .with(|e| e.as_ref().map(|e| e.active.clone()).unwrap_or_default())
    };
    let known = move || {
        state
            .extensions
            .with(|e| e.as_ref().is_some_and(|e| e.card_known))
    };
    view! {
        <details class="extensions-summary" data-testid="extensions-summary">
            <summary>{move || format!("Extensions ({})", active().len())}</summary>
            {move || {
                if !known() {
                    return view! { <p class="muted">"The agent's card has not been fetched yet: no extension is honoured."</p> }.into_any();
                }
                let list = active();
                if list.is_empty() {
                    return view! { <p class="muted">"None: the agent advertises nothing this console understands, and Settings lists no URI."</p> }.into_any();
                }
                view! {
                    <ul class="extension-list">
                        {list.into_iter().map(|e| { let uri = e.uri.clone(); view! {
                            <li data-testid="active-extension" data-uri=uri>
                                <strong>{e.name}</strong>
                                <span class="muted">{format!(" — {}", e.reason)}</span>
                                <code class="extension-uri">{e.uri}</code>
                            </li>
                        }}).collect_view()}
                    </ul>
                }.into_any()
            }}
        </details>
    }
    .into_any()
}
