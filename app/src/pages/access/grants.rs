//! Grants: who (everyone, a member or a team) may read or operate which agent, or one skill of
//! it; each with a Revoke button, and the form that gives a new one.

use leptos::prelude::*;

use super::{Changes, member_name};
use crate::api::access::{AccessChange, AccessOverview, GrantRow};
use crate::words::{GrantPermission, GrantSubject};

/// Who a grant is for, as the page names it.
fn subject_label(overview: &AccessOverview, grant: &GrantRow) -> String {
    match grant.subject_type {
        GrantSubject::Organization => "Everyone".to_owned(),
        GrantSubject::Membership => member_name(overview, &grant.subject_id),
        GrantSubject::Team => overview
            .teams
            .iter()
            .find(|t| t.team_id == grant.subject_id)
            .map_or_else(|| grant.subject_id.clone(), |t| format!("Team {}", t.name)),
    }
}

fn agent_label(overview: &AccessOverview, agent_id: &str) -> String {
    overview
        .agents
        .iter()
        .find(|a| a.agent_id == agent_id)
        .map_or_else(|| agent_id.to_owned(), |a| a.name.clone())
}

/// What the "Give access" form holds, kept by the page: the sections are drawn again each time
/// the overview is read again (after any change), and a choice made meanwhile stays chosen.
#[derive(Clone, Copy)]
pub(crate) struct GrantDraft {
    who: RwSignal<String>,
    agent: RwSignal<String>,
    skill: RwSignal<String>,
    permission: RwSignal<GrantPermission>,
}

impl GrantDraft {
    pub(crate) fn new() -> Self {
        Self {
            who: RwSignal::new(String::new()),
            agent: RwSignal::new(String::new()),
            skill: RwSignal::new(String::new()),
            permission: RwSignal::new(GrantPermission::Read),
        }
    }
}

#[component]
pub(super) fn Grants(
    overview: StoredValue<AccessOverview>,
    changes: Changes,
    draft: GrantDraft,
) -> impl IntoView {
    let busy = changes.busy();
    let rows = overview.with_value(|o| {
        o.grants
            .iter()
            .map(|g| (g.clone(), subject_label(o, g), agent_label(o, &g.agent_id)))
            .collect::<Vec<_>>()
    });
    let empty = rows.is_empty();
    view! {
        <section class="panel settings-card" aria-labelledby="access-grants-title">
            <h2 id="access-grants-title">"Grants"</h2>
            <p class="muted settings-help">
                "Operate implies read. A viewer's grants read only. A grant on one skill shows only that "
                "skill's tasks and never allows a send without it."
            </p>
            {empty.then(|| view! { <p class="muted">"No grants yet: only admins see anything."</p> })}
            <table class="access-table" data-testid="access-grants">
                <thead>
                    <tr><th scope="col">"Who"</th><th scope="col">"Agent"</th><th scope="col">"Skill"</th><th scope="col">"Permission"</th><th></th></tr>
                </thead>
                <tbody>
                    {rows.into_iter().map(|(grant, who, agent)| {
                        let grant_id = grant.grant_id.clone();
                        let label = format!("Revoke {} on {agent} for {who}", grant.permission.label());
                        let revoke = move |_| changes.send(AccessChange::RevokeGrant { grant_id: grant_id.clone() });
                        view! {
                            <tr>
                                <td>{who}</td>
                                <td>{agent}</td>
                                <td>{grant.skill_id.clone().unwrap_or_else(|| "All skills".to_owned())}</td>
                                <td>{grant.permission.label()}</td>
                                <td><button type="button" class="button subtle" aria-label=label on:click=revoke
                                    disabled=move || busy.get()>"Revoke"</button></td>
                            </tr>
                        }
                    }).collect_view()}
                </tbody>
            </table>
            <NewGrant overview changes draft/>
        </section>
    }
}

/// "Give access": the subject is `organization:<id>`, `membership:<id>` or `team:<id>`.
#[component]
fn NewGrant(overview: StoredValue<AccessOverview>, changes: Changes, draft: GrantDraft) -> impl IntoView {
    let busy = changes.busy();
    let GrantDraft {
        who,
        agent,
        skill,
        permission,
    } = draft;
    let (subjects, agents) = overview.with_value(|o| {
        let mut subjects = vec![(
            format!("organization:{}", o.organization_id),
            "Everyone".to_owned(),
        )];
        subjects.extend(
            o.members
                .iter()
                .map(|m| (format!("membership:{}", m.membership_id), m.display_name.clone())),
        );
        subjects.extend(
            o.teams
                .iter()
                .filter(|t| t.enabled)
                .map(|t| (format!("team:{}", t.team_id), format!("Team {}", t.name))),
        );
        let agents: Vec<(String, String)> = o
            .agents
            .iter()
            .map(|a| (a.agent_id.clone(), a.name.clone()))
            .collect();
        (subjects, agents)
    });
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let chosen = who.get_untracked();
        let Some((kind, subject_id)) = chosen.split_once(':') else {
            return;
        };
        let Some(subject_type) = GrantSubject::parse(kind) else {
            return;
        };
        let skill = skill.get_untracked();
        changes.send(AccessChange::Grant {
            subject_type,
            subject_id: subject_id.to_owned(),
            agent_id: agent.get_untracked(),
            skill_id: Some(skill).filter(|s| !s.trim().is_empty()),
            permission: permission.get_untracked(),
        });
    };
    view! {
        <form class="access-form" on:submit=submit aria-label="Give access">
            <h3>"Give access"</h3>
            <label>"Who"
                <select required on:change=move |ev| who.set(event_target_value(&ev))>
                    <option value="">"Choose…"</option>
                    {subjects.into_iter().map(|(value, label)| chosen_option(value, label, who)).collect_view()}
                </select>
            </label>
            <label>"Agent"
                <select required on:change=move |ev| agent.set(event_target_value(&ev))>
                    <option value="">"Choose…"</option>
                    {agents.into_iter().map(|(value, label)| chosen_option(value, label, agent)).collect_view()}
                </select>
            </label>
            <label>"Skill (optional)"
                <input type="text" placeholder="All skills" prop:value=skill
                    on:input=move |ev| skill.set(event_target_value(&ev))/>
            </label>
            <label>"Permission"
                <select on:change=move |ev| {
                    if let Some(p) = GrantPermission::parse(&event_target_value(&ev)) {
                        permission.set(p);
                    }
                }>
                    {GrantPermission::ALL.into_iter().map(|p| view! {
                        <option value=p.as_str() selected=move || permission.get() == p>{p.label()}</option>
                    }).collect_view()}
                </select>
            </label>
            <button type="submit" class="button primary" disabled=move || busy.get()>"Give access"</button>
        </form>
    }
}

/// An option that shows as chosen while `chosen` holds its value.
fn chosen_option(value: String, label: String, chosen: RwSignal<String>) -> impl IntoView {
    let selected = {
        let value = value.clone();
        move || chosen.with(|chosen| *chosen == value)
    };
    view! { <option value=value selected=selected>{label}</option> }
}
