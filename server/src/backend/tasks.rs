//! The Chat and Tasks screens' backend over [`services::tasks`](crate::services::tasks): queries
//! from the projections, sends and cancels as durable commands.

use app::api::BoxFuture;
use app::api::tasks::{
    CommandView, ConversationSummary, ConversationView, LedgerEvent, SendInput, TASK_PAGE_SIZE, TaskFilter,
    TaskPage, TaskSearch, TasksBackend, WireExchange,
};
use app::error::AppError;
use app::projection::TaskView;

use super::store_error;
use crate::services::commands::CommandError;
use crate::services::tasks::{self as task_services, TaskError};
use crate::state::AppState;
use crate::store::tasks::TASK_VIEW_ITEMS;

pub(super) struct Tasks(pub AppState);

pub(super) fn command_error(error: CommandError) -> AppError {
    match error {
        CommandError::Invalid(message) => AppError::Invalid {
            field: "message".into(),
            message,
        },
        CommandError::Conflict(message) => AppError::Conflict(message.to_owned()),
        CommandError::UnknownAgent | CommandError::TaskNotFound | CommandError::ConversationNotFound => {
            AppError::NotFound
        }
        CommandError::Forbidden(message) => AppError::Forbidden(message),
        CommandError::Store(error) => store_error(error),
    }
}

fn task_error(error: TaskError) -> AppError {
    match error {
        TaskError::Invalid { field, message } => AppError::Invalid {
            field: field.into(),
            message,
        },
        TaskError::NotFound => AppError::NotFound,
        TaskError::Conflict(message) => AppError::Conflict(message),
        TaskError::Command(error) => command_error(error),
        TaskError::Store(error) => store_error(error),
    }
}

impl TasksBackend for Tasks {
    fn list_tasks(
        &self,
        filter: TaskFilter,
        offset: u64,
        search: TaskSearch,
    ) -> BoxFuture<'_, Result<TaskPage, AppError>> {
        Box::pin(async move {
            let access = super::access().await?;
            let words = search.words().map_err(|message| AppError::Invalid {
                field: "search".into(),
                message: message.into(),
            })?;
            task_services::list(
                &self.0.db,
                &access,
                filter,
                &words,
                &search.agent_id,
                offset,
                TASK_PAGE_SIZE,
            )
            .await
            .map_err(store_error)
        })
    }

    fn get_task(&self, task_id: String) -> BoxFuture<'_, Result<TaskView, AppError>> {
        Box::pin(async move {
            let access = super::access().await?;
            task_services::view(&self.0.db, &access, &task_id, TASK_VIEW_ITEMS)
                .await
                .map_err(store_error)
        })
    }

    fn list_conversations(&self) -> BoxFuture<'_, Result<Vec<ConversationSummary>, AppError>> {
        Box::pin(async move {
            let access = super::access().await?;
            task_services::conversations(&self.0.db, &access)
                .await
                .map_err(store_error)
        })
    }

    fn get_conversation(&self, conversation_id: String) -> BoxFuture<'_, Result<ConversationView, AppError>> {
        Box::pin(async move {
            let access = super::access().await?;
            task_services::conversation(&self.0.db, &access, conversation_id)
                .await
                .map_err(task_error)
        })
    }

    fn conversation_events(
        &self,
        conversation_id: String,
    ) -> BoxFuture<'_, Result<Vec<LedgerEvent>, AppError>> {
        Box::pin(async move {
            let access = super::access().await?;
            task_services::conversation_events(&self.0.db, &access, &conversation_id)
                .await
                .map_err(task_error)
        })
    }

    fn conversation_exchanges(
        &self,
        conversation_id: String,
    ) -> BoxFuture<'_, Result<Vec<WireExchange>, AppError>> {
        Box::pin(async move {
            let access = super::access().await?;
            task_services::conversation_exchanges(&self.0.db, &access, &conversation_id)
                .await
                .map_err(task_error)
        })
    }

    fn send(&self, input: SendInput) -> BoxFuture<'_, Result<CommandView, AppError>> {
        Box::pin(async move {
            let access = super::access().await?;
            task_services::send(&self.0.db, &self.0.bus, &access, input)
                .await
                .map_err(task_error)
        })
    }

    fn cancel(
        &self,
        task_id: String,
        idempotency_key: Option<String>,
    ) -> BoxFuture<'_, Result<CommandView, AppError>> {
        Box::pin(async move {
            let access = super::access().await?;
            task_services::cancel(&self.0.db, &self.0.bus, &access, &task_id, idempotency_key)
                .await
                .map_err(task_error)
        })
    }

    fn subscribe(&self, task_id: String) -> BoxFuture<'_, Result<(), AppError>> {
        Box::pin(async move {
            let access = super::access().await?;
            task_services::follow(&self.0.db, &access, &task_id)
                .await
                .map_err(task_error)
        })
    }
}
