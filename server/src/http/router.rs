//! The router: an index of every route the server answers.

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::handler::Handler;
use axum::http::{HeaderName, HeaderValue, header};
use axum::middleware::{from_fn, from_fn_with_state};
use axum::response::Redirect;
use axum::routing::get;
use leptos_axum::{LeptosRoutes, generate_route_list};
use tower::ServiceBuilder;
use tower_http::services::ServeDir;
use tower_http::set_header::SetResponseHeaderLayer;

use super::guard::{self, SERVER_FN_BODY_LIMIT};
use super::{api, health, metrics, site};
use crate::state::AppState;

/// Security headers sent with every response (`shared/spec/security-and-durability.md` §6.7).
/// Pages set their own Content-Security-Policy, with their script nonce ([`app::csp`]); every
/// other response gets the same policy without one.
const SECURITY_HEADERS: [(&str, &str); 5] = [
    ("x-content-type-options", "nosniff"),
    ("x-frame-options", "DENY"),
    ("referrer-policy", "no-referrer"),
    ("cross-origin-opener-policy", "same-origin"),
    (
        "permissions-policy",
        "camera=(), microphone=(), geolocation=(), payment=(), usb=()",
    ),
];

/// The app's routes, generated once per process. Generating them renders the app with resource
/// loading suppressed through a process-global flag, so a resource first polled by a concurrent
/// render while that flag is set would never load (leptos-rs/leptos#4773); once per process,
/// before anything is served, avoids that.
fn route_list() -> Vec<leptos_axum::AxumRouteListing> {
    static ROUTES: std::sync::OnceLock<Vec<leptos_axum::AxumRouteListing>> = std::sync::OnceLock::new();
    ROUTES.get_or_init(|| generate_route_list(app::App)).clone()
}

/// Builds the whole application; tests call this without a socket.
pub fn build_router(state: AppState) -> Router {
    let routes = route_list();
    let options = state.leptos_options.clone();
    let mut router = Router::new()
        // The console opens on Chat, like the original (its logo links there too).
        .route("/", get(|| async { Redirect::temporary("/chat") }))
        .route("/healthz", get(health::healthz))
        .route("/readyz", get(health::readyz))
        .route("/metrics", get(metrics::render))
        .merge(api::routes())
        // Server functions and SSR both get the backend; leptos_routes_with_context registers the
        // server-function endpoints with the same context.
        .leptos_routes_with_context(
            &state,
            routes,
            {
                let backend = crate::backend::backend(&state);
                move || leptos::prelude::provide_context(backend.clone())
            },
            {
                let options = options.clone();
                move || app::shell(options.clone())
            },
        )
        // Server functions read their body with axum's extractors (2 MB by default).
        .layer(DefaultBodyLimit::max(SERVER_FN_BODY_LIMIT))
        // Routing has happened inside a route layer, so the metrics see the route template.
        .route_layer(from_fn_with_state(state.clone(), metrics::record))
        // The site's files, else the 404 page. The build writes a gzip and a brotli copy beside
        // each file, which `ServeDir` sends to a browser that accepts them (a cache between the
        // two must keep the copies apart: `Vary`), and a browser revalidating its copy gets 304.
        // (leptos_axum's own file handler passes on only `Accept-Encoding`, so it never answered
        // 304; it still renders the 404 page here.) Content-hashed files are immutable (`site`).
        .fallback_service(
            ServiceBuilder::new()
                .layer(from_fn_with_state(state.clone(), metrics::record))
                .layer(from_fn(site::cache_control))
                .layer(SetResponseHeaderLayer::if_not_present(
                    header::VARY,
                    HeaderValue::from_static("accept-encoding"),
                ))
                .service(
                    ServeDir::new(&*options.site_root)
                        .precompressed_br()
                        .precompressed_gzip()
                        .fallback(
                            leptos_axum::file_and_error_handler::<AppState, _>(app::shell)
                                .with_state(state.clone()),
                        ),
                ),
        );
    // The request guard runs before any route, the site's files and the 404 page included; the
    // security headers wrap its refusals too.
    router = router.layer(from_fn_with_state(state.clone(), guard::guard));
    for (name, value) in SECURITY_HEADERS {
        router = router.layer(SetResponseHeaderLayer::if_not_present(
            HeaderName::from_static(name),
            HeaderValue::from_static(value),
        ));
    }
    let policy = HeaderValue::from_str(&app::csp::policy(None)).expect("the policy is a valid header value");
    router = router.layer(SetResponseHeaderLayer::if_not_present(
        header::CONTENT_SECURITY_POLICY,
        policy,
    ));
    router.with_state(state)
}
