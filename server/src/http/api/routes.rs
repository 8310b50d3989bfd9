//! Every `/api` route with the permission it needs, declared once (`shared/spec/reference.md`
//! §4.1–§4.9): the router is built from this table, so a route cannot be served without a
//! permission, and the request guard checks it (and takes the caller's request budget) before
//! any handler runs. Server functions have their own table (`crate::http::guard::server_fns`).

use axum::Router;
use axum::routing::{delete, get, post, put};

use super::principal::Permission;
use super::{admin, agents, artifacts, auth, commands, credentials, decisions, stream, tasks, webhooks};
use crate::http::live;
use crate::state::AppState;

/// Who may call a route.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Anyone, signed in or not (starting and finishing sign-in).
    Public,
    /// A caller whose role holds the permission.
    Needs(Permission),
}

/// One route of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ApiRoute {
    pub method: &'static str,
    /// The path as the router has it (`{name}` for a segment).
    pub path: &'static str,
    pub access: Access,
}

macro_rules! api_routes {
    ($($method:ident $path:literal => $handler:expr, $access:expr;)*) => {
        /// Every `/api` route (not the server functions).
        pub const API_ROUTES: &[ApiRoute] = &[
            $(ApiRoute { method: stringify!($method), path: $path, access: $access }),*
        ];

        /// The router of [`API_ROUTES`].
        pub fn router() -> Router<AppState> {
            Router::new()$(.route($path, $method($handler)))*
        }
    };
}

use Access::{Needs, Public};
use Permission::{Administer, Operate, Read};

api_routes! {
    get "/api/auth/login" => auth::login, Public;
    get "/api/auth/callback" => auth::callback, Public;
    get "/api/auth/signed-out" => auth::signed_out, Public;
    // Agents deliver push notifications here; the registration's derived token is checked
    // before the body is read (security-and-durability §3.7).
    post "/api/webhooks/a2a/{registration_id}" => webhooks::receive, Public;
    post "/api/auth/logout" => auth::logout, Needs(Read);
    get "/api/auth/session" => auth::session, Needs(Read);
    get "/api/agents" => agents::list, Needs(Read);
    post "/api/agents" => agents::register, Needs(Administer);
    post "/api/agents/preview" => agents::preview, Needs(Administer);
    get "/api/agents/{agent_id}" => agents::detail, Needs(Read);
    delete "/api/agents/{agent_id}" => agents::remove, Needs(Administer);
    get "/api/agents/{agent_id}/credential" => credentials::get, Needs(Administer);
    put "/api/agents/{agent_id}/credential" => credentials::put, Needs(Administer);
    delete "/api/agents/{agent_id}/credential" => credentials::revoke, Needs(Administer);
    post "/api/agents/{agent_id}/commands" => commands::create, Needs(Operate);
    post "/api/agents/{agent_id}/messages" => commands::message, Needs(Operate);
    post "/api/agents/{agent_id}/tasks/{task_id}/cancel" => commands::cancel, Needs(Operate);
    post "/api/agents/{agent_id}/stream" => stream::stream, Needs(Operate);
    get "/api/commands/{command_id}" => commands::get, Needs(Read);
    get "/api/tasks" => tasks::list, Needs(Read);
    get "/api/tasks/events" => live::freshness, Needs(Read);
    get "/api/tasks/{task_id}" => tasks::get, Needs(Read);
    get "/api/artifacts/{digest}" => artifacts::download, Needs(Read);
    get "/api/decisions" => decisions::list, Needs(Read);
    post "/api/decisions" => decisions::open, Needs(Operate);
    get "/api/decisions/{decision_id}" => decisions::get, Needs(Read);
    post "/api/decisions/{decision_id}/decisions" => decisions::decide, Needs(Operate);
    get "/api/reviewers" => decisions::reviewers, Needs(Operate);
    get "/api/live/tasks/{id}" => live::task_stream, Needs(Read);
    get "/api/live/conversations/{id}" => live::conversation_stream, Needs(Read);
    get "/api/admin/security" => admin::overview, Needs(Administer);
    post "/api/admin/security" => admin::change, Needs(Administer);
}

/// The route `method` and `path` reach, if any (`HEAD` is answered by a `GET` route).
pub fn find(method: &str, path: &str) -> Option<&'static ApiRoute> {
    let method = if method.eq_ignore_ascii_case("head") {
        "get"
    } else {
        method
    };
    // A literal segment wins over a parameter, as in the router (`/api/tasks/events`).
    let mut matching = API_ROUTES
        .iter()
        .filter(|route| route.method.eq_ignore_ascii_case(method) && matches(route.path, path));
    let first = matching.next()?;
    Some(matching.fold(first, |best, other| {
        if literals(other.path) > literals(best.path) {
            other
        } else {
            best
        }
    }))
}

/// Whether `path` is one the route `template` serves: each `{name}` stands for one non-empty
/// segment, every other segment is literal.
pub fn matches(template: &str, path: &str) -> bool {
    let mut want = template.split('/');
    let mut have = path.split('/');
    loop {
        match (want.next(), have.next()) {
            (None, None) => return true,
            (Some(w), Some(h)) if w.starts_with('{') && !h.is_empty() => {}
            (Some(w), Some(h)) if w == h => {}
            _ => return false,
        }
    }
}

fn literals(template: &str) -> usize {
    template.split('/').filter(|s| !s.starts_with('{')).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_find_their_route_and_permission() {
        let access = |method, path| find(method, path).map(|route| route.access);
        assert_eq!(access("GET", "/api/tasks/events"), Some(Needs(Read)));
        assert_eq!(
            find("GET", "/api/tasks/events").unwrap().path,
            "/api/tasks/events"
        );
        assert_eq!(
            find("GET", "/api/tasks/0190").unwrap().path,
            "/api/tasks/{task_id}"
        );
        assert_eq!(access("HEAD", "/api/agents"), Some(Needs(Read)));
        assert_eq!(access("POST", "/api/agents"), Some(Needs(Administer)));
        assert_eq!(access("DELETE", "/api/agents/a1"), Some(Needs(Administer)));
        assert_eq!(
            access("POST", "/api/agents/a1/tasks/t1/cancel"),
            Some(Needs(Operate))
        );
        assert_eq!(access("GET", "/api/auth/callback"), Some(Public));
        for unknown in [
            ("GET", "/api/agents/"),
            ("GET", "/api/auth/login/x"),
            ("PUT", "/api/agents"),
            ("GET", "/api/nope"),
        ] {
            assert_eq!(find(unknown.0, unknown.1), None, "{unknown:?}");
        }
    }

    /// The public routes are exactly those that start and finish sign-in, the page after
    /// signing out, and the push receiver (authenticated by its own token, §3.7).
    #[test]
    fn only_sign_in_and_the_push_receiver_are_public() {
        let public: Vec<&str> = API_ROUTES
            .iter()
            .filter(|r| r.access == Public)
            .map(|r| r.path)
            .collect();
        assert_eq!(
            public,
            [
                "/api/auth/login",
                "/api/auth/callback",
                "/api/auth/signed-out",
                "/api/webhooks/a2a/{registration_id}"
            ]
        );
    }
}
