//! Each kind of agent credential against a real agent over real HTTP(S)
//! (`shared/spec/security-and-durability.md` §2.1, §2.3): the demo agent's `apikey`, `bearer`,
//! `oauth` and `mtls` variants refuse a call without their credential and accept it with one;
//! OAuth tokens come from the agent's token endpoint (allowlisted), are fetched again after a
//! 401 or once expired; a client certificate of another CA is refused; and agent text that
//! echoes a secret is redacted from errors too.

use axum::http::StatusCode;
use serde_json::{Value, json};
use server::demo_agent::locked::{API_KEY, BEARER_TOKEN, OAUTH_CLIENT_SECRET};
use server::vault::Binding;

use crate::client::get;
use crate::credentials::{K1, app, bearer, completed_text, http, keys, put_binding, register, send};
use crate::support;

#[tokio::test]
async fn each_kind_is_refused_without_its_credential_and_accepted_with_it_section_2_1() {
    let origin = support::demo().await;
    let (state, _db) = app().await;
    let (_tracker, stop) = support::start_workers(&state);
    let oauth = json!({"type": "oauthClient", "issuer": origin, "tokenEndpoint": format!("{origin}/oauth/token"),
                       "clientId": "taskbay-demo", "clientSecret": OAUTH_CLIENT_SECRET, "scope": "a2a"});
    let cases = [
        (
            "apikey",
            json!({"type": "apiKey", "name": "X-API-Key", "value": API_KEY}),
            API_KEY,
        ),
        (
            "bearer",
            json!({"type": "bearer", "token": BEARER_TOKEN}),
            BEARER_TOKEN,
        ),
        ("oauth", oauth, OAUTH_CLIENT_SECRET),
    ];
    let http = http();
    for (variant, credential, secret) in cases {
        // The agent itself refuses an anonymous call, its name percent-encoded or not.
        let encoded = format!("%{:02X}{}", variant.as_bytes()[0], &variant[1..]);
        for name in [variant.to_owned(), encoded] {
            let anonymous = http
                .post(format!("{origin}/{name}/a2a"))
                .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "x"}}))
                .send()
                .await
                .unwrap();
            assert_eq!(anonymous.status(), StatusCode::UNAUTHORIZED, "{name}");
        }
        let agent = register(&state, &origin, variant).await;
        let before = get(&state, &format!("/api/agents/{agent}/credential"))
            .await
            .json();
        assert_eq!(
            (before["state"].as_str(), before["required"].as_bool()),
            (Some("needed"), Some(true)),
            "{before}"
        );
        assert_eq!(before["neededOrigins"], json!([origin]));
        // Fail closed: the send is refused before anything goes out.
        send(&state, &agent, "hello").await.assert_error(
            StatusCode::CONFLICT,
            "This agent requires credentials. An admin can add them on the agent's page.",
        );
        let stored = put_binding(
            &state,
            &agent,
            &json!({"origins": [origin], "credential": credential}),
        )
        .await;
        assert_eq!(stored.status, StatusCode::OK, "{}", stored.body);
        assert_eq!(stored.json()["state"], "stored");
        assert_eq!(stored.json()["stored"]["keyId"], "k1");
        assert!(!stored.body.contains(secret), "a stored value is never sent back");
        let answer = completed_text(&send(&state, &agent, "hello").await);
        assert!(answer.starts_with("Credential accepted"), "{variant}: {answer}");
    }
    stop.cancel();
}

#[tokio::test]
async fn oauth_tokens_come_from_the_allowed_endpoint_and_are_fetched_again_after_a_401() {
    let origin = support::demo().await;
    let elsewhere = support::demo().await;
    let (state, _db) = app().await;
    let (_tracker, stop) = support::start_workers(&state);
    let agent = register(&state, &origin, "oauth").await;
    let oauth = |endpoint: &str| {
        json!({"origins": [origin, elsewhere], "credential": {"type": "oauthClient", "issuer": origin,
               "tokenEndpoint": format!("{endpoint}/oauth/token"), "clientId": "taskbay-demo",
               "clientSecret": OAUTH_CLIENT_SECRET}})
    };
    let stats = || async {
        http()
            .get(format!("{origin}/oauth/stats"))
            .send()
            .await
            .unwrap()
            .json::<Value>()
            .await
            .unwrap()["issued"]
            .as_u64()
            .unwrap()
    };
    put_binding(&state, &agent, &oauth(&origin)).await;
    completed_text(&send(&state, &agent, "one").await);
    completed_text(&send(&state, &agent, "two").await);
    assert_eq!(
        stats().await,
        1,
        "the token is cached until shortly before it expires"
    );
    // The agent forgets its tokens: the cached one is refused, a new one is fetched once.
    http()
        .post(format!("{origin}/oauth/revoke"))
        .send()
        .await
        .unwrap();
    completed_text(&send(&state, &agent, "three").await);
    assert_eq!(stats().await, 2);
    // A token that expires at once (`expires_in: 0`) is not used again: each call fetches one.
    let mut expiring = oauth(&origin);
    expiring["credential"]["scope"] = json!("a2a ttl=0");
    put_binding(&state, &agent, &expiring).await;
    completed_text(&send(&state, &agent, "four").await);
    let after_four = stats().await;
    assert!(after_four > 2, "a new credential gets a new token");
    completed_text(&send(&state, &agent, "five").await);
    assert!(stats().await > after_four, "an expired token is fetched again");
    stop.cancel();
    // With an allowlist, the token endpoint's origin must be in it (here: only the agent's).
    let ring = keys(&[("k1", K1)]);
    let (strict, _db2) = support::app_with(&[
        ("A2A_ALLOW_PRIVATE_NETWORKS", "true"),
        ("A2A_ALLOWED_AGENT_ORIGINS", &origin),
        ("A2A_VAULT_KEYS", &ring),
        ("A2A_VAULT_ACTIVE_KEY", "k1"),
    ])
    .await;
    let (_tracker, stop) = support::start_workers(&strict);
    let agent = register(&strict, &origin, "oauth").await;
    put_binding(&strict, &agent, &oauth(&elsewhere)).await;
    send(&strict, &agent, "hello").await.assert_error(
        StatusCode::CONFLICT,
        "The OAuth token endpoint is not in the configured origin allowlist.",
    );
    stop.cancel();
}

/// The demo agent over TLS (its `mtls` variant's home) on an ephemeral port; its origin.
async fn tls_demo(pki: &server::demo_agent::tls::DemoPki) -> String {
    let tcp = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let origin = format!("https://{}", tcp.local_addr().unwrap());
    let listener = server::demo_agent::tls::TlsListener::new(tcp, pki).unwrap();
    let app = server::demo_agent::routes::tls_router_fresh()
        .into_make_service_with_connect_info::<server::demo_agent::tls::TlsPeer>();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    origin
}

#[tokio::test]
async fn a_client_certificate_opens_the_mtls_agent_and_another_ca_s_does_not_section_2_1() {
    use server::demo_agent::tls::DemoPki;
    let pki = DemoPki::generate().unwrap();
    let origin = tls_demo(&pki).await;
    let dir = tempfile::tempdir().unwrap();
    let ca = dir.path().join("ca.pem");
    std::fs::write(&ca, &pki.ca_cert).unwrap();
    let ring = keys(&[("k1", K1)]);
    let (state, _db) = support::app_with(&[
        ("A2A_ALLOW_PRIVATE_NETWORKS", "true"),
        ("A2A_EXTRA_CA_CERTS", ca.to_str().unwrap()),
        ("A2A_VAULT_KEYS", &ring),
        ("A2A_VAULT_ACTIVE_KEY", "k1"),
    ])
    .await;
    let (_tracker, stop) = support::start_workers(&state);
    let agent = register(&state, &origin, "mtls").await;
    assert_eq!(
        get(&state, &format!("/api/agents/{agent}/credential"))
            .await
            .json()["state"],
        "needed"
    );
    let binding = |cert: &str, key: &str| json!({"origins": [origin], "credential": {"type": "mtls", "cert": cert, "key": key}});
    // A certificate of another CA: the handshake is refused, nothing is answered.
    let stranger = DemoPki::generate().unwrap();
    put_binding(
        &state,
        &agent,
        &binding(&stranger.client_cert, &stranger.client_key),
    )
    .await;
    let refused = send(&state, &agent, "hello").await;
    assert_eq!(refused.status, StatusCode::CONFLICT, "{}", refused.body);
    // The demo CA's client certificate opens it (server certificates are still verified).
    let stored = put_binding(&state, &agent, &binding(&pki.client_cert, &pki.client_key)).await;
    assert_eq!(stored.json()["stored"]["kind"], "mtls");
    assert!(!stored.body.contains("PRIVATE KEY"), "{}", stored.body);
    completed_text(&send(&state, &agent, "hello").await);
    stop.cancel();

    // The agent itself refuses a caller without a client certificate (one that trusts its CA).
    let bare = crate::oidc::client_trusting(ca.to_str().unwrap());
    let anonymous = bare
        .post(format!("{origin}/mtls/a2a"))
        .header("content-type", "application/json")
        .body(r#"{"jsonrpc":"2.0","id":"1","method":"GetTask","params":{"id":"x"}}"#)
        .send()
        .await;
    assert_eq!(anonymous.unwrap().status(), StatusCode::UNAUTHORIZED);
    // A console that does not trust the agent's CA refuses its server certificate: the agent is
    // registered, but its card, which the first console read, cannot be fetched (server
    // certificates are always verified).
    let (untrusting, _other_db) = support::app_with(&[("A2A_ALLOW_PRIVATE_NETWORKS", "true")]).await;
    let reply = crate::client::post(
        &untrusting,
        "/api/agents",
        json!({"cardUrl": format!("{origin}/mtls/card.json")}),
        &[],
    )
    .await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.body);
    let id = reply.json()["agent"]["id"].as_str().unwrap().to_owned();
    get(&untrusting, &format!("/api/agents/{id}")).await.assert_error(
        StatusCode::BAD_GATEWAY,
        &format!("Agent Card discovery failed. Tried: {origin}/mtls/card.json"),
    );
}

#[tokio::test]
async fn a_secret_echoed_as_the_json_rpc_id_is_redacted_from_the_failure_section_2_3_step_8() {
    use axum::routing::{get as get_route, post as post_route};
    // A hostile agent: its card requires a bearer token, and it answers every call with the
    // token it received as the JSON-RPC id, which the console quotes when it refuses the answer.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    let mut card = support::jsonrpc_card(&origin, "Echo", false);
    card["securitySchemes"] = json!({"bearer": {"httpAuthSecurityScheme": {"scheme": "bearer"}}});
    card["securityRequirements"] = json!([{"schemes": {"bearer": {"list": []}}}]);
    let router = axum::Router::new()
        .route("/card.json", get_route(move || async move { axum::Json(card) }))
        .route(
            "/a2a",
            post_route(|headers: axum::http::HeaderMap| async move {
                let token = headers["authorization"]
                    .to_str()
                    .unwrap()
                    .trim_start_matches("Bearer ")
                    .to_owned();
                axum::Json(json!({"jsonrpc": "2.0", "id": token, "result": {}}))
            }),
        );
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    let binding = Binding::parse(bearer(&origin, "echoed-token-77").to_string().as_bytes()).unwrap();
    let gateway = server::gateway::Gateway::new(&server::config::OutboundConfig {
        allow_private_networks: true,
        ..Default::default()
    })
    .unwrap()
    .with_binding(binding)
    .unwrap();
    let endpoint = server::gateway::Endpoint {
        url: url::Url::parse(&format!("{origin}/a2a")).unwrap(),
        transport: app::a2a::Transport::JsonRpc,
        version: app::a2a::ProtocolVersion::V1_0,
        tenant: None,
    };
    // A dispatch records such a failure as uncertain and the workers log its text: the text
    // must not hold the token.
    let error = gateway
        .get_task(&endpoint, json!({"id": "t-1"}), &[])
        .await
        .unwrap_err();
    let shown = error.to_string();
    assert!(!shown.contains("echoed-token-77"), "{shown}");
    assert!(shown.contains("[redacted]"), "{shown}");
}
