//! The Settings screen (`/settings`): request defaults and extension URIs, kept in this
//! browser's local storage ([`crate::settings`]). Preferences are read after hydration, so
//! the server and the first browser render both show "Loading preferences…".

mod extension_uris;

use leptos::prelude::*;
use leptos_meta::Title;

use crate::settings::{self, DEFAULT_OUTPUT_MODES, Preferences, parse_history_length};
use extension_uris::ExtensionsCard;

/// The settings page: owns the loaded preferences and saves every change at once.
#[component]
pub fn SettingsPage() -> impl IntoView {
    // `None` until the browser has read its storage; an Effect never runs on the server.
    let stored = RwSignal::new(None::<Preferences>);
    Effect::new(move |_| stored.set(Some(settings::load())));
    let loaded = Memo::new(move |_| stored.with(Option::is_some));
    let preferences = Memo::new(move |_| stored.get().unwrap_or_default());
    let status = RwSignal::new(None::<Result<(), String>>);
    let commit = Callback::new(move |next: Preferences| {
        status.set(Some(settings::save(&next)));
        stored.set(Some(next));
    });
    view! {
        <Title text="Settings"/>
        <header class="page-header">
            <h1>"Settings"</h1>
            <p class="lede">"Request defaults, the extension URIs activated on every request, and the keyboard."</p>
        </header>
        <Show
            when=move || loaded.get()
            fallback=|| view! { <p class="muted settings-loading" aria-busy="true">"Loading preferences…"</p> }
        >
            <SaveStatus status/>
            <div class="settings-cards">
                <RequestDefaults preferences=preferences.into() commit/>
                <ExtensionsCard preferences=preferences.into() commit/>
                <KeyboardCard preferences=preferences.into() commit/>
                <AccessCard/>
            </div>
        </Show>
    }
}

/// Keyboard: the single-key shortcuts on or off (WCAG 2.1.4).
#[component]
fn KeyboardCard(preferences: Signal<Preferences>, commit: Callback<Preferences>) -> impl IntoView {
    let on = move || preferences.with(|p| p.single_key_shortcuts);
    view! {
        <section class="panel settings-card" aria-labelledby="settings-keyboard-title">
            <h2 id="settings-keyboard-title">"Keyboard"</h2>
            <label class="settings-check">
                <input
                    type="checkbox"
                    data-testid="single-key-shortcuts"
                    prop:checked=on
                    on:change=move |ev| {
                        let checked = event_target_checked(&ev);
                        edit(preferences, commit, |p| p.single_key_shortcuts = checked);
                    }
                />
                "Single-key shortcuts"
            </label>
            <p class="muted settings-note">
                "? lists them; / searches, j and k move through lists, g then a letter goes to a screen. Turn them off if they get in the way of a screen reader or speech input; Ctrl K (⌘ K) still opens the command palette."
            </p>
        </section>
    }
}

/// For admins: the way to the Access screen (members, teams, grants).
#[component]
fn AccessCard() -> impl IntoView {
    let admin = crate::api::identity::known_admin();
    view! {
        <Show when=move || admin.get()>
            <section class="panel settings-card" aria-labelledby="settings-access-title">
                <h2 id="settings-access-title">"Access"</h2>
                <p class="muted settings-help">"Members, their roles, teams, and grants on agents and skills."</p>
                <a class="button" href="/settings/access">"Manage access"</a>
            </section>
        </Show>
    }
}

/// Applies `change` to a copy of the current preferences and commits it.
fn edit(
    preferences: Signal<Preferences>,
    commit: Callback<Preferences>,
    change: impl FnOnce(&mut Preferences),
) {
    let mut next = preferences.get_untracked();
    change(&mut next);
    commit.run(next);
}

/// "Saved in this browser." after a change, or why it was not saved.
#[component]
fn SaveStatus(status: RwSignal<Option<Result<(), String>>>) -> impl IntoView {
    let failed = move || status.with(|s| matches!(s, Some(Err(_))));
    let text = move || match status.get() {
        None => String::new(),
        Some(Ok(())) => "Saved in this browser.".to_owned(),
        Some(Err(error)) => error,
    };
    view! {
        <p class="settings-status" class:error=failed role="status" data-testid="settings-status">{text}</p>
    }
}

/// The "Request defaults" card: accepted output modes, Return immediately, History length.
#[component]
fn RequestDefaults(preferences: Signal<Preferences>, commit: Callback<Preferences>) -> impl IntoView {
    view! {
        <section class="panel settings-card" aria-labelledby="settings-defaults-title">
            <h2 id="settings-defaults-title">"Request defaults"</h2>
            <p class="muted settings-help">"Sent with every new message unless the chat's Options panel says otherwise."</p>
            <fieldset class="settings-modes">
                <legend>"Accepted output modes"</legend>
                {DEFAULT_OUTPUT_MODES
                    .into_iter()
                    .map(|mode| view! { <OutputModeToggle mode preferences commit/> })
                    .collect_view()}
            </fieldset>
            <label class="settings-check">
                <input
                    type="checkbox"
                    data-testid="return-immediately"
                    prop:checked=move || preferences.with(|p| p.return_immediately)
                    on:change=move |ev| {
                        let on = event_target_checked(&ev);
                        edit(preferences, commit, |p| p.return_immediately = on);
                    }
                />
                "Return immediately"
            </label>
            <HistoryLength preferences commit/>
        </section>
    }
    .into_any()
}

/// One output mode checkbox.
#[component]
fn OutputModeToggle(
    mode: &'static str,
    preferences: Signal<Preferences>,
    commit: Callback<Preferences>,
) -> impl IntoView {
    view! {
        <label class="settings-check">
            <input
                type="checkbox"
                data-testid="output-mode"
                value=mode
                prop:checked=move || preferences.with(|p| p.accepts(mode))
                on:change=move |ev| {
                    let on = event_target_checked(&ev);
                    edit(preferences, commit, |p| p.set_output_mode(mode, on));
                }
            />
            <code>{mode}</code>
        </label>
    }
}

/// The History length field: empty is the agent's default; anything but a whole number ≥ 0
/// shows an inline error and is not saved.
#[component]
fn HistoryLength(preferences: Signal<Preferences>, commit: Callback<Preferences>) -> impl IntoView {
    let initial = preferences.with_untracked(|p| p.history_length.map(|n| n.to_string()).unwrap_or_default());
    let text = RwSignal::new(initial);
    let error = RwSignal::new(None::<String>);
    let on_input = move |ev| {
        let value = event_target_value(&ev);
        text.set(value.clone());
        match parse_history_length(&value) {
            Ok(length) => {
                error.set(None);
                if preferences.with_untracked(|p| p.history_length != length) {
                    edit(preferences, commit, |p| p.history_length = length);
                }
            }
            Err(message) => error.set(Some(message)),
        }
    };
    view! {
        <div class="settings-field">
            <label for="settings-history">"History length"</label>
            <input
                id="settings-history"
                type="number"
                min="0"
                step="1"
                inputmode="numeric"
                placeholder="Agent default"
                data-testid="history-length"
                aria-describedby="settings-history-help settings-history-error"
                aria-invalid=move || error.with(Option::is_some).to_string()
                prop:value=move || text.get()
                on:input=on_input
            />
            <p id="settings-history-help" class="muted settings-help">
                "How many past messages the agent returns with a task; empty leaves it to the agent."
            </p>
            <p id="settings-history-error" class="error settings-error" role="alert">{move || error.get()}</p>
        </div>
    }
}

#[cfg(all(test, feature = "ssr"))]
mod tests {
    use super::*;

    #[test]
    fn the_server_renders_the_loading_placeholder_not_the_form() {
        let owner = Owner::new();
        owner.set();
        leptos_meta::provide_meta_context();
        let html = view! { <SettingsPage/> }.to_html();
        assert!(html.contains("Loading preferences…"), "{html}");
        assert!(!html.contains("data-testid=\"output-mode\""), "{html}");
    }
}
