//! The chat's approval cards: for a task whose agent asked for an approval (reference §1.2), the
//! requests opened on it with their status and a link to the review page. Nothing is decided in
//! chat; the review page holds the controls and the record.

use leptos::prelude::*;

use super::state::ChatState;
use crate::a2a::{PartContent, Role};
use crate::api::approvals::{ApprovalSummary, list_approvals};
use crate::ext::uri::APPROVAL_MEDIA_TYPE;
use crate::pages::approvals::status_label;
use crate::projection::TaskView;

/// Whether any agent message of the task carries an approval-request part.
pub fn asks_for_approval(task: &TaskView) -> bool {
    task.messages.iter().filter(|m| m.role == Role::Agent).any(|m| {
        m.parts.iter().any(|p| {
            matches!(p.content, PartContent::Data(_))
                && p.media_type
                    .as_deref()
                    .is_some_and(|t| t.eq_ignore_ascii_case(APPROVAL_MEDIA_TYPE))
        })
    })
}

/// The requests of one task, reloaded whenever the task changes (browser only); shown once the
/// agent advertises approvals and the task asks for one.
#[component]
pub fn ApprovalCards(state: ChatState, task: Memo<TaskView>) -> impl IntoView {
    let shown = move || {
        state.extensions.with(|e| e.as_ref().is_some_and(|e| e.approvals)) && task.with(asks_for_approval)
    };
    view! { <Show when=shown>{approval_cards(task)}</Show> }
}

fn approval_cards(task: Memo<TaskView>) -> AnyView {
    view! { <Cards task/> }.into_any()
}

/// The cards, shown by [`ApprovalCards`] only while the agent advertises approvals and the task
/// asks for one; reloaded when the task changes.
#[component]
fn Cards(task: Memo<TaskView>) -> impl IntoView {
    let key = move || task.with(|t| (t.local_id.clone(), t.version, t.state.clone()));
    let requests = crate::api::browser_value(move || {
        let (id, ..) = key();
        list_approvals(None, Some(id))
    });
    view! {
        {move || requests.get().unwrap_or_default().into_iter().map(|r| view! { <Card request=r/> }).collect_view()}
    }
    .into_any()
}

#[component]
fn Card(request: ApprovalSummary) -> impl IntoView {
    let open = request.status.is_open();
    view! {
        <aside class="approval-card" data-testid="approval-card" data-status=request.status.as_str()>
            <p class="bubble-label">{if open { "Approval requested" } else { "Approval" }}</p>
            <p><strong>{request.title.clone()}</strong></p>
            <p class="muted">
                <span class=format!("chip risk-{}", request.risk)>{format!("{} risk", request.risk)}</span>
                " "
                <span class=format!("chip status-{}", request.status)>{status_label(request.status)}</span>
            </p>
            <a class="button primary" href=format!("/approvals/{}", request.id) data-testid="review-approval">
                {if open { "Review" } else { "View the decision" }}
            </a>
        </aside>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::a2a::Part;
    use crate::projection::MessageView;
    use serde_json::json;

    fn message(role: Role, part: Part) -> MessageView {
        MessageView {
            message_id: "m".into(),
            role,
            parts: vec![part],
            from_status: true,
            state: None,
            timestamp: None,
            metadata: None,
            extensions: Vec::new(),
            reference_task_ids: Vec::new(),
            sequence: 1,
        }
    }

    #[test]
    fn only_agent_data_parts_of_the_approval_media_type_count() {
        let mut task = TaskView::default();
        let part = |t: &str| Part::data(json!({"title": "x"}), Some(t.to_owned()));
        task.messages.push(message(Role::User, part(APPROVAL_MEDIA_TYPE)));
        assert!(!asks_for_approval(&task));
        task.messages.push(message(Role::Agent, part("application/json")));
        assert!(!asks_for_approval(&task));
        task.messages.push(message(
            Role::Agent,
            part("Application/VND.agent-taskbay.approval-request+json"),
        ));
        assert!(asks_for_approval(&task));
    }
}
