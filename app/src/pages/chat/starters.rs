//! Starter prompts: an empty chat offers the agent card's skill `examples` (issue #32).

use leptos::prelude::*;

use super::state::ChatState;

/// Starter prompts from the agent card's skill examples; one puts its text in the composer.
#[component]
pub fn Starters(state: ChatState) -> impl IntoView {
    let starters = move || {
        state
            .agent
            .with(|a| a.as_ref().map(|a| a.starters.clone()).unwrap_or_default())
    };
    move || {
        let starters = starters();
        (!starters.is_empty()).then(|| {
            view! {
                <div class="starters" role="group" aria-label="Starter prompts">
                    {starters
                        .into_iter()
                        .map(|text| {
                            let chosen = text.clone();
                            view! {
                                <button
                                    type="button"
                                    class="button subtle starter"
                                    data-testid="starter-prompt"
                                    on:click=move |_| state.prefill.set(Some(chosen.clone()))
                                >
                                    {text}
                                </button>
                            }
                        })
                        .collect_view()}
                </div>
            }
        })
    }
}
