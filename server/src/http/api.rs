//! The JSON HTTP API under `/api`, for scripts (`shared/spec/reference.md` §4); the browser uses
//! server functions instead. Compatible with the original's routes and error shape.
//!
//! Cross-cutting (§4.1): every route declares its permission in [`routes::API_ROUTES`], which
//! the request guard checks; every handler takes the caller as a [`principal::Principal`], JSON bodies go through [`body::JsonBody`] (16 MiB limit
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
//! | `GET, POST /api/admin/security` | [`admin`] |
//! | `GET, PUT, DELETE /api/agents/{id}/credential` | [`credentials`] |

pub mod admin;
pub mod agents;
pub mod artifacts;
pub mod auth;
pub mod body;
pub mod commands;
pub mod credentials;
pub mod decisions;
pub mod error;
pub mod principal;
pub mod routes;
pub mod stream;
pub mod tasks;
pub mod webhooks;

use axum::Router;
use axum::http::{HeaderValue, header};
use tower_http::set_header::SetResponseHeaderLayer;

use crate::state::AppState;

/// Every `/api` route ([`routes::API_ROUTES`], each with its permission), not cached.
pub fn routes() -> Router<AppState> {
    routes::router().layer(SetResponseHeaderLayer::if_not_present(
        header::CACHE_CONTROL,
        HeaderValue::from_static("no-store"),
    ))
}
