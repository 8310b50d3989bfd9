//! Agent cards seen again and again (issue #26): an unchanged card is stored once, and an
//! interface on another origin than the card is used only under the interface-origin rule.

use server::store::access::Access;
use std::sync::{Arc, Mutex};

use axum::Json;
use axum::routing::get;
use serde_json::{Value, json};
use server::config::OutboundConfig;
use server::gateway::Gateway;
use server::gateway::interface_rule::{self, NetClass};
use server::services::agents;
use server::store::agents::{self as agent_store, AgentSource};
use server::store::{card_snapshots, organizations};
use server::vault::Vault;

use crate::support;

/// Serves `/card.json` from a card the test can change; returns the origin and the card.
async fn card_server(card: Value) -> (String, Arc<Mutex<Value>>) {
    let shared = Arc::new(Mutex::new(card));
    let served = shared.clone();
    let router = axum::Router::new().route(
        "/card.json",
        get(move || {
            let served = served.clone();
            async move { Json(served.lock().unwrap().clone()) }
        }),
    );
    (support::serve(router).await, shared)
}

fn card(name: &str, interface_url: &str) -> Value {
    json!({
        "name": name,
        "description": "A card the test changes.",
        "version": "1.0.0",
        "supportedInterfaces": [{"url": interface_url, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "capabilities": {},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": []
    })
}

fn gateway() -> Gateway {
    Gateway::new(&OutboundConfig {
        allow_private_networks: true,
        allowed_origins: vec![],
        ..OutboundConfig::default()
    })
    .unwrap()
}

/// Issue #26: "Store a snapshot only when its digest changes": ten views of an unchanged card
/// store one snapshot; a changed card stores a second. On every store backend.
#[tokio::test]
async fn an_unchanged_card_is_stored_once_and_a_changed_one_again() {
    let (origin, shared) = card_server(json!({})).await;
    *shared.lock().unwrap() = card("Before", &format!("{origin}/a2a"));
    for test_db in support::backends().await {
        let db = test_db.migrated().await;
        let org = organizations::local(&db).await.unwrap().id;
        let agent = agent_store::register(&db, &org, &format!("{origin}/card.json"), AgentSource::Managed)
            .await
            .unwrap();
        for _ in 0..10 {
            let detail = agents::detail(
                &db,
                &gateway(),
                &Vault::default(),
                agent.clone(),
                &Access::everything(agent.organization_id.as_str()),
            )
            .await
            .unwrap();
            assert_eq!(detail.error, None, "{}", test_db.name);
        }
        assert_eq!(
            card_snapshots::count(&db, &agent.id).await.unwrap(),
            1,
            "{}",
            test_db.name
        );
        let summaries = agents::list_summaries(
            &db,
            &gateway(),
            &Vault::default(),
            &Access::everything(org.as_str()),
        )
        .await
        .unwrap();
        assert_eq!(summaries.len(), 1);
        assert_eq!(
            card_snapshots::count(&db, &agent.id).await.unwrap(),
            1,
            "{}",
            test_db.name
        );

        *shared.lock().unwrap() = card("After", &format!("{origin}/a2a"));
        agents::detail(
            &db,
            &gateway(),
            &Vault::default(),
            agent.clone(),
            &Access::everything(agent.organization_id.as_str()),
        )
        .await
        .unwrap();
        agents::detail(
            &db,
            &gateway(),
            &Vault::default(),
            agent.clone(),
            &Access::everything(agent.organization_id.as_str()),
        )
        .await
        .unwrap();
        assert_eq!(
            card_snapshots::count(&db, &agent.id).await.unwrap(),
            2,
            "{}",
            test_db.name
        );
        let latest = card_snapshots::latest(&db, &agent.id).await.unwrap().unwrap();
        assert_eq!(latest.raw_card_json["name"], "After", "{}", test_db.name);
        *shared.lock().unwrap() = card("Before", &format!("{origin}/a2a"));
        db.close().await;
        test_db.cleanup().await;
    }
}

/// A free loopback port nobody listens on.
fn unused_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Issue #26, interface-origin rule: a card on 127.0.0.1 may point at another 127.0.0.1 port
/// (both internal); the same card served from a public origin may not.
#[tokio::test]
async fn an_interface_on_another_internal_origin_needs_an_internal_card() {
    let interface = format!("http://127.0.0.1:{}/a2a", unused_port());
    let (origin, _card) = card_server(card("Split origins", &interface)).await;
    let test_db = support::sqlite();
    let db = test_db.migrated().await;
    let org = organizations::local(&db).await.unwrap().id;
    let agent = agent_store::register(&db, &org, &format!("{origin}/card.json"), AgentSource::Managed)
        .await
        .unwrap();
    let preview = agents::discover(&db, &gateway(), &Vault::default(), &agent)
        .await
        .unwrap();
    assert_eq!(
        preview.report.refused_interfaces().count(),
        0,
        "{:?}",
        preview.report
    );

    let endpoint = agents::endpoint(&db, &agent).await.unwrap();
    assert_eq!(endpoint.url.as_str(), interface);

    // The card's origin classified as public: its internal interface is refused.
    let card_origin = url::Url::parse(&origin).unwrap().origin();
    let public_card = |url: url::Url| {
        let card_origin = card_origin.clone();
        async move {
            if url.origin() == card_origin {
                NetClass::Public
            } else {
                interface_rule::literal_class(&url).unwrap_or(NetClass::Public)
            }
        }
    };
    let error = agents::endpoint_with(&db, &agent, public_card).await.unwrap_err();
    assert!(matches!(error, agents::AgentServiceError::InterfaceRefused(_)));
    let port = url::Url::parse(&interface).unwrap().port().unwrap();
    assert_eq!(
        error.to_string(),
        format!(
            "The console will not call this interface: http://127.0.0.1:{port} is on another origin than the \
             Agent Card and in a private or loopback range, while the card's origin is not."
        )
    );
    db.close().await;
}

/// Issue #26: an interface on an origin outside `A2A_ALLOWED_AGENT_ORIGINS` is refused, and the
/// agent page and the compliance report say so.
#[tokio::test]
async fn the_agent_page_and_the_report_show_a_refused_interface() {
    let port = unused_port();
    let interface = format!("http://127.0.0.1:{port}/a2a");
    let (origin, _card) = card_server(card("Elsewhere", &interface)).await;
    let (state, _db) = support::app_with(&[
        ("A2A_ALLOW_PRIVATE_NETWORKS", "true"),
        ("A2A_ALLOWED_AGENT_ORIGINS", &origin),
    ])
    .await;
    let org = organizations::local(&state.db).await.unwrap().id;
    let agent = agent_store::register(
        &state.db,
        &org,
        &format!("{origin}/card.json"),
        AgentSource::Managed,
    )
    .await
    .unwrap();
    let refusal = format!(
        "The console will not call this interface: http://127.0.0.1:{port} is on another origin than the \
         Agent Card and not in the origin allowlist (A2A_ALLOWED_AGENT_ORIGINS)."
    );

    let detail = agents::detail(
        &state.db,
        &state.gateway,
        &state.vault,
        agent.clone(),
        &Access::everything(agent.organization_id.as_str()),
    )
    .await
    .unwrap();
    let report = detail.report.expect("a report");
    let refused: Vec<_> = report.refused_interfaces().collect();
    assert_eq!(refused.len(), 1, "{report:?}");
    assert_eq!(refused[0].message, refusal);
    assert_eq!(refused[0].path, "supportedInterfaces[0].url");
    assert_eq!(refused[0].severity, app::a2a::Severity::Error);

    let response = support::get(&state, &format!("/agents/{}", agent.id)).await;
    assert_eq!(response.status(), 200);
    let html = support::text(response).await;
    assert!(html.contains(r#"aria-label="Refused interfaces""#), "{html}");
    assert!(html.contains(&refusal), "{html}");

    // Without the allowlist the same page shows no refusal: both origins are on loopback.
    let (open, _db) = support::app_with(&[("A2A_ALLOW_PRIVATE_NETWORKS", "true")]).await;
    let org = organizations::local(&open.db).await.unwrap().id;
    let agent = agent_store::register(
        &open.db,
        &org,
        &format!("{origin}/card.json"),
        AgentSource::Managed,
    )
    .await
    .unwrap();
    let html = support::text(support::get(&open, &format!("/agents/{}", agent.id)).await).await;
    assert!(html.contains("<h1>Elsewhere</h1>"), "{html}");
    assert!(!html.contains("Refused interfaces"), "{html}");
}
