//! The approval review page (`/approvals/:id`, reference §1.2, §4.8): what the agent proposes
//! (revision, digest), the decision controls while the request is open (approve with a
//! confirmation, edit then approve, request changes, reject; a rationale except for approve),
//! then the record: decisions, delivery, revisions.

use leptos::prelude::*;
use leptos_meta::Title;
use serde_json::{Value, json};

use super::status_label;
use crate::api::approvals::{
    ActionKind, ApprovalDetail, ApprovalRevision, RequestStatus, RevisionAuthor, get_approval,
};
use crate::components::state_chip::StateChip;
use crate::components::when::When;
use crate::content::json::JsonView;
use crate::live::{FRESHNESS_URL, LiveFrame, use_live_stream};

/// Reads the request id from the route and keeps the page current.
#[component]
pub fn ApprovalReviewPage() -> impl IntoView {
    let page = crate::pages::route::page_id("/approvals/");
    let id = move || page.get();
    let (version, set_version) = signal(0_u64);
    let detail = Resource::new_blocking(move || (id(), version.get()), |(id, _)| get_approval(id));
    let refresh = Callback::new(move |()| set_version.update(|n| *n += 1));
    let draft = super::decision::Draft::default();
    // Committed changes reload the page, except while the reviewer is writing a decision: a
    // reload would replace the form under their hands (a stale decision is refused with 409).
    use_live_stream(Signal::derive(|| Some(FRESHNESS_URL.to_owned())), move |frame| {
        if frame == LiveFrame::Freshness && !draft.in_progress() {
            refresh.run(());
        }
    });
    view! {
        <p><a href="/approvals">"← Approvals"</a></p>
        <Transition fallback=|| view! { <p class="muted" aria-busy="true">"Loading the request…"</p> }>
            <ErrorBoundary fallback=crate::components::error_alert::error_alert>
                {move || Suspend::new(async move {
                    detail.await.map(|detail| view! { <Review detail refresh draft/> })
                })}
            </ErrorBoundary>
        </Transition>
    }
}

/// The whole review for one loaded request.
#[component]
fn Review(detail: ApprovalDetail, refresh: Callback<()>, draft: super::decision::Draft) -> impl IntoView {
    let request = detail.request.clone();
    let current = detail
        .revisions
        .iter()
        .find(|r| r.revision == request.current_revision)
        .cloned();
    let open = request.status.is_open();
    view! {
        <Title text=format!("Approval: {}", request.title)/>
        <header class="page-header">
            <h1>{request.title.clone()}</h1>
            <p class="lede">
                <span class=format!("chip risk-{}", request.risk)>{format!("{} risk", request.risk)}</span>
                " "
                <span class=format!("chip status-{}", request.status) data-testid="approval-status">
                    {status_label(request.status)}
                </span>
                " · " {request.agent_name.clone()} " · opened " <When at=request.created_at.clone()/>
                {request.assignee_name.clone().map(|name| view! {
                    " · " <span data-testid="approval-assignee">{format!("assigned to {name}")}</span>
                })}
                {open.then(|| view! { " · expires " <When at=request.expires_at.clone()/> })}
            </p>
            <p>
                <a href=format!("/tasks/{}", request.task_id)>"View task"</a>
                " · "
                <a href=format!("/chat/{}", request.conversation_id)>"Open in chat"</a>
                " · task "
                <StateChip state=crate::a2a::TaskState::parse(&request.task_state)/>
            </p>
        </header>
        {(!request.summary.is_empty()).then(|| view! { <p class="approval-summary">{request.summary.clone()}</p> })}
        {closed_notice(request.status)}
        {current.clone().map(|revision| view! { <Proposal revision/> })}
        {current.filter(|_| open).map(|revision| {
            let viewer = crate::api::identity::known_viewer();
            let elsewhere = assigned_elsewhere(request.assigned_membership_id.clone());
            let request_id = request.id.clone();
            let task_id = request.task_id.clone();
            let assignee = request.assignee_name.clone().unwrap_or_default();
            view! {
                <Show
                    when=move || !viewer.get() && !elsewhere.get()
                    fallback=move || {
                        let reason = if viewer.get() {
                            crate::api::identity::READ_ONLY.to_owned()
                        } else {
                            format!("This request is assigned to {assignee}: only they or an admin can decide it.")
                        };
                        view! { <p class="muted" data-testid="read-only">{reason}</p> }
                    }
                >
                    <super::decision::DecisionForm request_id=request_id.clone() task_id=task_id.clone() revision=revision.clone() refresh draft/>
                </Show>
            }
        })}
        <Record detail/>
    }
}

/// Whether the request is known to be assigned to someone other than the caller, who is not an
/// admin (the server refuses their decision: `403 This request is assigned to someone else.`).
fn assigned_elsewhere(assignee: Option<String>) -> Signal<bool> {
    let me = crate::api::identity::current_identity();
    Signal::derive(move || {
        me.with(|me| match (me, &assignee) {
            (Some(me), Some(assignee)) => {
                &me.membership_id != assignee && me.role != crate::words::Role::Admin
            }
            _ => false,
        })
    })
}

/// Why a closed request cannot be decided.
fn closed_notice(status: RequestStatus) -> Option<impl IntoView + use<>> {
    let text = match status {
        RequestStatus::Expired => "This request expired before anyone decided. The agent has to ask again.",
        RequestStatus::Superseded => "A newer request replaced this one, or its task finished.",
        RequestStatus::Approved => "Approved. The approved action was sent to the agent once.",
        RequestStatus::Rejected => "Rejected. Nothing was sent to the agent.",
        RequestStatus::Pending | RequestStatus::ChangesRequested => return None,
    };
    Some(view! { <p class="notice" role="status">{text}</p> })
}

/// The proposed action of one revision, with its digest.
#[component]
fn Proposal(revision: ApprovalRevision) -> impl IntoView {
    let kind = revision
        .action
        .get("kind")
        .and_then(Value::as_str)
        .and_then(ActionKind::parse);
    let body = match kind {
        Some(ActionKind::SendMessage) => {
            let text = revision
                .action
                .get("text")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            let data = revision.action.get("data").filter(|d| d.is_object()).cloned();
            view! {
                <p class="muted">"Reply the agent will receive:"</p>
                <pre class="proposal-text" data-testid="proposal-text">{text}</pre>
                {data.map(|value| view! { <p class="muted">"With data:"</p> <JsonView value/> })}
            }
            .into_any()
        }
        Some(ActionKind::SendData) | None => {
            let values = revision.action.get("values").cloned().unwrap_or(json!({}));
            view! {
                <p class="muted">"Values the agent will receive:"</p>
                <JsonView value=values/>
            }
            .into_any()
        }
    };
    view! {
        <section class="card" aria-labelledby="proposal-heading">
            <h2 id="proposal-heading">{format!("Proposed action · revision {}", revision.revision)}</h2>
            {body}
            <p class="muted">"Digest " <code data-testid="proposal-digest">{revision.digest.clone()}</code></p>
        </section>
    }
}

/// Decisions, delivery and revisions.
#[component]
fn Record(detail: ApprovalDetail) -> impl IntoView {
    view! {
        <section class="card" aria-labelledby="record-heading">
            <h2 id="record-heading">"Record"</h2>
            <h3>"Decisions"</h3>
            {if detail.decisions.is_empty() {
                view! { <p class="muted">"No decision yet."</p> }.into_any()
            } else {
                view! {
                    <ul class="record" data-testid="decisions">
                        {detail.decisions.iter().map(|d| view! {
                            <li>
                                <strong>{d.outcome.as_str().replace('_', " ")}</strong>
                                {format!(" · revision {}", d.revision)}
                                {d.decided_by.clone().map(|name| format!(" · by {name}"))}
                                {d.delegated_to.clone().map(|name| format!(" · to {name}"))}
                                " · " <When at=d.created_at.clone()/>
                                {d.rationale.clone().map(|r| view! { <p>{r}</p> })}
                            </li>
                        }).collect_view()}
                    </ul>
                }.into_any()
            }}
            {(!detail.executions.is_empty()).then(|| view! {
                <h3>"Delivery"</h3>
                <ul class="record" data-testid="executions">
                    {detail.executions.iter().map(|e| view! {
                        <li>
                            "Command " <code>{e.command_id.clone()}</code> " · " <span data-testid="delivery-status">{e.status.as_str()}</span>
                            " · message " <code>{format!("decision-{}", e.decision_id)}</code>
                        </li>
                    }).collect_view()}
                </ul>
            })}
            <h3>"Revisions"</h3>
            <ol class="record">
                {detail.revisions.iter().map(|r| view! {
                    <li>
                        {format!("Revision {} by {}", r.revision, if r.author_type == RevisionAuthor::Agent { "the agent" } else { "a reviewer" })}
                        " · " <code>{r.digest.chars().take(16).collect::<String>()}</code>
                        " · " <When at=r.created_at.clone()/>
                    </li>
                }).collect_view()}
            </ol>
        </section>
    }
}
