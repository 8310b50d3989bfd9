//! Task routes (`shared/spec/reference.md` §4.7), read from the committed projections:
//!
//! - `GET /api/tasks?filter=&limit=&offset=&q=&agentId=` (read): `filter` one of `all`
//!   (default), `active`, `needs-input`, `done` (else `400 Invalid task filter.`), `limit`
//!   1..100 (50), `offset` ≥ 0; `q` words that must each appear in the title or remote task id
//!   (any case; at most 200 characters, else `400`), `agentId` one agent's tasks;
//!   `{"tasks": [summary…]}` newest first.
//! - `GET /api/tasks/{taskId}?limit=` (read): the local id; `{"task": view}`; `404 Task not
//!   found.`. The view holds the latest `limit` (1..500, default 200) messages, artifacts and
//!   transitions each; `omitted` counts what was left out, when anything was (else `400`
//!   [`INVALID_VIEW_LIMIT`]).

use std::collections::HashMap;

use app::api::tasks::{TaskFilter, TaskSearch, TaskSummary};
use axum::Json;
use axum::extract::{Path, Query, State};
use serde_json::{Value, json};

use super::error::ApiError;
use super::principal::{Permission, Principal};
use crate::services::tasks as task_services;
use crate::state::AppState;
use crate::store::tasks as task_store;

pub const INVALID_FILTER: &str = "Invalid task filter.";
pub const INVALID_PAGE: &str = "limit must be 1–100 and offset must be 0 or more.";
pub const TASK_NOT_FOUND: &str = "Task not found.";
pub const INVALID_VIEW_LIMIT: &str = "limit must be 1–500.";
/// Most messages, artifacts and transitions `GET /api/tasks/{taskId}` returns of each.
pub const MAX_VIEW_LIMIT: u64 = 500;
/// Rows when the caller names no `limit`.
pub const DEFAULT_LIMIT: u64 = 50;
pub const MAX_LIMIT: u64 = 100;

/// The list query, validated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListQuery {
    pub filter: TaskFilter,
    pub limit: u64,
    pub offset: u64,
    /// `q`: words that must each appear in the title or remote task id, lowercased.
    pub words: Vec<String>,
    /// `agentId`: only this agent's tasks; empty: every agent.
    pub agent_id: String,
}

impl ListQuery {
    /// Reads `filter`, `limit` and `offset`; blank values take their defaults.
    pub fn parse(query: &HashMap<String, String>) -> Result<ListQuery, ApiError> {
        let value = |name: &str| query.get(name).map(|v| v.trim()).filter(|v| !v.is_empty());
        let filter = match value("filter") {
            None => TaskFilter::All,
            Some(name) => TaskFilter::parse(name).ok_or_else(|| ApiError::bad_request(INVALID_FILTER))?,
        };
        let number = |name: &str, default: u64| match value(name) {
            None => Ok(default),
            Some(v) => v.parse::<u64>().map_err(|_| ApiError::bad_request(INVALID_PAGE)),
        };
        let limit = number("limit", DEFAULT_LIMIT)?;
        if !(1..=MAX_LIMIT).contains(&limit) {
            return Err(ApiError::bad_request(INVALID_PAGE));
        }
        let search = TaskSearch {
            text: query.get("q").cloned().unwrap_or_default(),
            agent_id: value("agentId").unwrap_or_default().to_owned(),
        };
        let words = search.words().map_err(ApiError::bad_request)?;
        Ok(ListQuery {
            filter,
            limit,
            offset: number("offset", 0)?,
            words,
            agent_id: search.agent_id,
        })
    }
}

/// One list row: the summary plus the original's field names where the data exists
/// (`taskId` is the remote id; workflow, messages and artifacts are not in list rows).
fn row(summary: TaskSummary) -> Value {
    let task_id = summary.remote_task_id.clone();
    let mut value = serde_json::to_value(summary).unwrap_or(Value::Null);
    if let Value::Object(map) = &mut value {
        map.insert("taskId".into(), json!(task_id));
        map.insert("workflow".into(), Value::Null);
        map.insert("messages".into(), json!([]));
        map.insert("artifacts".into(), json!([]));
    }
    value
}

/// `GET /api/tasks`.
pub async fn list(
    State(state): State<AppState>,
    principal: Principal,
    Query(query): Query<HashMap<String, String>>,
) -> Result<Json<Value>, ApiError> {
    principal.require(Permission::Read)?;
    let query = ListQuery::parse(&query)?;
    let page = task_services::list(
        &state.db,
        &principal.access,
        query.filter,
        &query.words,
        &query.agent_id,
        query.offset,
        query.limit,
    )
    .await?;
    let tasks: Vec<Value> = page.tasks.into_iter().map(row).collect();
    Ok(Json(json!({ "tasks": tasks })))
}

/// `GET /api/tasks/{taskId}`.
pub async fn get(
    State(state): State<AppState>,
    principal: Principal,
    Path(task_id): Path<String>,
    Query(query): Query<HashMap<String, String>>,
) -> Result<Json<Value>, ApiError> {
    principal.require(Permission::Read)?;
    let limit = view_limit(&query)?;
    let view = task_services::view(&state.db, &principal.access, &task_id, limit)
        .await
        .map_err(|e| ApiError::from_store(e, TASK_NOT_FOUND))?;
    Ok(Json(json!({ "task": view })))
}

/// The `limit` of a task view: blank is [`task_store::TASK_VIEW_ITEMS`].
fn view_limit(query: &HashMap<String, String>) -> Result<u64, ApiError> {
    match query.get("limit").map(|v| v.trim()).filter(|v| !v.is_empty()) {
        None => Ok(task_store::TASK_VIEW_ITEMS),
        Some(v) => v
            .parse::<u64>()
            .ok()
            .filter(|n| (1..=MAX_VIEW_LIMIT).contains(n))
            .ok_or_else(|| ApiError::bad_request(INVALID_VIEW_LIMIT)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(pairs: &[(&str, &str)]) -> Result<ListQuery, String> {
        let map = pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        ListQuery::parse(&map).map_err(|e| e.message)
    }

    #[test]
    fn list_query_of_reference_4_7() {
        assert_eq!(
            parse(&[]).unwrap(),
            ListQuery {
                filter: TaskFilter::All,
                limit: 50,
                offset: 0,
                words: Vec::new(),
                agent_id: String::new(),
            }
        );
        let q = parse(&[("q", "  Deploy  STAGING "), ("agentId", " a-1 ")]).unwrap();
        assert_eq!(
            (q.words, q.agent_id.as_str()),
            (vec!["deploy".to_owned(), "staging".to_owned()], "a-1")
        );
        assert_eq!(
            parse(&[("q", &"x".repeat(201))]).unwrap_err(),
            app::api::tasks::SEARCH_TOO_LONG
        );
        let q = parse(&[("filter", "needs-input"), ("limit", "100"), ("offset", "7")]).unwrap();
        assert_eq!((q.filter, q.limit, q.offset), (TaskFilter::NeedsInput, 100, 7));
        assert_eq!(parse(&[("filter", "mine")]).unwrap_err(), INVALID_FILTER);
        assert_eq!(parse(&[("limit", "0")]).unwrap_err(), INVALID_PAGE);
        assert_eq!(parse(&[("limit", "101")]).unwrap_err(), INVALID_PAGE);
        assert_eq!(parse(&[("offset", "-1")]).unwrap_err(), INVALID_PAGE);
    }
}
