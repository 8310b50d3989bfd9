//! Issue #26 "Errors that leak": refusals say which rule refused, never what the network
//! answered (`shared/spec/security-and-durability.md` §2.3 step 8: "The underlying cause is
//! hidden on purpose"). A refused name never shows its DNS answer, and card discovery gives one
//! message whether the port is closed, silent or answering HTTP errors, so the preview cannot
//! be used to scan ports.

use std::time::Duration;

use axum::http::StatusCode;
use axum::response::IntoResponse;
use serde_json::json;
use server::config::OutboundConfig;
use server::gateway::Gateway;

use crate::client::post;
use crate::support;

const LOOPBACK_REFUSED: &str = "Agent destination localhost is not permitted: loopback addresses are blocked unless A2A_ALLOW_PRIVATE_NETWORKS=true.";

/// The exact discovery failure for `<origin>/agent`: every candidate, in order.
fn discovery_failed(origin: &str) -> String {
    let tried = [
        "/agent/.well-known/agent-card.json",
        "/.well-known/agent-card.json",
        "/agent",
        "/.well-known/agent.json",
    ]
    .map(|path| format!("{origin}{path}"));
    format!("Agent Card discovery failed. Tried: {}", tried.join(", "))
}

/// No IP address, DNS answer, status code or transport detail in a user-facing message.
fn assert_says_nothing_of_the_network(message: &str) {
    for leak in [
        "127.0.0.1 (",
        "(127.",
        "::1",
        "HTTP",
        "did not answer",
        "network request failed",
        "timed out",
        "refused (",
        "not JSON",
    ] {
        assert!(!message.contains(leak), "{leak:?} in {message:?}");
    }
}

#[tokio::test]
async fn a_refused_name_is_reported_by_rule_without_its_dns_answer() {
    let (state, _db) = support::app().await;
    let origin = support::demo().await;
    let port = origin.rsplit(':').next().unwrap();
    let card_url = format!("http://localhost:{port}/form/card.json");
    let reply = post(&state, "/api/agents/preview", json!({"cardUrl": card_url}), &[]).await;
    reply.assert_error(StatusCode::BAD_GATEWAY, LOOPBACK_REFUSED);
    assert!(!reply.body.contains("127.0.0.1"), "{}", reply.body);
    assert_says_nothing_of_the_network(&reply.body);
}

/// A port that accepts connections and never answers.
async fn silent_origin() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            held.push(socket);
        }
    });
    origin
}

fn closed_origin() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    origin
}

#[tokio::test]
async fn closed_silent_and_erroring_ports_give_the_same_discovery_message() {
    let status =
        support::serve(axum::Router::new().fallback(|| async {
            (StatusCode::INTERNAL_SERVER_ERROR, "db.corp 10.0.0.5 down").into_response()
        }))
        .await;
    let not_json = support::serve(axum::Router::new().fallback(|| async { "SSH-2.0-OpenSSH_9.6" })).await;
    let gateway = Gateway::new(&OutboundConfig {
        allow_private_networks: true,
        allowed_origins: Vec::new(),
        ..OutboundConfig::default()
    })
    .unwrap()
    .with_timeout(Duration::from_secs(1));
    for origin in [closed_origin(), silent_origin().await, status, not_json] {
        let error = gateway
            .discover_card(&format!("{origin}/agent"))
            .await
            .unwrap_err();
        let message = error.to_string();
        assert_eq!(message, discovery_failed(&origin), "{origin}");
        assert_says_nothing_of_the_network(&message);
        assert!(!message.contains("10.0.0.5"), "{message}");
    }
}

#[tokio::test]
async fn the_preview_route_answers_a_closed_port_and_an_http_error_alike() {
    let (state, _db) = support::app_with(&[("A2A_ALLOW_PRIVATE_NETWORKS", "true")]).await;
    let status = support::serve(axum::Router::new().fallback(|| async { StatusCode::FORBIDDEN })).await;
    for origin in [closed_origin(), status] {
        let reply = post(
            &state,
            "/api/agents/preview",
            json!({"cardUrl": format!("{origin}/agent")}),
            &[],
        )
        .await;
        reply.assert_error(StatusCode::BAD_GATEWAY, &discovery_failed(&origin));
        assert_says_nothing_of_the_network(&reply.body);
    }
}
