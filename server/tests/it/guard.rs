//! The request guard through the real router (issue #26): a DNS-rebinding `Host` is refused on
//! every route family, cross-site form posts and `text/plain` fetches change nothing, the
//! console's own traffic and curl without `Origin` still work.

use axum::body::Body;
use axum::http::{Request, StatusCode};
use serde_json::json;
use server::AppState;
use server::http::guard::{BODY_TOO_LARGE, MISDIRECTED, SERVER_FN_BODY_LIMIT};

use crate::client::{Reply, reply};
use crate::support;

const NOT_PERMITTED: &str = "This action is not permitted.";

/// The console's own origin in tests (the state's bound address).
fn own(state: &AppState) -> String {
    format!("http://{}", state.leptos_options.site_addr)
}

async fn send(
    state: &AppState,
    method: &str,
    uri: &str,
    headers: &[(&str, &str)],
    body: impl Into<Body>,
) -> Reply {
    let mut request = Request::builder().method(method).uri(uri);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    reply(support::send(state, request.body(body.into()).unwrap()).await).await
}

async fn agent_count(state: &AppState) -> usize {
    let listed = send(state, "GET", "/api/agents", &[], Body::empty()).await;
    assert_eq!(listed.status, StatusCode::OK, "{}", listed.body);
    listed.json()["agents"].as_array().unwrap().len()
}

#[tokio::test]
async fn a_rebinding_host_is_refused_on_every_route_family_with_nothing_rendered() {
    let (state, _db) = support::app().await;
    let port = state.leptos_options.site_addr.port();
    let evil_host = format!("evil.example:{port}");
    let evil_origin = format!("http://{evil_host}");
    let digest = "0".repeat(64);
    let routes = [
        ("GET", "/tasks".to_owned()),
        ("GET", "/chat".to_owned()),
        ("GET", "/api/tasks".to_owned()),
        ("GET", "/api/agents".to_owned()),
        ("POST", "/api/fn/list_agents".to_owned()),
        (
            "GET",
            "/api/live/tasks/00000000-0000-0000-0000-000000000000".to_owned(),
        ),
        ("GET", "/api/tasks/events".to_owned()),
        ("GET", format!("/api/artifacts/{digest}")),
        ("GET", "/pkg/agent-taskbay.css".to_owned()),
        ("GET", "/healthz".to_owned()),
        ("GET", "/metrics".to_owned()),
        ("POST", "/api/agents".to_owned()),
    ];
    for (method, uri) in &routes {
        // The rebinding page's own fetches are same-origin to it: its Origin matches its Host.
        let answer = send(
            &state,
            method,
            uri,
            &[
                ("host", &evil_host),
                ("origin", &evil_origin),
                ("sec-fetch-site", "same-origin"),
                ("content-type", "application/x-www-form-urlencoded"),
            ],
            "",
        )
        .await;
        assert_eq!(answer.status, StatusCode::MISDIRECTED_REQUEST, "{method} {uri}");
        assert!(
            answer.body.contains(MISDIRECTED),
            "{method} {uri}: {}",
            answer.body
        );
        assert!(
            !answer.body.contains('<'),
            "nothing rendered for {uri}: {}",
            answer.body
        );
        assert_eq!(answer.header("cache-control"), "no-store");
        // The other security headers wrap the refusal too.
        assert_eq!(answer.header("x-content-type-options"), "nosniff");
    }
    for host in [
        format!("127.0.0.1:{}", port + 1),
        "127.0.0.1".to_owned(),
        format!("localhost.:{port}"),
        format!("attacker@127.0.0.1:{port}"),
    ] {
        let answer = send(&state, "GET", "/api/tasks", &[("host", &host)], Body::empty()).await;
        assert_eq!(answer.status, StatusCode::MISDIRECTED_REQUEST, "{host}");
    }
    assert_eq!(agent_count(&state).await, 0);
}

#[tokio::test]
async fn the_console_answers_to_its_loopback_names_and_its_public_origin() {
    let (state, _db) = support::app_with(&[("A2A_AUTH_ORIGIN", "https://taskbay.example")]).await;
    let port = state.leptos_options.site_addr.port();
    for host in [
        format!("127.0.0.1:{port}"),
        format!("localhost:{port}"),
        format!("[::1]:{port}"),
        "taskbay.example".to_owned(),
    ] {
        let answer = send(&state, "GET", "/api/tasks", &[("host", &host)], Body::empty()).await;
        assert_eq!(answer.status, StatusCode::OK, "{host}: {}", answer.body);
    }
    // Behind the proxy, the browser's own POSTs carry the public origin.
    let answer = send(
        &state,
        "POST",
        "/api/agents",
        &[
            ("host", "taskbay.example"),
            ("origin", "https://taskbay.example"),
            ("sec-fetch-site", "same-origin"),
        ],
        json!({"cardUrl": "https://agent.example/card.json"}).to_string(),
    )
    .await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.body);
}

#[tokio::test]
async fn a_cross_site_form_post_to_a_server_function_is_refused_and_stores_nothing() {
    let (state, _db) = support::app().await;
    let form = "card_url=http%3A%2F%2F127.0.0.1%3A9%2Fa%2Fcard.json";
    for (function, headers) in [
        // A plain HTML form on another site.
        (
            "register_agent",
            &[
                ("origin", "https://evil.example"),
                ("sec-fetch-site", "cross-site"),
                ("content-type", "application/x-www-form-urlencoded"),
            ][..],
        ),
        // Another port of localhost: same site, not the same origin.
        (
            "register_agent",
            &[
                ("origin", "http://localhost:8080"),
                ("sec-fetch-site", "same-site"),
                ("content-type", "application/x-www-form-urlencoded"),
            ],
        ),
        // A browser that sends Sec-Fetch-Site but hides Origin is not vouched for.
        (
            "register_agent",
            &[
                ("sec-fetch-site", "cross-site"),
                ("content-type", "application/x-www-form-urlencoded"),
            ],
        ),
    ] {
        let answer = send(&state, "POST", &format!("/api/fn/{function}"), headers, form).await;
        assert_eq!(
            (answer.status, answer.json()["error"]["message"].as_str()),
            (StatusCode::FORBIDDEN, Some(NOT_PERMITTED)),
            "{headers:?}"
        );
    }
    assert_eq!(agent_count(&state).await, 0, "nothing was registered");

    // The console's own form post goes through.
    let own = own(&state);
    let answer = send(
        &state,
        "POST",
        "/api/fn/register_agent",
        &[
            ("origin", &own),
            ("sec-fetch-site", "same-origin"),
            ("content-type", "application/x-www-form-urlencoded"),
        ],
        form,
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    assert_eq!(agent_count(&state).await, 1);
}

#[tokio::test]
async fn a_text_plain_body_never_reaches_a_json_server_function() {
    let (state, _db) = support::app().await;
    let body = json!({"agent_id": "x", "pin": null}).to_string();
    // Cross-site: refused by the origin rule before anything else.
    let cross = send(
        &state,
        "POST",
        "/api/fn/set_interface_pin",
        &[
            ("origin", "https://evil.example"),
            ("sec-fetch-site", "cross-site"),
            ("content-type", "text/plain;charset=UTF-8"),
        ],
        body.clone(),
    )
    .await;
    assert_eq!(cross.status, StatusCode::FORBIDDEN);
    // Same origin but the wrong content type: the codec's type is required.
    let own = own(&state);
    for content_type in [
        "text/plain;charset=UTF-8",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
    ] {
        let answer = send(
            &state,
            "POST",
            "/api/fn/set_interface_pin",
            &[("origin", &own), ("content-type", content_type)],
            body.clone(),
        )
        .await;
        assert_eq!(
            (answer.status, answer.json()["error"]["message"].as_str()),
            (
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                Some("This function accepts only application/json.")
            ),
            "{content_type}"
        );
    }
    let missing = send(&state, "POST", "/api/fn/list_agents", &[], "").await;
    assert_eq!(
        missing.status,
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "{}",
        missing.body
    );
    // The right type passes the guard and reaches the function (which finds no such agent).
    let answer = send(
        &state,
        "POST",
        "/api/fn/set_interface_pin",
        &[("origin", &own), ("content-type", "application/json")],
        body,
    )
    .await;
    assert_ne!(
        answer.status,
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "{}",
        answer.body
    );
    assert_ne!(answer.status, StatusCode::FORBIDDEN, "{}", answer.body);
}

#[tokio::test]
async fn curl_without_origin_works_and_cross_site_api_mutations_are_refused() {
    let (state, _db) = support::app().await;
    let body = json!({"cardUrl": "http://127.0.0.1:9/a/card.json"}).to_string();
    let cross = send(
        &state,
        "POST",
        "/api/agents",
        &[("sec-fetch-site", "cross-site"), ("content-type", "text/plain")],
        body.clone(),
    )
    .await;
    cross.assert_error(StatusCode::FORBIDDEN, NOT_PERMITTED);
    let foreign = send(
        &state,
        "POST",
        "/api/agents",
        &[("origin", "https://evil.example")],
        body.clone(),
    )
    .await;
    foreign.assert_error(StatusCode::FORBIDDEN, NOT_PERMITTED);
    let remove = send(
        &state,
        "DELETE",
        "/api/agents/x",
        &[("origin", "https://evil.example")],
        Body::empty(),
    )
    .await;
    remove.assert_error(StatusCode::FORBIDDEN, NOT_PERMITTED);
    assert_eq!(agent_count(&state).await, 0);
    // A cross-site read is not a mutation (the browser keeps its answer from the page).
    let read = send(
        &state,
        "GET",
        "/api/tasks",
        &[("sec-fetch-site", "cross-site")],
        Body::empty(),
    )
    .await;
    assert_eq!(read.status, StatusCode::OK);
    // curl sends neither Origin nor Sec-Fetch-Site.
    let curl = send(
        &state,
        "POST",
        "/api/agents",
        &[("content-type", "application/json")],
        body,
    )
    .await;
    assert_eq!(curl.status, StatusCode::CREATED, "{}", curl.body);
}

#[tokio::test]
async fn server_functions_are_bounded_and_declared() {
    let (state, _db) = support::app().await;
    let own = own(&state);
    let too_long = (SERVER_FN_BODY_LIMIT + 1).to_string();
    let declared = send(
        &state,
        "POST",
        "/api/fn/send_message",
        &[
            ("origin", &own),
            ("content-type", "application/json"),
            ("content-length", &too_long),
        ],
        "{}",
    )
    .await;
    assert_eq!(
        (declared.status, declared.json()["error"]["message"].as_str()),
        (StatusCode::PAYLOAD_TOO_LARGE, Some(BODY_TOO_LARGE))
    );
    // A body sent without a length that runs over the limit: 413 as well, not a 500.
    let chunks = futures::stream::iter(
        (0..17).map(|_| Ok::<_, std::io::Error>(bytes::Bytes::from(vec![b' '; 1024 * 1024]))),
    );
    let streamed = send(
        &state,
        "POST",
        "/api/fn/send_message",
        &[("origin", &own), ("content-type", "application/json")],
        Body::from_stream(chunks),
    )
    .await;
    assert_eq!(
        streamed.status,
        StatusCode::PAYLOAD_TOO_LARGE,
        "{}",
        streamed.body
    );
    let unknown = send(
        &state,
        "POST",
        "/api/fn/drop_database",
        &[("origin", &own), ("content-type", "application/json")],
        "{}",
    )
    .await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);
}
