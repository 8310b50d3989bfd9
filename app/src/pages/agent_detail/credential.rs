//! "Credentials" on the agent page (issue #30): whether the agent needs one and, for admins,
//! what is stored (kind, origins, key id, revision, last rotated; never the value), a form to
//! set or replace it and a Revoke button. Secret fields are write-only: after a save they are
//! cleared, and nothing the server answers holds them.

use leptos::prelude::*;

use crate::api::credentials::{
    AgentCredential, CredentialForm, CredentialKind, CredentialState, RevokeAgentCredential,
    StoreAgentCredential, get_agent_credential,
};

/// The panel; `state` as the agent page computed it.
#[component]
pub fn CredentialPanel(agent_id: String, state: CredentialState) -> impl IntoView {
    let admin = crate::api::identity::known_admin();
    let store = ServerAction::<StoreAgentCredential>::new();
    let revoke = ServerAction::<RevokeAgentCredential>::new();
    let id = agent_id.clone();
    let current = Resource::new(
        move || (admin.get(), store.version().get(), revoke.version().get()),
        move |(admin, _, _)| {
            let id = id.clone();
            async move {
                if admin {
                    get_agent_credential(id).await.map(Some)
                } else {
                    Ok(None)
                }
            }
        },
    );
    let shown_state = move || {
        current
            .get()
            .and_then(|c| c.ok().flatten())
            .map_or(state, |c| c.state)
    };
    view! {
        <section class="panel credential-panel" aria-label="Credentials">
            <h2>"Credentials"</h2>
            <p class="credential-state" data-state=move || format!("{:?}", shown_state())>
                {move || match shown_state().blocked_reason() {
                    Some(reason) => view! { <span class="badge warning">{shown_state().badge()}</span>" "{reason}" " }.into_any(),
                    None => view! { <span>{shown_state().badge().unwrap_or("No credential needed: the card asks for none.")}</span> }.into_any(),
                }}
            </p>
            <Transition fallback=|| ()>
                {move || current.get().map(|loaded| match loaded {
                    Ok(Some(credential)) => view! {
                        <Stored credential=credential.clone() revoke agent_id=agent_id.clone()/>
                        <SetForm credential store agent_id=agent_id.clone()/>
                    }.into_any(),
                    Ok(None) => view! {
                        <p class="muted">"Only admins see and change an agent's credential."</p>
                    }.into_any(),
                    Err(error) => view! { <p role="alert" class="error">{error.to_string()}</p> }.into_any(),
                })}
            </Transition>
        </section>
    }
}

/// What is stored, and Revoke.
#[component]
fn Stored(
    credential: AgentCredential,
    revoke: ServerAction<RevokeAgentCredential>,
    agent_id: String,
) -> impl IntoView {
    let schemes = credential.schemes.join(", ");
    let Some(stored) = credential.stored else {
        return view! {
            <p class="muted">
                {if schemes.is_empty() { "Nothing stored.".to_owned() } else { format!("Nothing stored. The card asks for: {schemes}.") }}
            </p>
        }
        .into_any();
    };
    let revoked = !stored.enabled;
    view! {
        <dl class="facts credential-facts">
            <dt>"Kind"</dt><dd>{stored.kind.label()}</dd>
            <dt>"Sent to"</dt><dd>{if stored.origins.is_empty() { "—".to_owned() } else { stored.origins.join(", ") }}</dd>
            <dt>"Vault key"</dt><dd><code>{stored.key_id}</code></dd>
            <dt>"Revision"</dt><dd>{stored.revision}</dd>
            <dt>"Last changed"</dt><dd><time datetime=stored.updated_at.clone()>{stored.updated_at.clone()}</time></dd>
            <dt>"Card asks for"</dt><dd>{if schemes.is_empty() { "nothing".to_owned() } else { schemes }}</dd>
        </dl>
        {(!revoked).then(|| view! {
            <button type="button" class="button danger"
                disabled=move || revoke.pending().get()
                on:click=move |_| { revoke.dispatch(RevokeAgentCredential { agent_id: agent_id.clone() }); }>
                {move || if revoke.pending().get() { "Revoking…" } else { "Revoke credential" }}
            </button>
        })}
        {move || revoke.value().get().and_then(|r| r.err()).map(|e| view! { <p role="alert" class="error">{e.to_string()}</p> })}
    }
    .into_any()
}

/// Set or replace: the kind's fields, the origins the card needs prefilled.
#[component]
fn SetForm(
    credential: AgentCredential,
    store: ServerAction<StoreAgentCredential>,
    agent_id: String,
) -> impl IntoView {
    let kind = RwSignal::new(
        credential
            .stored
            .as_ref()
            .map_or(CredentialKind::Bearer, |s| s.kind)
            .as_str()
            .to_owned(),
    );
    let origins = RwSignal::new(credential.needed_origins.join("\n"));
    let fields: [RwSignal<String>; 9] = std::array::from_fn(|_| RwSignal::new(String::new()));
    let [
        header_name,
        secret,
        issuer,
        token_endpoint,
        client_id,
        scope,
        cert,
        key,
        ca,
    ] = fields;
    let is = move |k: CredentialKind| kind.get() == k.as_str();
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        store.dispatch(StoreAgentCredential {
            form: CredentialForm {
                agent_id: agent_id.clone(),
                kind: kind.get_untracked(),
                origins: origins.get_untracked(),
                header_name: header_name.get_untracked(),
                secret: secret.get_untracked(),
                issuer: issuer.get_untracked(),
                token_endpoint: token_endpoint.get_untracked(),
                client_id: client_id.get_untracked(),
                scope: scope.get_untracked(),
                cert: cert.get_untracked(),
                key: key.get_untracked(),
                ca: ca.get_untracked(),
            },
        });
    };
    // Write-only: once stored, the secret fields are emptied.
    Effect::new(move || {
        if matches!(store.value().get(), Some(Ok(_))) {
            secret.set(String::new());
            key.set(String::new());
        }
    });
    let vault = credential.vault_configured;
    let text = move |label: &'static str, signal: RwSignal<String>, placeholder: &'static str| {
        view! {
            <label>{label}
                <input type="text" spellcheck="false" placeholder=placeholder
                    prop:value=move || signal.get() on:input=move |ev| signal.set(event_target_value(&ev))/>
            </label>
        }
    };
    let pem = move |label: &'static str, signal: RwSignal<String>| {
        view! {
            <label class="wide">{label}
                <textarea rows="4" spellcheck="false" autocomplete="off" placeholder="-----BEGIN …-----"
                    prop:value=move || signal.get() on:input=move |ev| signal.set(event_target_value(&ev))></textarea>
            </label>
        }
    };
    view! {
        <form class="access-form credential-form" on:submit=submit aria-label="Set credential">
            <h3>{if credential.stored.is_some() { "Replace the credential" } else { "Set a credential" }}</h3>
            {(!vault).then(|| view! {
                <p role="alert" class="error wide">"This deployment has no vault keys (A2A_VAULT_KEYS), so nothing can be stored."</p>
            })}
            <label>"Kind"
                <select prop:value=move || kind.get() on:change=move |ev| kind.set(event_target_value(&ev))>
                    {CredentialKind::ALL.into_iter().map(|k| view! { <option value=k.as_str()>{k.label()}</option> }).collect_view()}
                </select>
            </label>
            <label class="wide">"Origins it may be sent to (one per line)"
                <textarea rows="2" spellcheck="false" prop:value=move || origins.get()
                    on:input=move |ev| origins.set(event_target_value(&ev))></textarea>
            </label>
            <Show when=move || is(CredentialKind::ApiKey)>{text("Header name", header_name, "X-API-Key")}</Show>
            <Show when=move || is(CredentialKind::OauthClient)>
                {text("Issuer", issuer, "https://id.example.com")}
                {text("Token endpoint", token_endpoint, "https://id.example.com/oauth/token")}
                {text("Client id", client_id, "")}
                {text("Scope (optional)", scope, "")}
            </Show>
            <Show when=move || !is(CredentialKind::Mtls)>
                <label>{move || match kind.get().as_str() {
                        "apiKey" => "Key value",
                        "oauthClient" => "Client secret",
                        _ => "Token",
                    }}
                    <input type="password" autocomplete="new-password" spellcheck="false" required
                        prop:value=move || secret.get() on:input=move |ev| secret.set(event_target_value(&ev))/>
                </label>
            </Show>
            <Show when=move || is(CredentialKind::Mtls)>
                {pem("Client certificate (PEM)", cert)}
                {pem("Private key (PEM)", key)}
                {pem("CA certificates for the agent's server (PEM, optional)", ca)}
            </Show>
            <button type="submit" class="button" disabled=move || store.pending().get() || !vault>
                {move || if store.pending().get() { "Saving…" } else { "Save credential" }}
            </button>
            {move || store.value().get().map(|result| match result {
                Ok(_) => view! { <p role="status" class="success wide">"Saved. The next call to the agent uses it; the value is not shown again."</p> }.into_any(),
                Err(error) => view! { <p role="alert" class="error wide">{error.to_string()}</p> }.into_any(),
            })}
        </form>
    }
}
