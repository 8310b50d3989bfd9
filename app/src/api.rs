//! Server functions: the browser's way in. Thin: each reads the backend from context, calls
//! it, and returns a type named for what the screen shows. The logic lives in `server`,
//! behind the ssr-only traits declared here.

pub mod access;
pub mod agents;
pub mod approvals;
pub mod credentials;
pub mod extensions;
pub mod idempotency;
pub mod identity;
pub mod tasks;

/// A value only the browser loads (it needs `localStorage`, or the page should not wait for
/// it): `None` on the server and until it has loaded, then the latest value loaded; loaded again
/// when a signal `fetcher` reads changes. A failed load keeps what was there (every caller shows
/// nothing, or the last value, rather than an error); of loads that overlap, the newest wins.
///
/// Not a `LocalResource`: read during server rendering inside a `Suspense` or `Transition`, a
/// `LocalResource` tells Leptos that the boundary cannot resolve on the server, and Leptos then
/// sends the boundary's fallback instead of the page, or not, depending on which of two ready
/// futures it polls first (the conversation and task pages came as "Loading…" on about half of
/// the loads). Most callers read it inside a page's `Transition`, so it is a plain signal set by
/// an effect, which no boundary waits for.
pub fn browser_value<T, E, Fut>(fetcher: impl Fn() -> Fut + 'static) -> leptos::prelude::Signal<Option<T>>
where
    T: Clone + Send + Sync + 'static,
    E: 'static,
    Fut: std::future::Future<Output = Result<T, E>> + 'static,
{
    let value = leptos::prelude::RwSignal::new(None::<T>);
    load_in_browser(value, fetcher);
    value.into()
}

/// [`browser_value`] into a signal the caller owns, so that one part of a page loads a value
/// that other parts read (the composer loads the agent's extensions for the timeline too).
/// Nothing happens on the server.
pub fn load_in_browser<T, E, Fut>(
    value: leptos::prelude::RwSignal<Option<T>>,
    fetcher: impl Fn() -> Fut + 'static,
) where
    T: Clone + Send + Sync + 'static,
    E: 'static,
    Fut: std::future::Future<Output = Result<T, E>> + 'static,
{
    #[cfg(feature = "hydrate")]
    {
        use leptos::prelude::{Effect, GetValue, Set, SetValue, StoredValue};
        let newest = StoredValue::new(0_u64);
        Effect::new(move |_| {
            // Called here, so the signals it reads are tracked by this effect.
            let load = fetcher();
            let this = newest.get_value().wrapping_add(1);
            newest.set_value(this);
            leptos::task::spawn_local(async move {
                if let Ok(loaded) = load.await
                    && newest.try_get_value() == Some(this)
                {
                    value.try_set(Some(loaded));
                }
            });
        });
    }
    #[cfg(not(feature = "hydrate"))]
    {
        let _ = (value, fetcher);
    }
}

/// A boxed future, for the object-safe backend traits (server side only).
#[cfg(feature = "ssr")]
pub type BoxFuture<'a, T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send + 'a>>;

/// The server's implementations of the backend traits, provided as Leptos context by the
/// server for rendering and for server-function requests alike.
#[cfg(feature = "ssr")]
#[derive(Clone)]
pub struct Backend {
    pub access: std::sync::Arc<dyn access::AccessBackend>,
    pub agents: std::sync::Arc<dyn agents::AgentsBackend>,
    pub approvals: std::sync::Arc<dyn approvals::ApprovalsBackend>,
    pub credentials: std::sync::Arc<dyn credentials::CredentialsBackend>,
    pub identity: std::sync::Arc<dyn identity::IdentityBackend>,
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
