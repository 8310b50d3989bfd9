//! The Approvals screens' backend, over [`services::approvals`](crate::services::approvals).

use app::api::BoxFuture;
use app::api::approvals::{
    ApprovalAsk, ApprovalDetail, ApprovalSummary, ApprovalsBackend, DecisionInput, Reviewer,
};
use app::error::AppError;

use super::store_error;
use crate::services::approvals::{self, ApprovalError};
use crate::state::AppState;

pub(super) struct Approvals(pub AppState);

fn approval_error(error: ApprovalError) -> AppError {
    match error {
        ApprovalError::NotFound => AppError::NotFound,
        ApprovalError::Invalid(message) | ApprovalError::Unprocessable(message) => AppError::Invalid {
            field: "decision".into(),
            message,
        },
        ApprovalError::Conflict(message) => AppError::Conflict(message),
        ApprovalError::Forbidden(message) => AppError::Forbidden(message),
        ApprovalError::Command(error) => super::tasks::command_error(error),
        ApprovalError::Store(error) => store_error(error),
    }
}

impl ApprovalsBackend for Approvals {
    fn list(
        &self,
        status: Option<String>,
        task_id: Option<String>,
    ) -> BoxFuture<'_, Result<Vec<ApprovalSummary>, AppError>> {
        Box::pin(async move {
            let access = super::access().await?;
            approvals::list(&self.0.db, &access, status.as_deref(), task_id.as_deref(), None)
                .await
                .map_err(approval_error)
        })
    }

    fn get(&self, id: String) -> BoxFuture<'_, Result<ApprovalDetail, AppError>> {
        Box::pin(async move {
            let access = super::access().await?;
            approvals::detail(&self.0.db, &access, &id)
                .await
                .map_err(approval_error)
        })
    }

    fn decide(
        &self,
        id: String,
        input: DecisionInput,
        key: String,
    ) -> BoxFuture<'_, Result<ApprovalDetail, AppError>> {
        Box::pin(async move {
            let caller = crate::http::api::decisions::caller(&super::caller().await?);
            approvals::decide(&self.0.db, &self.0.bus, &caller, &id, input, &key)
                .await
                .map(|(detail, _)| detail)
                .map_err(approval_error)
        })
    }

    fn reviewers(&self, task_id: String) -> BoxFuture<'_, Result<Vec<Reviewer>, AppError>> {
        Box::pin(async move {
            let caller = crate::http::api::decisions::caller(&super::caller().await?);
            approvals::reviewers(&self.0.db, &caller, &task_id)
                .await
                .map_err(approval_error)
        })
    }

    fn open(&self, input: ApprovalAsk) -> BoxFuture<'_, Result<String, AppError>> {
        Box::pin(async move {
            let caller = crate::http::api::decisions::caller(&super::caller().await?);
            let expires_at = chrono::Utc::now() + chrono::Duration::hours(i64::from(input.expires_in_hours));
            let body = approvals::OpenRequest {
                task_id: input.task_id,
                request_key: Some(input.key),
                title: input.title,
                summary: Some(input.summary).filter(|s| !s.trim().is_empty()),
                risk: Some(input.risk),
                action: serde_json::json!({"kind": "send_message", "text": input.text}),
                expires_at: expires_at.to_rfc3339(),
                assigned_membership_id: input.assigned_membership_id.filter(|a| !a.is_empty()),
                policy: None,
            };
            approvals::open(&self.0.db, &self.0.bus, &caller, body, None)
                .await
                .map(|(detail, _)| detail.request.id)
                .map_err(approval_error)
        })
    }

    fn pending_count(&self) -> BoxFuture<'_, Result<u64, AppError>> {
        Box::pin(async move {
            let access = super::access().await?;
            approvals::pending_count(&self.0.db, &access)
                .await
                .map_err(approval_error)
        })
    }
}
