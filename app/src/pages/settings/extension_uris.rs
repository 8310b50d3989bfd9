//! The Settings "Extensions" card: the extension URIs activated on every request, each with an
//! enable toggle and Remove, plus the add form with inline validation.

use leptos::ev::SubmitEvent;
use leptos::prelude::*;

use super::edit;
use crate::settings::Preferences;

/// The list of extension URIs and the add form.
#[component]
pub fn ExtensionsCard(preferences: Signal<Preferences>, commit: Callback<Preferences>) -> impl IntoView {
    let uris =
        move || preferences.with(|p| p.extension_uris.iter().map(|e| e.uri.clone()).collect::<Vec<_>>());
    view! {
        <section class="panel settings-card" aria-labelledby="settings-extensions-title">
            <h2 id="settings-extensions-title">"Extensions"</h2>
            <h3 class="settings-subheading">"Extension URIs activated on every request"</h3>
            <Show when=move || preferences.with(|p| p.extension_uris.is_empty())>
                <p class="muted">"No extension URIs yet."</p>
            </Show>
            <ul class="settings-extensions" aria-label="Extension URIs">
                <For
                    each=uris
                    key=|uri| uri.clone()
                    children=move |uri| view! { <ExtensionRow uri preferences commit/> }
                />
            </ul>
            <AddExtension preferences commit/>
            <p class="muted settings-note">
                "Every send from this browser asks the agent for the enabled ones (in its A2A-Extensions header), beside those the console negotiates from the agent's card. They are saved in this browser."
            </p>
        </section>
    }
    .into_any()
}

/// One URI: enable toggle (named by the URI) and Remove.
#[component]
fn ExtensionRow(
    uri: String,
    preferences: Signal<Preferences>,
    commit: Callback<Preferences>,
) -> impl IntoView {
    let key = StoredValue::new(uri.clone());
    let enabled = move || {
        preferences
            .with(|p| key.with_value(|uri| p.extension_uris.iter().any(|e| &e.uri == uri && e.enabled)))
    };
    view! {
        <li class="settings-extension" data-testid="extension-row" data-enabled=move || enabled().to_string()>
            <label class="settings-check settings-extension-uri">
                <input
                    type="checkbox"
                    data-testid="extension-toggle"
                    prop:checked=enabled
                    on:change=move |ev| {
                        let on = event_target_checked(&ev);
                        let uri = key.get_value();
                        edit(preferences, commit, |p| p.set_extension_enabled(&uri, on));
                    }
                />
                <code>{uri.clone()}</code>
            </label>
            <button
                type="button"
                class="button subtle"
                data-testid="extension-remove"
                aria-label=format!("Remove {uri}")
                on:click=move |_| {
                    let uri = key.get_value();
                    edit(preferences, commit, |p| p.remove_extension(&uri));
                }
            >
                "Remove"
            </button>
        </li>
    }
}

/// Label, input and Add; Enter submits. Invalid or duplicate URIs stay in the field with an
/// inline error.
#[component]
fn AddExtension(preferences: Signal<Preferences>, commit: Callback<Preferences>) -> impl IntoView {
    let draft = RwSignal::new(String::new());
    let error = RwSignal::new(None::<String>);
    let on_submit = move |ev: SubmitEvent| {
        ev.prevent_default();
        let mut next = preferences.get_untracked();
        match next.add_extension(&draft.get_untracked()) {
            Ok(_) => {
                error.set(None);
                draft.set(String::new());
                commit.run(next);
            }
            Err(message) => error.set(Some(message)),
        }
    };
    view! {
        <form class="settings-add" on:submit=on_submit novalidate>
            <label for="settings-extension">"Extension URI"</label>
            <div class="settings-add-row">
                <input
                    id="settings-extension"
                    type="text"
                    inputmode="url"
                    autocomplete="off"
                    spellcheck="false"
                    placeholder="https://… or urn:…"
                    data-testid="extension-input"
                    aria-describedby="settings-extension-error"
                    aria-invalid=move || error.with(Option::is_some).to_string()
                    prop:value=move || draft.get()
                    on:input=move |ev| {
                        draft.set(event_target_value(&ev));
                        error.set(None);
                    }
                />
                <button type="submit" class="button" data-testid="extension-add">"Add"</button>
            </div>
            <p id="settings-extension-error" class="error settings-error" role="alert">{move || error.get()}</p>
        </form>
    }
}
