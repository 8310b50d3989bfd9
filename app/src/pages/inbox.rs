//! The Inbox screen (`/inbox`): what waits for a person, in one place: approval requests
//! pending a decision, then tasks whose agent needs input ([`load_inbox`], which the navigation
//! badge counts with too). Kept current by the freshness
//! signal. Views by owner (Mine, Overdue, Unassigned) arrive with sign-in.

use leptos::prelude::*;
use leptos_meta::Title;

use crate::api::approvals::{ApprovalSummary, RequestStatus, list_approvals};
use crate::api::tasks::{TaskFilter, TaskSummary, list_tasks};
use crate::components::state_chip::StateChip;
use crate::components::when::When;
use crate::live::{FRESHNESS_URL, LiveFrame, use_live_stream};
use crate::pages::task_detail::display_title;

/// What the Inbox lists: approval requests pending a decision, then the tasks that need input
/// and have no pending request (the request stands for its task: one item, not two).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct InboxItems {
    pub approvals: Vec<ApprovalSummary>,
    pub tasks: Vec<TaskSummary>,
    /// More tasks need input than the first page holds.
    pub more: bool,
}

impl InboxItems {
    /// The navigation badge's text, counting exactly what the Inbox lists ("99+" above 99,
    /// "N+" when there are more pages); `None` when nothing waits.
    pub fn badge(&self) -> Option<String> {
        let n = self.approvals.len() + self.tasks.len();
        match (n, self.more) {
            (0, false) => None,
            (n, _) if n > 99 => Some("99+".to_owned()),
            (n, true) => Some(format!("{n}+")),
            (n, false) => Some(n.to_string()),
        }
    }
}

/// Loads what the Inbox lists; the Inbox and its badge both count with this.
pub async fn load_inbox() -> Result<InboxItems, crate::error::AppError> {
    let approvals = list_approvals(Some(RequestStatus::Pending.as_str().to_owned()), None).await?;
    let page = list_tasks(TaskFilter::NeedsInput, 0, String::new(), String::new()).await?;
    let mut tasks = page.tasks;
    tasks.retain(|t| !approvals.iter().any(|a| a.task_id == t.local_id));
    Ok(InboxItems {
        approvals,
        tasks,
        more: page.has_more,
    })
}

/// Approvals pending, then tasks that need input.
#[component]
pub fn InboxPage() -> impl IntoView {
    let (freshness, set_freshness) = signal(0_u64);
    let items = Resource::new(move || freshness.get(), |_| load_inbox());
    use_live_stream(Signal::derive(|| Some(FRESHNESS_URL.to_owned())), move |frame| {
        if frame == LiveFrame::Freshness {
            set_freshness.update(|n| *n += 1);
        }
    });
    view! {
        <Title text="Inbox"/>
        <header class="page-header">
            <h1>"Inbox"</h1>
            <p class="lede">"Approvals that wait for a decision and tasks whose agent needs input."</p>
        </header>
        <Transition fallback=|| view! { <p class="muted" aria-busy="true">"Loading the inbox…"</p> }>
            <ErrorBoundary fallback=crate::components::error_alert::error_alert>
                {move || Suspend::new(async move {
                    items.await.map(|items| view! { <InboxLists approvals=items.approvals tasks=items.tasks/> })
                })}
            </ErrorBoundary>
        </Transition>
    }
}

#[component]
fn InboxLists(approvals: Vec<ApprovalSummary>, tasks: Vec<TaskSummary>) -> impl IntoView {
    if approvals.is_empty() && tasks.is_empty() {
        return view! {
            <section class="empty-state">
                <h2>"Nothing waits for you"</h2>
                <p>"Approval requests and tasks that need input appear here."</p>
            </section>
        }
        .into_any();
    }
    view! {
        <ul class="task-list" aria-label="Inbox" data-keynav>
            {approvals.into_iter().map(|a| view! {
                <li class="task-row" data-testid="inbox-approval">
                    <div class="task-row-main">
                        <a class="task-title" href=format!("/approvals/{}", a.id)>{a.title.clone()}</a>
                        <p class="task-meta">"Approval · " {a.agent_name.clone()} " · expires " <When at=a.expires_at.clone()/></p>
                    </div>
                    <span class=format!("chip risk-{}", a.risk)>{format!("{} risk", a.risk)}</span>
                </li>
            }).collect_view()}
            {tasks.into_iter().map(|t| view! {
                <li class="task-row" data-testid="inbox-task">
                    <div class="task-row-main">
                        <a class="task-title" href=format!("/tasks/{}", t.local_id)>{display_title(&t.title)}</a>
                        <p class="task-meta">"Task · " {t.agent_name.clone().unwrap_or_else(|| t.agent_id.clone())} " · " <When at=t.updated_at.clone()/></p>
                    </div>
                    <StateChip state=t.state.clone() kind=t.kind/>
                </li>
            }).collect_view()}
        </ul>
        <p><a href="/approvals?tab=all">"Every approval request"</a> " · " <a href="/tasks?filter=needs-input">"Every task that needs you"</a></p>
    }
    .into_any()
}
