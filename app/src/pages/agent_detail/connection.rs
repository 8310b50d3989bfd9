//! "Connection setup": pin an agent to one of its card's interfaces, or let the console use the
//! first one it speaks. The server checks the pin against the latest card before storing it.

use leptos::prelude::*;

use crate::a2a::{AgentInterface, Binding, InterfacePin};
use crate::api::agents::SetInterfacePin;

/// The pin that selects exactly `interface`.
pub fn pin_for(interface: &AgentInterface) -> InterfacePin {
    InterfacePin {
        url: Some(interface.url.clone()),
        binding: Some(interface.binding.clone()),
        version: Some(interface.protocol_version.clone()),
    }
}

/// Which radio is selected for `pin`: `None` = automatic, else the index of the first
/// interface the pin matches exactly.
pub fn selected_index(interfaces: &[AgentInterface], pin: Option<&InterfacePin>) -> Option<usize> {
    let pin = pin?;
    interfaces.iter().position(|i| pin_for(i) == *pin)
}

/// The panel; `interfaces` from the card, `pin` as stored.
#[component]
pub fn ConnectionSetup(
    agent_id: String,
    interfaces: Vec<AgentInterface>,
    pin: Option<InterfacePin>,
) -> impl IntoView {
    let save = ServerAction::<SetInterfacePin>::new();
    let admin = crate::api::identity::maybe_admin();
    let choice = RwSignal::new(selected_index(&interfaces, pin.as_ref()));
    let outcome = move || match save.value().get() {
        Some(Ok(())) => Some(
            view! { <p role="status" class="success">"Saved. New sends use this connection."</p> }.into_any(),
        ),
        Some(Err(error)) => Some(view! { <p role="alert" class="error">{error.to_string()}</p> }.into_any()),
        None => None,
    };
    let options = interfaces.clone();
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let pin = choice.get_untracked().and_then(|i| options.get(i)).map(pin_for);
        save.dispatch(SetInterfacePin {
            agent_id: agent_id.clone(),
            pin,
        });
    };
    view! {
        <details class="panel connection-setup">
            <summary>"Connection setup"</summary>
            <form on:submit=on_submit>
                <fieldset>
                    <legend>"Interface used for sends and streams"</legend>
                    <label class="radio-row">
                        <input type="radio" name="interface" prop:checked=move || choice.get().is_none()
                            on:change=move |_| choice.set(None)/>
                        "Automatic (the first interface the console speaks)"
                    </label>
                    {interfaces.into_iter().enumerate().map(|(index, interface)| {
                        let grpc = interface.binding == Binding::Grpc;
                        view! {
                            <label class="radio-row">
                                <input type="radio" name="interface" disabled=grpc
                                    prop:checked=move || choice.get() == Some(index)
                                    on:change=move |_| choice.set(Some(index))/>
                                <span class="chip">{interface.binding.as_str().to_owned()}</span>
                                <span class="chip">{format!("A2A {}", interface.protocol_version)}</span>
                                <code>{interface.url.clone()}</code>
                                {grpc.then_some(" (not available: gRPC)")}
                            </label>
                        }
                    }).collect_view()}
                </fieldset>
                <button
                    type="submit"
                    class="button"
                    disabled=move || save.pending().get() || !admin.get()
                    title=move || (!admin.get()).then_some(crate::api::identity::ADMINS_ONLY)
                >
                    {move || if save.pending().get() { "Saving…" } else { "Save connection" }}
                </button>
                {outcome}
            </form>
        </details>
    }
    .into_any()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_selected_radio_follows_an_exact_pin() {
        let a = AgentInterface::new("http://a/rpc", Binding::JsonRpc, "1.0", None);
        let b = AgentInterface::new("http://a/rest", Binding::HttpJson, "1.0", None);
        let list = vec![a, b.clone()];
        assert_eq!(selected_index(&list, None), None);
        assert_eq!(selected_index(&list, Some(&pin_for(&b))), Some(1));
        let partial = InterfacePin {
            binding: Some(Binding::HttpJson),
            ..InterfacePin::default()
        };
        assert_eq!(
            selected_index(&list, Some(&partial)),
            None,
            "a partial pin shows as automatic"
        );
    }
}
