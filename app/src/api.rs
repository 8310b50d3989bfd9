//! Server functions: the browser's way in. Thin: each reads the backend from context, calls
//! it, and returns a type named for what the screen shows. The logic lives in `server`,
//! behind the ssr-only traits declared here.

pub mod agents;
pub mod approvals;
pub mod extensions;
pub mod tasks;

/// A boxed future, for the object-safe backend traits (server side only).
#[cfg(feature = "ssr")]
pub type BoxFuture<'a, T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send + 'a>>;

/// The server's implementations of the backend traits, provided as Leptos context by the
/// server for rendering and for server-function requests alike.
#[cfg(feature = "ssr")]
#[derive(Clone)]
pub struct Backend {
    pub agents: std::sync::Arc<dyn agents::AgentsBackend>,
    pub approvals: std::sync::Arc<dyn approvals::ApprovalsBackend>,
    pub tasks: std::sync::Arc<dyn tasks::TasksBackend>,
}

/// The [`Backend`] from context; its absence is a server wiring fault.
#[cfg(feature = "ssr")]
pub fn backend() -> Result<Backend, crate::error::AppError> {
    leptos::prelude::use_context::<Backend>().ok_or(crate::error::AppError::Internal)
}

/// Sets the HTTP status of a failed server-function call from its [`AppError`], so clients
/// and logs see 400 / 404 / 409 / 503 instead of a blanket 500.
#[cfg(feature = "ssr")]
pub fn respond<T>(result: Result<T, crate::error::AppError>) -> Result<T, crate::error::AppError> {
    if let Err(error) = &result
        && let Some(response) = leptos::prelude::use_context::<leptos_axum::ResponseOptions>()
        && let Ok(status) = http::StatusCode::from_u16(error.status_code())
    {
        response.set_status(status);
    }
    result
}
