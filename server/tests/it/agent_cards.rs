//! Agent cards seen again and again (issue #26): an unchanged card is stored once.

use std::sync::{Arc, Mutex};

use axum::Json;
use axum::routing::get;
use serde_json::{Value, json};
use server::config::OutboundConfig;
use server::gateway::Gateway;
use server::services::agents;
use server::store::agents::{self as agent_store, AgentSource};
use server::store::{card_snapshots, organizations};

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
            let detail = agents::detail(&db, &gateway(), agent.clone()).await.unwrap();
            assert_eq!(detail.error, None, "{}", test_db.name);
        }
        assert_eq!(
            card_snapshots::count(&db, &agent.id).await.unwrap(),
            1,
            "{}",
            test_db.name
        );
        let summaries = agents::list_summaries(&db, &gateway()).await.unwrap();
        assert_eq!(summaries.len(), 1);
        assert_eq!(
            card_snapshots::count(&db, &agent.id).await.unwrap(),
            1,
            "{}",
            test_db.name
        );

        *shared.lock().unwrap() = card("After", &format!("{origin}/a2a"));
        agents::detail(&db, &gateway(), agent.clone()).await.unwrap();
        agents::detail(&db, &gateway(), agent.clone()).await.unwrap();
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
