//! Members: each with their role (a select that changes it), their identities and whether they
//! may sign in, a Disable / Enable button, and the form that provisions a new one (as the CLI's
//! `auth provision`).

use leptos::prelude::*;

use super::Changes;
use crate::api::access::{AccessChange, AccessOverview, MemberRow};
use crate::words::Role;

const ROLES: [Role; 3] = Role::ALL;

#[component]
pub(super) fn Members(overview: StoredValue<AccessOverview>, changes: Changes) -> impl IntoView {
    let rows = overview.with_value(|o| o.members.clone());
    view! {
        <section class="panel settings-card" aria-labelledby="access-members-title">
            <h2 id="access-members-title">"Members"</h2>
            <table class="access-table" data-testid="access-members">
                <thead>
                    <tr><th scope="col">"Name"</th><th scope="col">"Signs in as"</th><th scope="col">"Role"</th><th scope="col">"Status"</th></tr>
                </thead>
                <tbody>
                    {rows.into_iter().map(|row| view! { <MemberLine row changes/> }).collect_view()}
                </tbody>
            </table>
            <Provision changes/>
        </section>
    }
}

#[component]
fn MemberLine(row: MemberRow, changes: Changes) -> impl IntoView {
    let busy = changes.busy();
    let id = StoredValue::new(row.membership_id.clone());
    let role_label = format!("Role of {}", row.display_name);
    let set_role = move |ev: leptos::ev::Event| {
        if let Some(role) = Role::parse(&event_target_value(&ev)) {
            changes.send(AccessChange::SetRole {
                membership_id: id.get_value(),
                role,
            });
        }
    };
    let enabled = row.enabled;
    let account_enabled = row.account_enabled;
    let toggle = move |_| {
        let membership_id = id.get_value();
        changes.send(if enabled {
            AccessChange::DisableMember { membership_id }
        } else {
            AccessChange::EnableMember { membership_id }
        });
    };
    let current = row.role;
    view! {
        <tr data-member=row.display_name.clone()>
            <td>{row.display_name.clone()}</td>
            <td class="muted access-identities">{row.identities.join(", ")}</td>
            <td>
                <select aria-label=role_label on:change=set_role disabled=move || busy.get()>
                    {ROLES.into_iter().map(|role| view! {
                        <option value=role.as_str() selected=role == current>{role.label()}</option>
                    }).collect_view()}
                </select>
            </td>
            <td>
                {if !account_enabled {
                    view! { <span class="muted">"Account disabled"</span> }.into_any()
                } else {
                    view! {
                        <span class="muted">{if enabled { "Active" } else { "Disabled" }}</span>" "
                        <button type="button" class="button subtle" on:click=toggle disabled=move || busy.get()>
                            {if enabled { "Disable" } else { "Enable" }}
                        </button>
                    }.into_any()
                }}
            </td>
        </tr>
    }
}

/// "Add a member": the identity provider's issuer and the person's subject there, their name and
/// role. Provisioning someone already there updates their role and enables them.
#[component]
fn Provision(changes: Changes) -> impl IntoView {
    let busy = changes.busy();
    let (issuer, set_issuer) = signal(String::new());
    let (subject, set_subject) = signal(String::new());
    let (name, set_name) = signal(String::new());
    let (role, set_role) = signal(Role::Operator);
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        changes.send(AccessChange::ProvisionMember {
            issuer: issuer.get_untracked(),
            subject: subject.get_untracked(),
            name: name.get_untracked(),
            role: role.get_untracked(),
        });
    };
    view! {
        <form class="access-form" on:submit=submit aria-label="Add a member">
            <h3>"Add a member"</h3>
            <label>"Issuer"
                <input type="url" required placeholder="https://login.example.com" prop:value=issuer
                    on:input=move |ev| set_issuer.set(event_target_value(&ev))/>
            </label>
            <label>"Subject"
                <input type="text" required placeholder="The person's sub claim" prop:value=subject
                    on:input=move |ev| set_subject.set(event_target_value(&ev))/>
            </label>
            <label>"Name"
                <input type="text" required prop:value=name on:input=move |ev| set_name.set(event_target_value(&ev))/>
            </label>
            <label>"Role"
                <select on:change=move |ev| {
                    if let Some(role) = Role::parse(&event_target_value(&ev)) {
                        set_role.set(role);
                    }
                }>
                    {ROLES.into_iter().map(|r| view! {
                        <option value=r.as_str() selected=r == Role::Operator>{r.label()}</option>
                    }).collect_view()}
                </select>
            </label>
            <button type="submit" class="button primary" disabled=move || busy.get()>"Add member"</button>
        </form>
    }
}
