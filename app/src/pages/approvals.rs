//! The approvals queue (`/approvals`): requests the agents opened, by status tab (Pending,
//! Needs changes, Closed, All), newest first, re-queried when something is committed. Each row
//! opens the review page.

use leptos::Params;
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query;
use leptos_router::params::Params;

use crate::api::approvals::{ApprovalSummary, RequestStatus, list_approvals};
use crate::components::when::When;
use crate::live::{FRESHNESS_URL, LiveFrame, use_live_stream};

mod decision;
mod delegate;
pub mod review;

/// A queue tab: its label, its `?tab=` value and the status it lists (`None` = every status).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tab {
    pub label: &'static str,
    pub value: &'static str,
    pub statuses: &'static [RequestStatus],
}

/// The tabs, default first.
pub const TABS: [Tab; 4] = [
    Tab {
        label: "Pending",
        value: "pending",
        statuses: &[RequestStatus::Pending],
    },
    Tab {
        label: "Needs changes",
        value: "changes",
        statuses: &[RequestStatus::ChangesRequested],
    },
    Tab {
        label: "Closed",
        value: "closed",
        statuses: &[
            RequestStatus::Approved,
            RequestStatus::Rejected,
            RequestStatus::Expired,
            RequestStatus::Superseded,
        ],
    },
    Tab {
        label: "All",
        value: "all",
        statuses: &[],
    },
];

/// The tab named by `?tab=` (Pending when absent or unknown).
pub fn tab_of(value: Option<&str>) -> Tab {
    TABS.into_iter()
        .find(|t| Some(t.value) == value)
        .unwrap_or(TABS[0])
}

/// The label of a request status.
pub fn status_label(status: RequestStatus) -> &'static str {
    match status {
        RequestStatus::Pending => "Pending",
        RequestStatus::Approved => "Approved",
        RequestStatus::Rejected => "Rejected",
        RequestStatus::ChangesRequested => "Changes requested",
        RequestStatus::Expired => "Expired",
        RequestStatus::Superseded => "Superseded",
    }
}

/// `?tab=`: the queue's tab.
#[derive(Params, Clone, Debug, PartialEq, Eq)]
struct ApprovalsQuery {
    tab: Option<String>,
}

/// The queue page.
#[component]
pub fn ApprovalsPage() -> impl IntoView {
    let query = use_query::<ApprovalsQuery>();
    let tab = Memo::new(move |_| query.with(|q| tab_of(q.as_ref().ok().and_then(|q| q.tab.as_deref()))));
    let (freshness, set_freshness) = signal(0_u64);
    let requests = Resource::new(
        move || (tab.get(), freshness.get()),
        |(tab, _)| async move {
            let all = list_approvals(None, None).await?;
            Ok::<_, crate::error::AppError>(
                all.into_iter()
                    .filter(|r| tab.statuses.is_empty() || tab.statuses.contains(&r.status))
                    .collect::<Vec<_>>(),
            )
        },
    );
    use_live_stream(Signal::derive(|| Some(FRESHNESS_URL.to_owned())), move |frame| {
        if frame == LiveFrame::Freshness {
            set_freshness.update(|n| *n += 1);
        }
    });
    view! {
        <Title text="Approvals"/>
        <header class="page-header">
            <h1>"Approvals"</h1>
            <p class="lede">"Requests agents opened for a person to decide. Nothing reaches the agent until someone approves."</p>
        </header>
        <nav class="filter-chips" aria-label="Approval status">
            {TABS
                .into_iter()
                .map(|t| {
                    view! {
                        <a
                            class="filter-chip"
                            href=format!("/approvals?tab={}", t.value)
                            aria-current=move || (tab.get() == t).then_some("page")
                        >
                            {t.label}
                        </a>
                    }
                })
                .collect_view()}
        </nav>
        <Transition fallback=|| view! { <p class="muted" aria-busy="true">"Loading approvals…"</p> }>
            <ErrorBoundary fallback=crate::components::error_alert::error_alert>
                {move || Suspend::new(async move {
                    requests.await.map(|rows| view! { <ApprovalList rows/> })
                })}
            </ErrorBoundary>
        </Transition>
    }
    .into_any()
}

/// The rows, or the empty state.
#[component]
fn ApprovalList(rows: Vec<ApprovalSummary>) -> impl IntoView {
    if rows.is_empty() {
        return view! {
            <section class="empty-state">
                <h2>"Nothing here"</h2>
                <p>"Approval requests appear when an agent that advertises the approval-request extension asks for one."</p>
            </section>
        }
        .into_any();
    }
    view! {
        <ul class="task-list" aria-label="Approval requests" data-keynav>
            {rows.into_iter().map(|row| view! { <ApprovalRow row/> }).collect_view()}
        </ul>
    }
    .into_any()
}

/// One request: title, risk, status, agent, task and expiry.
#[component]
fn ApprovalRow(row: ApprovalSummary) -> impl IntoView {
    let open = row.status.is_open();
    view! {
        <li class="task-row" data-testid="approval-row">
            <div class="task-row-main">
                <a class="task-title" href=format!("/approvals/{}", row.id)>{row.title.clone()}</a>
                <p class="task-meta">
                    {row.agent_name.clone()}
                    " · "
                    {crate::pages::task_detail::display_title(&row.task_title)}
                    " · opened "
                    <When at=row.created_at.clone()/>
                    {open.then(|| view! { " · expires " <When at=row.expires_at.clone()/> })}
                </p>
            </div>
            <span class=format!("chip risk-{}", row.risk)>{format!("{} risk", row.risk)}</span>
            <span class=format!("chip status-{}", row.status)>{status_label(row.status)}</span>
        </li>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_tabs_fall_back_to_pending() {
        assert_eq!(tab_of(None).value, "pending");
        assert_eq!(tab_of(Some("closed")).value, "closed");
        assert_eq!(tab_of(Some("<script>")).value, "pending");
    }

    #[test]
    fn every_status_has_a_label_and_a_tab() {
        for status in RequestStatus::ALL {
            assert!(!status_label(status).is_empty());
            assert!(TABS[..3].iter().any(|t| t.statuses.contains(&status)), "{status}");
        }
    }
}
