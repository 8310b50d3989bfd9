//! The agent services against the real demo agent over HTTP: preview, discovery into
//! snapshots (on every store backend), reachability, and the endpoint a pin selects.

use app::a2a::{Binding, CardVersion, InterfacePin, ProtocolVersion, Transport};
use server::config::OutboundConfig;
use server::demo_agent;
use server::gateway::Gateway;
use server::services::agents::{self, AgentServiceError};
use server::store::access::Access;
use server::store::agents::{self as agent_store, AgentSource};
use server::store::{card_snapshots, organizations};
use server::vault::Vault;

use crate::support::{self, get, send, text};

/// Serves the demo agent on an ephemeral loopback port; returns its origin.
async fn demo() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, demo_agent::router()).await.unwrap() });
    origin
}

fn gateway(allow_private_networks: bool) -> Gateway {
    Gateway::new(&OutboundConfig {
        allow_private_networks,
        allowed_origins: vec![],
        ..OutboundConfig::default()
    })
    .unwrap()
}

#[tokio::test]
async fn preview_reports_the_card_and_its_compliance_without_storing() {
    let origin = demo().await;
    let preview = agents::preview_card(&gateway(true), &format!("{origin}/showcase/card.json"))
        .await
        .unwrap();
    assert_eq!(preview.card.name, "Form fixture (showcase)");
    assert_eq!(preview.resolved_url, format!("{origin}/showcase/card.json"));
    assert_eq!(preview.report.version, CardVersion::V1_0);
    assert!(preview.report.score > 0 && preview.report.score <= 100);
    assert_eq!(preview.digest.len(), 64);

    let legacy = agents::preview_card(&gateway(true), &format!("{origin}/legacy"))
        .await
        .unwrap();
    assert_eq!(
        legacy.resolved_url,
        format!("{origin}/legacy/.well-known/agent-card.json"),
        "discovery fallback"
    );
    assert_eq!(legacy.report.version, CardVersion::V0_3);
}

#[tokio::test]
async fn preview_refuses_loopback_unless_private_networks_are_allowed() {
    let origin = demo().await;
    let error = agents::preview_card(&gateway(false), &format!("{origin}/form/card.json"))
        .await
        .unwrap_err();
    let message = error.to_string();
    assert!(
        message.contains("loopback addresses are blocked unless A2A_ALLOW_PRIVATE_NETWORKS=true"),
        "{message}"
    );
}

#[tokio::test]
async fn discovery_records_a_snapshot_and_reachability_on_every_backend() {
    let origin = demo().await;
    for test_db in support::backends().await {
        let db = test_db.migrated().await;
        let org = organizations::local(&db).await.unwrap().id;
        let url = format!("{origin}/form/card.json");
        let agent = agent_store::register(&db, &org, &url, AgentSource::Managed)
            .await
            .unwrap();
        assert!(
            matches!(
                agents::endpoint(&db, &agent).await,
                Err(AgentServiceError::NoCard)
            ),
            "{}",
            test_db.name
        );

        agents::discover(&db, &gateway(true), &Vault::default(), &agent)
            .await
            .unwrap();
        let agent = agent_store::find_by_url(&db, &org, &url).await.unwrap();
        assert_eq!(
            agent.display_name.as_deref(),
            Some("Form fixture (form)"),
            "{}",
            test_db.name
        );
        assert_eq!(agent.protocol_version.as_deref(), Some("1.0"));
        assert!(agent.last_healthy_at.is_some() && agent.last_error.is_none());
        let snapshot = card_snapshots::latest(&db, &agent.id)
            .await
            .unwrap()
            .expect("snapshot stored");
        assert_eq!(snapshot.raw_card_json["name"], "Form fixture (form)");
        assert_eq!(snapshot.compliance_json["version"], "1.0", "{}", test_db.name);
        assert_eq!(snapshot.signature_status, "unsigned");

        let endpoint = agents::endpoint(&db, &agent).await.unwrap();
        assert_eq!(endpoint.url.as_str(), format!("{origin}/form/a2a"));
        assert_eq!(
            (endpoint.transport, endpoint.version),
            (Transport::JsonRpc, ProtocolVersion::V1_0)
        );

        let pin = InterfacePin {
            binding: Some(Binding::HttpJson),
            ..InterfacePin::default()
        };
        let agent =
            agent_store::set_interface_pin(&db, &org, &agent.id, Some(serde_json::to_value(&pin).unwrap()))
                .await
                .unwrap();
        let endpoint = agents::endpoint(&db, &agent).await.unwrap();
        assert_eq!(
            endpoint.url.as_str(),
            format!("{origin}/form/rest"),
            "{}: the pin selects HTTP+JSON",
            test_db.name
        );

        let grpc = InterfacePin {
            binding: Some(Binding::Grpc),
            ..InterfacePin::default()
        };
        let agent =
            agent_store::set_interface_pin(&db, &org, &agent.id, Some(serde_json::to_value(&grpc).unwrap()))
                .await
                .unwrap();
        let error = agents::endpoint(&db, &agent).await.unwrap_err();
        assert_eq!(
            error.to_string(),
            "gRPC transport is unavailable under the hardened network policy; advertise an HTTP binding."
        );
        db.close().await;
        test_db.cleanup().await;
    }
}

#[tokio::test]
async fn a_legacy_agent_is_called_over_0_3() {
    let origin = demo().await;
    let test_db = support::sqlite();
    let db = test_db.migrated().await;
    let org = organizations::local(&db).await.unwrap().id;
    let agent = agent_store::register(&db, &org, &format!("{origin}/legacy"), AgentSource::Managed)
        .await
        .unwrap();
    agents::discover(&db, &gateway(true), &Vault::default(), &agent)
        .await
        .unwrap();
    let endpoint = agents::endpoint(&db, &agent).await.unwrap();
    assert_eq!(endpoint.version, ProtocolVersion::V0_3);
    db.close().await;
}

#[tokio::test]
async fn a_failed_discovery_is_recorded_on_the_agent() {
    let test_db = support::sqlite();
    let db = test_db.migrated().await;
    let org = organizations::local(&db).await.unwrap().id;
    // A port nobody listens on: bind, read the port, close.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}/gone/card.json");
    let agent = agent_store::register(&db, &org, &url, AgentSource::Managed)
        .await
        .unwrap();
    agents::discover(&db, &gateway(true), &Vault::default(), &agent)
        .await
        .unwrap_err();
    let agent = agent_store::find_by_url(&db, &org, &url).await.unwrap();
    assert!(agent.last_discovery_at.is_some());
    assert!(agent.last_healthy_at.is_none());
    assert!(
        agent.last_error.as_deref().is_some_and(|e| !e.is_empty()),
        "{:?}",
        agent.last_error
    );
    assert!(
        card_snapshots::latest(&db, &agent.id).await.unwrap().is_none(),
        "no snapshot for a failure"
    );
    db.close().await;
}

#[tokio::test]
async fn the_agents_screen_lists_agents_with_live_reachability() {
    let origin = demo().await;
    let (state, _db) = support::app_with(&[("A2A_ALLOW_PRIVATE_NETWORKS", "true")]).await;
    let org = organizations::local(&state.db).await.unwrap().id;
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    agent_store::register(
        &state.db,
        &org,
        &format!("{origin}/form/card.json"),
        AgentSource::Managed,
    )
    .await
    .unwrap();
    agent_store::register(
        &state.db,
        &org,
        &format!("http://127.0.0.1:{port}/gone/card.json"),
        AgentSource::Env,
    )
    .await
    .unwrap();

    // Server-rendered page: both rows, one reachable, one with the discovery error.
    let html = text(get(&state, "/agents").await).await;
    assert!(html.contains("Form fixture (form)</a></p>"), "{html}");
    assert!(html.contains("v1.0.0 · A2A 1.0 · no auth"), "{html}");
    assert!(
        html.contains("Unreachable agent") && html.contains("Agent Card discovery failed."),
        "{html}"
    );
    // The controls that write are there at once; the forms they open are not rendered until
    // they are opened.
    assert!(
        html.contains(r#"aria-expanded="false""#) && html.contains(">Add agent</button>"),
        "{html}"
    );
    assert_eq!(
        html.matches(">Remove</button>").count(),
        1,
        "only the managed agent: {html}"
    );
    assert!(!html.contains("Agent Card URL"), "{html}");

    // The server function the hydrated page calls returns the same rows as JSON.
    let request = axum::http::Request::post("/api/fn/list_agents")
        .header("content-type", "application/x-www-form-urlencoded")
        .body(axum::body::Body::empty())
        .unwrap();
    let response = send(&state, request).await;
    assert_eq!(response.status(), 200);
    let rows: Vec<serde_json::Value> = serde_json::from_str(&text(response).await).unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(
        (rows[0]["name"].as_str(), rows[0]["removable"].as_bool()),
        (Some("Form fixture (form)"), Some(true))
    );
    assert_eq!(
        (rows[1]["name"].as_str(), rows[1]["removable"].as_bool()),
        (None, Some(false))
    );
    assert!(
        rows[1]["error"]
            .as_str()
            .unwrap()
            .starts_with("Agent Card discovery failed.")
    );

    // Each listing records a snapshot for the reachable agent.
    let agent = agent_store::find_by_url(&state.db, &org, &format!("{origin}/form/card.json"))
        .await
        .unwrap();
    assert!(
        card_snapshots::latest(&state.db, &agent.id)
            .await
            .unwrap()
            .is_some()
    );
}

async fn call(state: &server::AppState, function: &str, form: &str) -> (u16, serde_json::Value) {
    let request = axum::http::Request::post(format!("/api/fn/{function}"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(axum::body::Body::from(form.to_owned()))
        .unwrap();
    let response = send(state, request).await;
    let status = response.status().as_u16();
    let body = text(response).await;
    (
        status,
        serde_json::from_str(&body).unwrap_or(serde_json::Value::String(body)),
    )
}

fn form_url(url: &str) -> String {
    format!(
        "card_url={}",
        url::form_urlencoded::byte_serialize(url.as_bytes()).collect::<String>()
    )
}

#[tokio::test]
async fn add_agent_previews_then_registers_and_remove_keeps_env_agents() {
    let origin = demo().await;
    let showcase = format!("{origin}/showcase/card.json");
    let seeded = format!("{origin}/form/card.json");
    let (state, _db) = support::app_with(&[("A2A_ALLOW_PRIVATE_NETWORKS", "true")]).await;
    let org = organizations::local(&state.db).await.unwrap().id;
    let env_agent = agent_store::register(&state.db, &org, &seeded, AgentSource::Env)
        .await
        .unwrap();

    // Hostile or malformed URLs are refused with the original messages, before any request.
    let (status, body) = call(&state, "preview_agent", &form_url("ftp://example.com/card.json")).await;
    assert_eq!(status, 400);
    assert_eq!(
        body["Invalid"]["message"], "Agent Card URL must be http(s).",
        "{body}"
    );
    let (_, body) = call(
        &state,
        "preview_agent",
        &form_url("http://u:p@127.0.0.1/card.json"),
    )
    .await;
    assert_eq!(
        body["Invalid"]["message"],
        "Agent Card URL must not contain credentials, query strings or fragments."
    );
    let (_, body) = call(&state, "preview_agent", "card_url=").await;
    assert_eq!(body["Invalid"]["message"], "cardUrl is required.");

    // The preview reports the card and its compliance without registering it.
    let (status, preview) = call(&state, "preview_agent", &form_url(&showcase)).await;
    assert_eq!(status, 200, "{preview}");
    assert_eq!(preview["name"], "Form fixture (showcase)");
    assert_eq!(preview["report"]["version"], "1.0");
    assert!(preview["report"]["score"].as_u64().unwrap() <= 100);
    assert_eq!(
        agent_store::list(&state.db, &Access::everything(org.as_str()))
            .await
            .unwrap()
            .len(),
        1,
        "a preview registers nothing"
    );

    // Connect registers it once, however often it is sent.
    let (status, id) = call(&state, "register_agent", &form_url(&showcase)).await;
    assert_eq!(status, 200, "{id}");
    let (_, again) = call(&state, "register_agent", &form_url(&showcase)).await;
    assert_eq!(id, again);
    let agent = agent_store::find_by_url(&state.db, &org, &showcase)
        .await
        .unwrap();
    assert_eq!(
        agent.display_name.as_deref(),
        Some("Form fixture (showcase)"),
        "discovered on registration"
    );

    // Env-seeded agents cannot be removed; managed ones leave the list.
    let (status, body) = call(&state, "remove_agent", &format!("agent_id={}", env_agent.id)).await;
    assert_eq!(status, 409);
    assert_eq!(
        body["Conflict"],
        "This agent comes from A2A_REGISTERED_AGENTS and can't be removed from the UI."
    );
    let (status, _) = call(&state, "remove_agent", &format!("agent_id={}", agent.id)).await;
    assert_eq!(status, 200);
    let listed: Vec<_> = agent_store::list(&state.db, &Access::everything(org.as_str()))
        .await
        .unwrap()
        .into_iter()
        .map(|a| a.card_url)
        .collect();
    assert_eq!(listed, vec![seeded]);
    let (status, body) = call(&state, "remove_agent", "agent_id=no-such-agent").await;
    assert_eq!((status, body), (404, serde_json::json!("NotFound")));
}

#[tokio::test]
async fn the_agent_page_shows_the_card_and_falls_back_to_the_last_snapshot() {
    let origin = demo().await;
    let (state, _db) = support::app_with(&[("A2A_ALLOW_PRIVATE_NETWORKS", "true")]).await;
    let org = organizations::local(&state.db).await.unwrap().id;
    let agent = agent_store::register(
        &state.db,
        &org,
        &format!("{origin}/showcase/card.json"),
        AgentSource::Managed,
    )
    .await
    .unwrap();

    let response = get(&state, &format!("/agents/{}", agent.id)).await;
    assert_eq!(response.status(), 200);
    let html = text(response).await;
    assert!(html.contains("<h1>Form fixture (showcase)</h1>"), "{html}");
    for section in ["Capabilities", "Interfaces", "Skills", "Security"] {
        assert!(html.contains(&format!("<h2>{section}</h2>")), "{section} missing");
    }
    assert!(
        html.contains("https://extensions.allsrc.dev/agent-taskbay/structured-form/v1"),
        "{html}"
    );
    assert!(
        html.contains(&format!("<code>{origin}/showcase/a2a</code>")),
        "{html}"
    );

    // The agent goes away: the page shows why, with the card stored last time.
    let gone = format!("http://127.0.0.1:{}/gone/card.json", {
        std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port()
    });
    let (status, detail) = call(&state, "get_agent", &format!("agent_id={}", agent.id)).await;
    assert_eq!(status, 200);
    assert_eq!(detail["card"]["name"], "Form fixture (showcase)");
    let offline = agent_store::register(&state.db, &org, &gone, AgentSource::Managed)
        .await
        .unwrap();
    // The chat's view of the agent: the name and modes only, not the card.
    let (status, chat) = call(&state, "get_chat_agent", &format!("agent_id={}", agent.id)).await;
    assert_eq!(status, 200);
    assert_eq!(chat["id"], agent.id.as_str());
    assert_eq!(chat["name"], "Form fixture (showcase)");
    assert_eq!(
        chat["default_input_modes"], detail["card"]["defaultInputModes"],
        "{chat}"
    );
    assert!(
        chat["default_input_modes"]
            .as_array()
            .is_some_and(|m| !m.is_empty()),
        "{chat}"
    );
    // The name, the modes, whether credentials allow calling it and the starter prompts (the
    // skills' examples, issue #32): not the whole card.
    assert_eq!(chat.as_object().unwrap().len(), 6, "{chat}");
    assert_eq!(chat["credential"], "notRequired");
    assert_eq!(
        chat["starters"],
        serde_json::json!(["surface", "approve", "choose", "deploy billing-api"])
    );
    let (_, detail) = call(&state, "get_agent", &format!("agent_id={}", offline.id)).await;
    assert!(
        detail["error"]
            .as_str()
            .unwrap()
            .starts_with("Agent Card discovery failed."),
        "{detail}"
    );
    assert!(detail["card"].is_null());
    let (status, chat) = call(&state, "get_chat_agent", &format!("agent_id={}", offline.id)).await;
    assert_eq!(status, 200);
    assert_eq!(
        chat,
        serde_json::json!({"id": offline.id, "name": null, "default_input_modes": [], "default_output_modes": [],
                           "credential": "notRequired", "starters": []})
    );
    let (status, body) = call(&state, "get_chat_agent", "agent_id=no-such-agent").await;
    assert_eq!((status, body), (404, serde_json::json!("NotFound")));
    // A new chat starts from an empty conversation with the agent's name.
    let (status, chat) = call(&state, "get_new_conversation", &format!("agent_id={}", agent.id)).await;
    assert_eq!(status, 200);
    assert_eq!(
        chat,
        serde_json::json!({"conversationId": "", "agentId": agent.id, "agentName": "Form fixture (showcase)",
            "remoteContextId": null, "tasks": [], "commands": [], "lastSequence": 0})
    );
    let (status, chat) = call(
        &state,
        "get_new_conversation",
        &format!("agent_id={}", offline.id),
    )
    .await;
    assert_eq!(
        (status, &chat["agentName"]),
        (200, &serde_json::Value::Null),
        "{chat}"
    );
    let (status, body) = call(&state, "get_new_conversation", "agent_id=no-such-agent").await;
    assert_eq!((status, body), (404, serde_json::json!("NotFound")));

    let response = get(&state, "/agents/no-such-agent").await;
    assert_eq!(response.status(), 404);
    assert!(text(response).await.contains("Not found."));
}

/// Issue #32, inspector: the agent page has the card exactly as served, and each interface is
/// asked whether it answers (a task that does not exist: nothing changes at the agent).
#[tokio::test]
async fn the_agent_page_has_the_served_card_and_each_interface_s_reachability() {
    let origin = demo().await;
    let (state, _db) = support::app_with(&[("A2A_ALLOW_PRIVATE_NETWORKS", "true")]).await;
    let org = organizations::local(&state.db).await.unwrap().id;
    let card_url = format!("{origin}/showcase/card.json");
    let agent = agent_store::register(&state.db, &org, &card_url, AgentSource::Managed)
        .await
        .unwrap();
    let (status, detail) = call(&state, "get_agent", &format!("agent_id={}", agent.id)).await;
    assert_eq!(status, 200);
    let _ = rustls::crypto::ring::default_provider().install_default();
    let served = crate::processes::get_json(&reqwest::Client::new(), &card_url).await;
    assert_eq!(detail["raw_card"], served);
    assert_eq!(detail["resolved_url"], card_url.as_str());

    let (status, probes) = call(
        &state,
        "probe_agent_interfaces",
        &format!("agent_id={}", agent.id),
    )
    .await;
    assert_eq!(status, 200, "{probes}");
    let probes = probes.as_array().unwrap();
    let advertised = served["supportedInterfaces"].as_array().unwrap();
    assert_eq!(probes.len(), advertised.len(), "{probes:?}");
    for (probe, interface) in probes.iter().zip(advertised) {
        assert_eq!(probe["url"], interface["url"]);
        assert_eq!(probe["reachable"], true, "{probe}");
        assert!(
            probe["outcome"].as_str().unwrap().starts_with("Answered in "),
            "{probe}"
        );
        assert!(probe["latencyMs"].is_u64(), "{probe}");
    }

    // A card whose interface is on a port nobody listens on: not reachable, and why.
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let card = support::jsonrpc_card(&format!("http://127.0.0.1:{closed}"), "Gone agent", false);
    let card_origin = support::serve(axum::Router::new().route(
        "/card.json",
        axum::routing::get(move || {
            let card = card.clone();
            async move { axum::Json(card) }
        }),
    ))
    .await;
    let gone = register_fetched(&state, &org, &format!("{card_origin}/card.json")).await;
    let (_, probes) = call(&state, "probe_agent_interfaces", &format!("agent_id={}", gone.id)).await;
    assert_eq!(probes[0]["reachable"], false, "{probes}");
    assert_eq!(
        probes[0]["outcome"], "No answer: Agent network request failed.",
        "{probes}"
    );
    assert!(probes[0]["latencyMs"].is_null());
    let (status, body) = call(&state, "probe_agent_interfaces", "agent_id=no-such-agent").await;
    assert_eq!((status, body), (404, serde_json::json!("NotFound")));
}

/// §2.4 "shown but never called", for the reachability check too: with signatures required, an
/// unsigned card's interfaces are listed as not probed and the agent gets no request at all.
#[tokio::test]
async fn an_untrusted_card_is_never_probed_section_2_4() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let calls = Arc::new(AtomicUsize::new(0));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    let card = support::jsonrpc_card(&origin, "Unsigned agent", false);
    let counted = calls.clone();
    let router = axum::Router::new()
        .route(
            "/card.json",
            axum::routing::get(move || async move { axum::Json(card) }),
        )
        .route(
            "/a2a",
            axum::routing::post(move || {
                counted.fetch_add(1, Ordering::SeqCst);
                async { "{}" }
            }),
        );
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    let (state, _db) = support::app_with(&[
        ("A2A_ALLOW_PRIVATE_NETWORKS", "true"),
        ("A2A_REQUIRE_SIGNED_CARDS", "true"),
    ])
    .await;
    let org = organizations::local(&state.db).await.unwrap().id;
    let agent = register_fetched(&state, &org, &format!("{origin}/card.json")).await;
    let (status, probes) = call(
        &state,
        "probe_agent_interfaces",
        &format!("agent_id={}", agent.id),
    )
    .await;
    assert_eq!(status, 200, "{probes}");
    assert_eq!(probes[0]["url"], format!("{origin}/a2a"), "{probes}");
    assert_eq!(probes[0]["reachable"], false, "{probes}");
    assert_eq!(
        probes[0]["outcome"], "Not probed: Agent Card trust policy rejected this connection.",
        "{probes}"
    );
    assert_eq!(calls.load(Ordering::SeqCst), 0, "the agent was called");
}

/// Registers the card at `card_url` and has `get_agent` fetch and store it.
async fn register_fetched(
    state: &server::AppState,
    org: &str,
    card_url: &str,
) -> server::db::entity::agent::Model {
    let agent = agent_store::register(&state.db, org, card_url, AgentSource::Managed)
        .await
        .unwrap();
    let (status, detail) = call(state, "get_agent", &format!("agent_id={}", agent.id)).await;
    assert_eq!(status, 200, "{detail}");
    agent
}
