//! Server-side rendering of the app shell through the real router.

use axum::body::Body;
use axum::http::{Request, StatusCode, header};

use crate::support::{self, get, send, text};

const SCREENS: [(&str, &str); 8] = [
    ("/agents", "Agents"),
    ("/chat", "Chat"),
    ("/inbox", "Inbox"),
    ("/approvals", "Approvals"),
    ("/tasks", "Tasks"),
    ("/flows", "Orchestration"),
    ("/notifications", "Notifications"),
    ("/settings", "Settings"),
];

#[tokio::test]
async fn every_screen_renders_on_the_server_with_hydration_scripts() {
    let (state, _db) = support::app().await;
    for (path, heading) in SCREENS {
        let response = get(&state, path).await;
        assert_eq!(response.status(), StatusCode::OK, "{path}");
        let html = text(response).await;
        assert!(html.contains(&format!("<h1>{heading}</h1>")), "{path}: {html}");
        assert!(
            html.contains(&format!("<title>{heading} · Agent Taskbay</title>")),
            "{path}"
        );
        // Leptos' hydration scripts, unhashed in a test build (no hash file beside the binary).
        assert!(
            html.contains(r#"<link rel="modulepreload" href="/pkg/agent-taskbay.js""#),
            "{path}: hydration script missing"
        );
        assert!(
            html.contains(r#"<link rel="preload" href="/pkg/agent-taskbay.wasm" as="fetch""#),
            "{path}: wasm preload missing"
        );
        assert!(
            html.contains(r#"<link id="leptos" rel="stylesheet" href="/pkg/agent-taskbay.css">"#),
            "{path}: stylesheet missing"
        );
        assert!(
            html.contains(r#"<link rel="preload" href="/fonts/inter-latin-wght-normal.woff2" as="font""#),
            "{path}: font preload missing"
        );
        // Notifications arrive with sign-in (a later issue).
        if path == "/notifications" {
            assert!(
                html.contains("Not built yet"),
                "{path}: placeholder must say plainly what is missing"
            );
        }
    }
}

#[tokio::test]
async fn responses_carry_security_headers() {
    let (state, _db) = support::app().await;
    let response = get(&state, "/agents").await;
    let headers = response.headers();
    assert_eq!(headers["x-content-type-options"], "nosniff");
    assert_eq!(headers["x-frame-options"], "DENY");
    assert_eq!(headers["referrer-policy"], "no-referrer");
    let csp = headers["content-security-policy"].to_str().unwrap().to_owned();
    assert!(
        csp.contains("frame-ancestors 'none'") && csp.contains("'wasm-unsafe-eval'"),
        "{csp}"
    );
}

/// Issue #26: scripts run only from the console's files or with the page's nonce.
#[tokio::test]
async fn pages_allow_inline_scripts_only_with_their_own_nonce() {
    let (state, _db) = support::app().await;
    let mut nonces = Vec::new();
    for _ in 0..2 {
        let response = get(&state, "/agents").await;
        let csp = response.headers()["content-security-policy"]
            .to_str()
            .unwrap()
            .to_owned();
        let html = text(response).await;
        let script_src = csp
            .split(';')
            .find(|d| d.trim().starts_with("script-src"))
            .unwrap()
            .to_owned();
        assert!(!script_src.contains("'unsafe-inline'"), "{csp}");
        let nonce = script_src
            .split_whitespace()
            .find_map(|source| source.strip_prefix("'nonce-")?.strip_suffix('\''))
            .unwrap_or_else(|| panic!("no nonce in {csp}"))
            .to_owned();
        assert!(nonce.len() >= 16, "{nonce}");
        // Every inline script of the page carries it.
        let scripts = html.matches("<script").count();
        assert!(scripts > 0);
        assert_eq!(
            html.matches(&format!("nonce=\"{nonce}\"")).count(),
            scripts,
            "{html}"
        );
        nonces.push(nonce);
    }
    assert_ne!(nonces[0], nonces[1], "a new nonce for every response");
    // Responses that are not pages allow no inline script at all.
    let api = get(&state, "/api/tasks").await;
    let csp = api.headers()["content-security-policy"].to_str().unwrap();
    assert!(csp.contains("script-src 'self' 'wasm-unsafe-eval';"), "{csp}");
}

#[tokio::test]
async fn root_redirects_to_chat() {
    let (state, _db) = support::app().await;
    let response = get(&state, "/").await;
    assert!(response.status().is_redirection(), "{}", response.status());
    assert_eq!(response.headers()[header::LOCATION], "/chat");
}

#[tokio::test]
async fn unknown_routes_are_404_pages() {
    let (state, _db) = support::app().await;
    let response = get(&state, "/no-such-screen").await;
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
    assert!(text(response).await.contains("Page not found"));
}

#[tokio::test]
async fn theme_cookie_is_rendered_on_first_paint() {
    let (state, _db) = support::app().await;
    let request = Request::get("/tasks")
        .header(header::COOKIE, "x=1; taskbay-theme=dark")
        .body(Body::empty())
        .unwrap();
    let html = text(send(&state, request).await).await;
    assert!(
        html.contains(r#"<html lang="en" data-theme="dark">"#),
        "{}",
        &html[..html.len().min(300)]
    );
    assert!(
        html.contains(r#"data-theme-choice="dark" title="Dark theme" aria-pressed="true""#),
        "{html}"
    );

    let html = text(get(&state, "/tasks").await).await;
    assert!(
        html.contains(r#"<html lang="en">"#),
        "no cookie follows the system theme"
    );
}

/// A conversation and a task page render on the server (with a multi-threaded runtime, as in
/// production, where a page's reactive owner may be cleaned up on another thread).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_conversation_and_its_task_render_on_the_server() {
    let (state, _db) = support::app().await;
    let org = server::store::organizations::local(&state.db).await.unwrap();
    let agent = server::store::agents::register(
        &state.db,
        &org.id,
        "http://127.0.0.1:9/card.json",
        server::store::agents::AgentSource::Managed,
    )
    .await
    .unwrap();
    let conversation = "00000000-0000-4000-8000-00000000abcd";
    let done = state
        .ingestor
        .ingest(&server::ingest::Observation {
            organization_id: org.id.clone(),
            agent_id: agent.id.clone(),
            tenant: String::new(),
            conversation_id: conversation.into(),
            local_task_id: None,
            source: server::ingest::Source::Command,
            source_key: Some("command:x".into()),
            payload: serde_json::json!({"message": {"messageId": "u", "role": "ROLE_USER", "taskId": "r1",
                "parts": [{"text": "Render me on the server"}]}}),
            extensions: vec![],
            protocol_version: None,
            skill_id: None,
            fence: None,
            rearm: false,
        })
        .await
        .unwrap();
    // The page itself, never the loading fallback: the message is in the rendered timeline,
    // not only in the resource data sent for hydration. Reading a browser-only resource during
    // the render used to make about half of these renders send "Loading…".
    for _ in 0..20 {
        let chat = get(&state, &format!("/chat/{conversation}")).await;
        assert_eq!(chat.status(), StatusCode::OK);
        let html = text(chat).await;
        assert!(!html.contains("Loading the conversation"), "{html}");
        assert!(
            html.contains(r#"<div class="content-text">Render me on the server</div>"#),
            "{html}"
        );
        let task = get(&state, &format!("/tasks/{}", done.task_id)).await;
        assert_eq!(task.status(), StatusCode::OK);
        let html = text(task).await;
        assert!(!html.contains("Loading the task"), "{html}");
        assert!(
            html.contains(r#"<div class="content-text">Render me on the server</div>"#),
            "{html}"
        );
    }
    // The composer and the task's Cancel are rendered on the server.
    let html = text(get(&state, &format!("/chat/{conversation}")).await).await;
    assert!(html.contains(r#"data-testid="composer-input""#), "{html}");
    assert!(html.contains(r#"data-testid="cancel-task""#), "{html}");
    assert!(!html.contains("data-deferred"), "{html}");
    let html = text(get(&state, &format!("/tasks/{}", done.task_id)).await).await;
    assert!(html.contains(r#"data-testid="cancel-task""#), "{html}");
    let missing = get(&state, "/tasks/00000000-0000-4000-8000-000000000404").await;
    assert_eq!(missing.status(), StatusCode::NOT_FOUND);
}

/// Pages that load data render completely under concurrent requests (a route list generated
/// while another page rendered used to stall that page forever: leptos-rs/leptos#4773).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_renders_of_data_pages_all_complete() {
    let (state, _db) = support::app().await;
    for path in ["/agents", "/chat", "/tasks", "/flows"] {
        let mut renders = Vec::new();
        for _ in 0..4 {
            let state = state.clone();
            renders.push(tokio::spawn(async move {
                for _ in 0..5 {
                    let html = text(get(&state, path).await).await;
                    assert!(
                        html.contains("__RESOLVED_RESOURCES"),
                        "{path}: resources resolved"
                    );
                }
            }));
        }
        let all = tokio::time::timeout(
            std::time::Duration::from_secs(30),
            futures::future::join_all(renders),
        )
        .await;
        for render in all.unwrap_or_else(|_| panic!("{path}: a render stalled")) {
            render.unwrap();
        }
    }
}

/// The build writes `.gz` and `.br` copies of the site's files (`scripts/precompress.mjs`): a
/// browser that accepts brotli gets the brotli copy, one that accepts nothing gets the file,
/// and either answer says it varies by `Accept-Encoding`.
#[tokio::test]
async fn site_files_are_sent_precompressed_to_browsers_that_accept_it() {
    let (mut state, _db) = support::app().await;
    let site = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(site.path().join("pkg")).expect("pkg dir");
    let file = site.path().join("pkg/app.js");
    std::fs::write(&file, "export const a = 1;".repeat(100)).expect("file");
    std::fs::write(file.with_extension("js.br"), b"brotli bytes").expect("br copy");
    std::fs::write(file.with_extension("js.gz"), b"gzip bytes").expect("gz copy");
    state.leptos_options.site_root = site.path().to_str().expect("utf-8 path").into();

    let request = |encoding: Option<&str>| {
        let mut request = Request::get("/pkg/app.js");
        if let Some(encoding) = encoding {
            request = request.header(header::ACCEPT_ENCODING, encoding);
        }
        request.body(Body::empty()).expect("valid request")
    };
    for (accepts, encoding, body) in [
        (
            Some("gzip, deflate, br, zstd"),
            Some("br"),
            "brotli bytes".to_owned(),
        ),
        (Some("gzip"), Some("gzip"), "gzip bytes".to_owned()),
        (None, None, "export const a = 1;".repeat(100)),
    ] {
        let response = send(&state, request(accepts)).await;
        assert_eq!(response.status(), StatusCode::OK, "{accepts:?}");
        assert_eq!(
            response
                .headers()
                .get(header::CONTENT_ENCODING)
                .map(|v| v.to_str().unwrap()),
            encoding,
            "{accepts:?}"
        );
        assert_eq!(response.headers()[header::VARY], "accept-encoding", "{accepts:?}");
        assert_eq!(
            response.headers()[header::CONTENT_TYPE],
            "text/javascript",
            "{accepts:?}"
        );
        assert_eq!(text(response).await, body, "{accepts:?}");
    }

    // A browser that has the file asks whether it changed.
    let response = send(&state, request(None)).await;
    let modified = response.headers()[header::LAST_MODIFIED].clone();
    let again = Request::get("/pkg/app.js")
        .header(header::IF_MODIFIED_SINCE, modified)
        .body(Body::empty())
        .expect("valid request");
    assert_eq!(send(&state, again).await.status(), StatusCode::NOT_MODIFIED);
}

/// The HTML without its `<script>` elements (the hydration data carries the whole text, for
/// "Show more" and "Download" in the browser).
fn without_scripts(html: &str) -> String {
    let mut out = String::new();
    let mut rest = html;
    while let Some(start) = rest.find("<script") {
        out.push_str(&rest[..start]);
        rest = rest[start..]
            .find("</script>")
            .map_or("", |end| &rest[start + end + "</script>".len()..]);
    }
    out.push_str(rest);
    out
}

/// Issue #26, "One huge text part freezes the browser": a reply whose single text part is
/// 300,000 characters renders its first 20,000 on the chat and the task page, with Show more and
/// Download (the render used to take about 55 s).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_huge_text_part_renders_one_chunk_with_show_more_and_download() {
    let (state, _db) = support::app().await;
    let (org, agent) = support::local_agent(&state.db).await;
    let conversation = "00000000-0000-4000-8000-0000000f1e1d";
    let line = "Line of a reply far longer than anyone reads at once.\n";
    let huge: String = line
        .repeat(300_000 / line.len() + 1)
        .chars()
        .take(300_000)
        .collect();
    let done = state
        .ingestor
        .ingest(&server::ingest::Observation {
            source_key: Some("command:huge".into()),
            protocol_version: None,
            ..support::observation(
                &org,
                &agent,
                conversation,
                serde_json::json!({"task": {"id": "r1", "contextId": "c1",
                    "status": {"state": "TASK_STATE_COMPLETED", "message": {"messageId": "a", "role": "ROLE_AGENT",
                    "parts": [{"text": huge, "mediaType": "text/plain"}]}}}}),
            )
        })
        .await
        .unwrap();
    for path in [
        format!("/chat/{conversation}"),
        format!("/tasks/{}", done.task_id),
    ] {
        let started = std::time::Instant::now();
        let page = get(&state, &path).await;
        assert_eq!(page.status(), StatusCode::OK, "{path}");
        let html = text(page).await;
        eprintln!("{path}: rendered in {:?}", started.elapsed());
        let markup = without_scripts(&html);
        let shown = markup.matches("Line of a reply").count();
        // The first chunk ends at a line break in its last quarter: 20,000 characters at most.
        assert!(
            shown > 15_000 / line.len() && shown <= 20_000 / line.len() + 1,
            "{path}: {shown} lines"
        );
        assert!(markup.contains("Showing 19"), "{path}");
        assert!(markup.contains(" of 300000 characters."), "{path}");
        assert!(markup.contains(r#"data-testid="show-more""#), "{path}");
        assert!(markup.contains(r#"data-testid="download-text""#), "{path}");
    }
}
