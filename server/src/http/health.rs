//! Liveness and readiness probes for process supervisors and load balancers.

use std::time::Duration;

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use sea_orm::ConnectionTrait;
use serde_json::json;

use crate::db::migration;
use crate::state::AppState;

/// `GET /healthz`: the process is alive and answering. Never touches the database.
pub async fn healthz() -> impl IntoResponse {
    Json(json!({ "status": "ok" }))
}

/// How long each readiness query may take before the database counts as unreachable: a
/// probe must answer promptly, not wait out the pool's 5 s acquire timeout (issue #26).
pub const READINESS_TIMEOUT: Duration = Duration::from_secs(1);

/// `GET /readyz`: 200 when the database answers and no migration is pending; 503 with the
/// reason otherwise, within about [`READINESS_TIMEOUT`]. The reason never carries database
/// error text.
pub async fn readyz(State(state): State<AppState>) -> impl IntoResponse {
    let database = state.config.database.kind();
    let ping = tokio::time::timeout(READINESS_TIMEOUT, state.db.read.execute_unprepared("SELECT 1"));
    match ping.await {
        Ok(Ok(_)) => {}
        Ok(Err(error)) => {
            tracing::warn!(%error, "readiness: database unreachable");
            return not_ready(database, "database unreachable", &[]);
        }
        Err(_) => {
            tracing::warn!("readiness: database did not answer within 1 s");
            return not_ready(database, "database unreachable", &[]);
        }
    }
    let pending = tokio::time::timeout(READINESS_TIMEOUT, migration::pending(&state.db)).await;
    let Ok(pending) = pending else {
        tracing::warn!("readiness: migration state not read within 1 s");
        return not_ready(database, "database unreachable", &[]);
    };
    match pending {
        Ok(pending) if pending.is_empty() => (
            StatusCode::OK,
            Json(json!({ "status": "ready", "database": database })),
        )
            .into_response(),
        Ok(pending) => not_ready(
            database,
            "migrations pending; run `agent-taskbay migrate`",
            &pending,
        ),
        Err(error) => {
            tracing::warn!(%error, "readiness: cannot read migration state");
            not_ready(database, "migration state unreadable", &[])
        }
    }
}

fn not_ready(database: &str, reason: &str, pending: &[String]) -> axum::response::Response {
    let body = json!({ "status": "unavailable", "database": database, "reason": reason, "pendingMigrations": pending });
    (StatusCode::SERVICE_UNAVAILABLE, Json(body)).into_response()
}
