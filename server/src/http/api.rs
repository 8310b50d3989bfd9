//! The JSON HTTP API under `/api`, for scripts (`shared/spec/reference.md` §4); the browser uses
//! server functions instead. Compatible with the original's routes and error shape.
//!
//! Cross-cutting (§4.1): every handler takes a [`principal::Principal`] (identity, permission,
//! and the origin check of mutations), JSON bodies go through [`body::JsonBody`] (16 MiB limit
//! and the original's messages), errors are [`error::ApiError`] (`{"error":{"message":…}}`),
//! and every response carries `Cache-Control: no-store` unless it set its own (the SSE stream's
//! `no-store, no-transform`).
//!
//! | Route | Module |
//! | --- | --- |
//! | `GET /api/auth/login`, `GET /api/auth/callback`, `POST /api/auth/logout`, `GET /api/auth/session` | [`auth`] |
//! | `GET, POST /api/agents`, `POST /api/agents/preview`, `GET, DELETE /api/agents/{id}` | [`agents`] |
//! | `POST /api/agents/{id}/commands`, `GET /api/commands/{id}`, `POST /api/agents/{id}/messages`, `POST /api/agents/{id}/tasks/{taskId}/cancel` | [`commands`] |
//! | `POST /api/agents/{id}/stream` | [`stream`] |
//! | `GET /api/tasks`, `GET /api/tasks/{id}` | [`tasks`] |
//! | `GET /api/artifacts/{digest}` | [`artifacts`] |
//! | `GET /api/decisions`, `GET /api/decisions/{id}`, `POST /api/decisions/{id}/decisions` | [`decisions`] |

pub mod agents;
pub mod artifacts;
pub mod auth;
pub mod body;
pub mod commands;
pub mod decisions;
pub mod error;
pub mod principal;
pub mod stream;
pub mod tasks;

use axum::Router;
use axum::http::{HeaderValue, header};
use axum::routing::{get, post};
use tower_http::set_header::SetResponseHeaderLayer;

use crate::state::AppState;

/// Every `/api` route of the JSON API.
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/auth/login", get(auth::login))
        .route("/api/auth/callback", get(auth::callback))
        .route("/api/auth/logout", post(auth::logout))
        .route("/api/auth/session", get(auth::session))
        .route("/api/agents", get(agents::list).post(agents::register))
        .route("/api/agents/preview", post(agents::preview))
        .route(
            "/api/agents/{agent_id}",
            get(agents::detail).delete(agents::remove),
        )
        .route("/api/agents/{agent_id}/commands", post(commands::create))
        .route("/api/agents/{agent_id}/messages", post(commands::message))
        .route(
            "/api/agents/{agent_id}/tasks/{task_id}/cancel",
            post(commands::cancel),
        )
        .route("/api/agents/{agent_id}/stream", post(stream::stream))
        .route("/api/commands/{command_id}", get(commands::get))
        .route("/api/tasks", get(tasks::list))
        .route("/api/tasks/{task_id}", get(tasks::get))
        .route("/api/artifacts/{digest}", get(artifacts::download))
        .route("/api/decisions", get(decisions::list))
        .route("/api/decisions/{decision_id}", get(decisions::get))
        .route("/api/decisions/{decision_id}/decisions", post(decisions::decide))
        .layer(SetResponseHeaderLayer::if_not_present(
            header::CACHE_CONTROL,
            HeaderValue::from_static("no-store"),
        ))
}
