//! Teams: each with its members (remove one, add one from a select) and a Disable button, and the
//! form that creates a team. Teams exist only to receive grants.

use leptos::prelude::*;

use super::{Changes, member_name};
use crate::api::access::{AccessChange, AccessOverview, TeamRow};

#[component]
pub(super) fn Teams(overview: StoredValue<AccessOverview>, changes: Changes) -> impl IntoView {
    let teams = overview.with_value(|o| o.teams.clone());
    let empty = teams.is_empty();
    view! {
        <section class="panel settings-card" aria-labelledby="access-teams-title">
            <h2 id="access-teams-title">"Teams"</h2>
            <p class="muted settings-help">"A grant to a team reaches every member of it. A disabled team's grants stop."</p>
            {empty.then(|| view! { <p class="muted">"No teams yet."</p> })}
            <ul class="access-teams" data-testid="access-teams">
                {teams.into_iter().map(|team| view! { <TeamLine team overview changes/> }).collect_view()}
            </ul>
            <CreateTeam changes/>
        </section>
    }
}

#[component]
fn TeamLine(team: TeamRow, overview: StoredValue<AccessOverview>, changes: Changes) -> impl IntoView {
    let busy = changes.busy();
    let team_id = StoredValue::new(team.team_id.clone());
    let members = team.member_ids.clone();
    let candidates: Vec<(String, String)> = overview.with_value(|o| {
        o.members
            .iter()
            .filter(|m| !members.contains(&m.membership_id))
            .map(|m| (m.membership_id.clone(), m.display_name.clone()))
            .collect()
    });
    let (chosen, set_chosen) = signal(String::new());
    let add = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let membership_id = chosen.get_untracked();
        if !membership_id.is_empty() {
            changes.send(AccessChange::AddTeamMember {
                team_id: team_id.get_value(),
                membership_id,
            });
        }
    };
    let disable = move |_| {
        changes.send(AccessChange::DisableTeam {
            team_id: team_id.get_value(),
        })
    };
    let add_label = format!("Add a member to {}", team.name);
    let choose_label = format!("Member to add to {}", team.name);
    view! {
        <li class="access-team" data-team=team.name.clone()>
            <strong>{team.name.clone()}</strong>
            {(!team.enabled).then(|| view! { <span class="muted">" (disabled)"</span> })}
            <ul class="access-chips">
                {members.into_iter().map(|id| {
                    let name = overview.with_value(|o| member_name(o, &id));
                    let label = format!("Remove {name} from {}", team.name);
                    let remove = move |_| changes.send(AccessChange::RemoveTeamMember {
                        team_id: team_id.get_value(),
                        membership_id: id.clone(),
                    });
                    view! {
                        <li>{name}" "
                            <button type="button" class="button subtle" aria-label=label on:click=remove
                                disabled=move || busy.get()>"×"</button>
                        </li>
                    }
                }).collect_view()}
            </ul>
            {team.enabled.then(|| view! {
                <form class="access-inline" on:submit=add aria-label=add_label>
                    <select aria-label=choose_label on:change=move |ev| set_chosen.set(event_target_value(&ev))>
                        <option value="">"Choose a member…"</option>
                        {candidates.into_iter().map(|(id, name)| view! { <option value=id>{name}</option> }).collect_view()}
                    </select>
                    <button type="submit" class="button" disabled=move || busy.get()>"Add"</button>
                    <button type="button" class="button subtle danger" on:click=disable disabled=move || busy.get()>
                        "Disable team"
                    </button>
                </form>
            })}
        </li>
    }
}

#[component]
fn CreateTeam(changes: Changes) -> impl IntoView {
    let busy = changes.busy();
    let (name, set_name) = signal(String::new());
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        changes.send(AccessChange::CreateTeam {
            name: name.get_untracked(),
        });
    };
    view! {
        <form class="access-form access-inline" on:submit=submit aria-label="Create a team">
            <label>"New team"
                <input type="text" required maxlength="100" prop:value=name
                    on:input=move |ev| set_name.set(event_target_value(&ev))/>
            </label>
            <button type="submit" class="button primary" disabled=move || busy.get()>"Create team"</button>
        </form>
    }
}
