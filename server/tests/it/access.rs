//! Roles, teams and grants (`shared/spec/security-and-durability.md` §1.3, §1.4) through the real
//! router in `oidc` mode: members are provisioned and signed in with stored sessions (the sign-in
//! flow itself is `oidc.rs`'s, against a real provider), agents are registered and their tasks
//! ingested, and every read is checked as each member sees it. The store part runs on SQLite and
//! PostgreSQL.

use axum::body::Body;
use axum::http::{Request, StatusCode};
use chrono::{Duration, Utc};
use serde_json::{Value, json};
use server::ingest::Observation;
use server::state::AppState;
use server::store::access::Access;
use server::store::identity::{self, Member, Provision, Role};
use server::store::{access_admin, agents, audit, organizations, sessions};

use crate::support::{self, TestDb};

const ORIGIN: &str = "https://taskbay.example";
const ISSUER: &str = "https://id.example.com";

/// An `oidc` console of organization `team` (the provider is never called: sessions are stored
/// directly).
async fn team_app() -> (AppState, TestDb) {
    team_app_with(&[]).await
}

/// [`team_app`] with `extra` variables.
async fn team_app_with(extra: &[(&str, &str)]) -> (AppState, TestDb) {
    let mut vars = vec![
        ("A2A_AUTH_MODE", "oidc"),
        ("A2A_OIDC_ISSUER", ISSUER),
        ("A2A_OIDC_CLIENT_ID", "console"),
        ("A2A_OIDC_CLIENT_SECRET", "secret"),
        ("A2A_AUTH_ORGANIZATION_SLUG", "team"),
        ("A2A_AUTH_ORIGIN", ORIGIN),
    ];
    vars.extend_from_slice(extra);
    support::app_with(&vars).await
}

/// An answer: status, JSON body (or the text as a JSON string) and `Location`, if any.
struct Answer {
    status: StatusCode,
    body: Value,
    location: Option<String>,
}

/// `POST path` with JSON `body` and `Idempotency-Key: key`, as the member with `cookie`.
async fn post_keyed(state: &AppState, cookie: &str, path: &str, body: &Value, key: &str) -> Answer {
    let request = Request::post(path)
        .header("cookie", cookie)
        .header("origin", ORIGIN)
        .header("content-type", "application/json")
        .header("idempotency-key", key)
        .body(Body::from(body.to_string()))
        .unwrap();
    answer(support::send(state, request).await).await
}

/// A decision on request `id` as the member with `cookie`: status and body.
async fn decide_as(state: &AppState, id: &str, cookie: &str, body: Value, key: &str) -> (StatusCode, Value) {
    let answer = post_keyed(
        state,
        cookie,
        &format!("/api/decisions/{id}/decisions"),
        &body,
        key,
    )
    .await;
    (answer.status, answer.body)
}

async fn answer(response: axum::response::Response) -> Answer {
    let status = response.status();
    let location = response
        .headers()
        .get("location")
        .map(|l| l.to_str().unwrap().to_owned());
    let text = support::text(response).await;
    Answer {
        status,
        body: serde_json::from_str(&text).unwrap_or(Value::String(text)),
        location,
    }
}

/// A provisioned member of `team` and the cookie of a session of theirs.
async fn member(state: &AppState, subject: &str, role: Role) -> (Member, String) {
    let member = identity::provision(
        &state.db,
        &Provision {
            issuer: ISSUER,
            subject,
            organization: "team",
            name: subject,
            role,
        },
    )
    .await
    .unwrap();
    let token = sessions::create(&state.db, &member.membership_id, Utc::now() + Duration::hours(1))
        .await
        .unwrap();
    (member, format!("__Host-a2a-session={token}"))
}

/// `method path` as the member with `cookie`, with a JSON `body` for a change.
async fn call(
    state: &AppState,
    cookie: &str,
    method: &str,
    path: &str,
    body: Option<Value>,
) -> (StatusCode, Value) {
    let mut request = Request::builder()
        .method(method)
        .uri(path)
        .header("cookie", cookie);
    let body = match body {
        Some(body) => {
            request = request
                .header("origin", ORIGIN)
                .header("content-type", "application/json");
            Body::from(body.to_string())
        }
        None => Body::empty(),
    };
    let answer = answer(support::send(state, request.body(body).unwrap()).await).await;
    (answer.status, answer.body)
}

/// A task of `agent` with `skill`, ingested as a send's answer would bring it; its local id.
async fn task(state: &AppState, org: &str, agent: &str, remote: &str, skill: Option<&str>) -> String {
    let conversation = uuid::Uuid::now_v7().to_string();
    state
        .ingestor
        .ingest(&Observation {
            skill_id: skill.map(Into::into),
            ..support::observation(
                org,
                agent,
                &conversation,
                json!({"task": {"id": remote, "contextId": format!("ctx-{remote}"),
                    "status": {"state": "TASK_STATE_WORKING"}}}),
            )
        })
        .await
        .unwrap();
    let access = Access::everything(org);
    let page = server::store::tasks::list(
        &state.db.read,
        &access,
        app::api::tasks::TaskFilter::All,
        Default::default(),
        0,
        100,
    )
    .await
    .unwrap();
    page.tasks
        .into_iter()
        .find(|t| t.remote_task_id.as_deref() == Some(remote))
        .unwrap()
        .local_id
}

fn task_ids(list: &Value) -> Vec<String> {
    let mut ids: Vec<String> = list["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["localId"].as_str().unwrap().to_owned())
        .collect();
    ids.sort();
    ids
}

fn sorted(mut ids: Vec<&String>) -> Vec<String> {
    ids.sort();
    ids.into_iter().cloned().collect()
}

/// The whole path of §1.3 for one operator and one viewer: nothing without a grant (lists empty,
/// anything named answers 404), an agent grant, a skill grant, a team grant, the role ceiling,
/// and revocation and disabling applying to the very next request; every change audited.
#[tokio::test]
async fn grants_decide_what_each_member_reads_and_operates_security_1_3() {
    let (state, _db) = team_app().await;
    let (admin, admin_cookie) = member(&state, "ada", Role::Admin).await;
    let (bob, bob_cookie) = member(&state, "bob", Role::Operator).await;
    let (cy, cy_cookie) = member(&state, "cy", Role::Viewer).await;
    let org = organizations::by_slug(&state.db, "team").await.unwrap().id;
    let register = |url: &'static str| {
        let state = state.clone();
        let org = org.clone();
        async move {
            agents::register(&state.db, &org, url, agents::AgentSource::Managed)
                .await
                .unwrap()
                .id
        }
    };
    let a = register("http://127.0.0.1:9/a.json").await;
    let b = register("http://127.0.0.1:9/b.json").await;
    let task_a = task(&state, &org, &a, "ra", None).await;
    let task_sum = task(&state, &org, &b, "rs", Some("summarize")).await;
    let task_tr = task(&state, &org, &b, "rt", Some("translate")).await;

    // The admin sees everything.
    let (status, all) = call(&state, &admin_cookie, "GET", "/api/tasks", None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(task_ids(&all), sorted(vec![&task_a, &task_sum, &task_tr]));

    // A new operator starts with nothing: empty lists, and 404 for what exists.
    let (_, none) = call(&state, &bob_cookie, "GET", "/api/tasks", None).await;
    assert_eq!(task_ids(&none), Vec::<String>::new());
    let (_, agents_seen) = call(&state, &bob_cookie, "GET", "/api/agents", None).await;
    assert_eq!(agents_seen["agents"], json!([]));
    let (status, body) = call(&state, &bob_cookie, "GET", &format!("/api/tasks/{task_a}"), None).await;
    assert_eq!(
        (status, body["error"]["message"].as_str()),
        (StatusCode::NOT_FOUND, Some("Task not found."))
    );
    let (status, _) = call(
        &state,
        &bob_cookie,
        "GET",
        &format!("/api/live/tasks/{task_a}"),
        None,
    )
    .await;
    assert_eq!(
        status,
        StatusCode::NOT_FOUND,
        "the live stream of an unreadable task"
    );
    let (status, body) = call(&state, &bob_cookie, "GET", &format!("/api/agents/{a}"), None).await;
    assert_eq!(
        (status, body["error"]["message"].as_str()),
        (StatusCode::NOT_FOUND, Some("Unknown agent."))
    );

    let change = |cookie: &str, body: Value| {
        let state = state.clone();
        let cookie = cookie.to_owned();
        async move { call(&state, &cookie, "POST", "/api/admin/security", Some(body)).await }
    };
    // `read` on agent A: A's task, and nothing of B.
    let (status, granted) = change(
        &admin_cookie,
        json!({"action": "grant", "subjectType": "membership", "subjectId": bob.membership_id,
               "agentId": a, "permission": "read"}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{granted}");
    let read_grant = granted["id"].as_str().unwrap().to_owned();
    let (_, seen) = call(&state, &bob_cookie, "GET", "/api/tasks", None).await;
    assert_eq!(task_ids(&seen), vec![task_a.clone()]);
    let (status, _) = call(&state, &bob_cookie, "GET", &format!("/api/tasks/{task_a}"), None).await;
    assert_eq!(status, StatusCode::OK);
    // Read is not operate: a send is refused before anything is stored.
    let (status, body) = call(
        &state,
        &bob_cookie,
        "POST",
        &format!("/api/agents/{a}/messages"),
        Some(json!({"text": "hello"})),
    )
    .await;
    assert_eq!(
        (status, body["error"]["message"].as_str()),
        (StatusCode::FORBIDDEN, Some("This action is not permitted."))
    );

    // `operate` on one skill of B: that skill's task only, and never a generic send to B.
    let (status, _) = change(
        &admin_cookie,
        json!({"action": "grant", "subjectType": "membership", "subjectId": bob.membership_id,
               "agentId": b, "skillId": "summarize", "permission": "operate"}),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let (_, seen) = call(&state, &bob_cookie, "GET", "/api/tasks", None).await;
    assert_eq!(task_ids(&seen), sorted(vec![&task_a, &task_sum]));
    let (status, _) = call(&state, &bob_cookie, "GET", &format!("/api/tasks/{task_tr}"), None).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "another skill's task");
    // Filters run before paging: one row per page, and the hidden task never takes a slot.
    let (_, first) = call(&state, &bob_cookie, "GET", "/api/tasks?limit=1", None).await;
    let (_, second) = call(&state, &bob_cookie, "GET", "/api/tasks?limit=1&offset=1", None).await;
    let (_, third) = call(&state, &bob_cookie, "GET", "/api/tasks?limit=1&offset=2", None).await;
    let mut paged = [task_ids(&first), task_ids(&second)].concat();
    paged.sort();
    assert_eq!(paged, sorted(vec![&task_a, &task_sum]));
    assert_eq!(task_ids(&third), Vec::<String>::new());
    let (status, body) = call(
        &state,
        &bob_cookie,
        "POST",
        &format!("/api/agents/{b}/messages"),
        Some(json!({"text": "hello"})),
    )
    .await;
    assert_eq!(
        (status, body["error"]["message"].as_str()),
        (StatusCode::FORBIDDEN, Some("This action is not permitted.")),
        "a skill-only grant never authorizes a generic send"
    );
    let (_, agents_seen) = call(&state, &bob_cookie, "GET", "/api/agents", None).await;
    let mut listed: Vec<&str> = agents_seen["agents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| row["id"].as_str().unwrap())
        .collect();
    listed.sort();
    let mut both = vec![a.as_str(), b.as_str()];
    both.sort();
    assert_eq!(listed, both);

    // A team's grant reaches its members; a viewer's `operate` reads only (the role is a ceiling).
    let (_, team) = change(&admin_cookie, json!({"action": "createTeam", "name": "Support"})).await;
    let team_id = team["id"].as_str().unwrap().to_owned();
    change(
        &admin_cookie,
        json!({"action": "addTeamMember", "teamId": team_id, "membershipId": cy.membership_id}),
    )
    .await;
    change(
        &admin_cookie,
        json!({"action": "grant", "subjectType": "team", "subjectId": team_id, "agentId": a,
               "permission": "operate"}),
    )
    .await;
    let (_, seen) = call(&state, &cy_cookie, "GET", "/api/tasks", None).await;
    assert_eq!(task_ids(&seen), vec![task_a.clone()]);
    let (status, _) = call(
        &state,
        &cy_cookie,
        "POST",
        &format!("/api/agents/{a}/tasks/{task_a}/cancel"),
        Some(json!({})),
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "a viewer never operates");
    // Following a task again is operating it: Bob only reads agent A.
    let (status, body) = call(
        &state,
        &bob_cookie,
        "POST",
        &format!("/api/agents/{a}/stream"),
        Some(json!({"resubscribe": true, "taskId": "ra"})),
    )
    .await;
    assert_eq!(
        (status, body["error"]["message"].as_str()),
        (StatusCode::FORBIDDEN, Some("This action is not permitted."))
    );

    // Revoked and disabled: the very next request.
    change(
        &admin_cookie,
        json!({"action": "revokeGrant", "grantId": read_grant}),
    )
    .await;
    let (_, seen) = call(&state, &bob_cookie, "GET", "/api/tasks", None).await;
    assert_eq!(task_ids(&seen), vec![task_sum.clone()]);
    change(&admin_cookie, json!({"action": "disableTeam", "teamId": team_id})).await;
    let (_, seen) = call(&state, &cy_cookie, "GET", "/api/tasks", None).await;
    assert_eq!(task_ids(&seen), Vec::<String>::new());

    // Signing out ends the session, as a fact too.
    let (status, _) = call(&state, &admin_cookie, "POST", "/api/auth/logout", Some(json!({}))).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        call(&state, &admin_cookie, "GET", "/api/tasks", None).await.0,
        StatusCode::UNAUTHORIZED
    );

    // Every change was audited once, as the admin's, between their session's start and end.
    let facts = audit::of_organization(&state.db.read, &org).await.unwrap();
    let by_admin: Vec<&str> = facts
        .iter()
        .filter(|f| f.actor_user_id.as_deref() == Some(admin.user_id.as_str()))
        .map(|f| f.action.as_str())
        .collect();
    assert_eq!(
        by_admin,
        [
            "session.started",
            "grant.created",
            "grant.created",
            "team.created",
            "team.member_added",
            "grant.created",
            "grant.revoked",
            "team.disabled",
            "session.ended"
        ]
    );
    state.db.clone().close().await;
}

/// `POST /api/admin/security` is strict (an unknown action or field is `400`), validates every
/// field with its own message, answers `404` for what does not exist and `409` for a taken name,
/// a disabled team or the last admin, and is for admins only.
#[tokio::test]
async fn access_changes_are_strict_and_admin_only_security_1_3() {
    let (state, _db) = team_app().await;
    let (admin, admin_cookie) = member(&state, "ada", Role::Admin).await;
    let (bob, bob_cookie) = member(&state, "bob", Role::Operator).await;
    let post = |cookie: &str, body: Value| {
        let state = state.clone();
        let cookie = cookie.to_owned();
        async move { call(&state, &cookie, "POST", "/api/admin/security", Some(body)).await }
    };
    let message = |answer: (StatusCode, Value)| {
        (
            answer.0,
            answer.1["error"]["message"]
                .as_str()
                .unwrap_or_default()
                .to_owned(),
        )
    };
    for hostile in [
        json!({"action": "dropTables"}),
        json!({"action": "createTeam", "name": "x", "admin": true}),
        json!({"name": "x"}),
        json!({"action": "setRole", "membershipId": bob.membership_id, "role": "owner"}),
    ] {
        assert_eq!(
            post(&admin_cookie, hostile.clone()).await.0,
            StatusCode::BAD_REQUEST,
            "{hostile}"
        );
    }
    assert_eq!(
        message(post(&admin_cookie, json!({"action": "createTeam", "name": "  "})).await),
        (StatusCode::BAD_REQUEST, "Team name is required.".into())
    );
    assert_eq!(
        message(
            post(
                &admin_cookie,
                json!({"action": "createTeam", "name": "x".repeat(101)})
            )
            .await
        ),
        (
            StatusCode::BAD_REQUEST,
            "Team name must be at most 100 characters.".into()
        )
    );
    let (status, team) = post(&admin_cookie, json!({"action": "createTeam", "name": "Ops"})).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        message(post(&admin_cookie, json!({"action": "createTeam", "name": " Ops "})).await),
        (
            StatusCode::CONFLICT,
            "A team with this name already exists.".into()
        )
    );
    let team_id = team["id"].as_str().unwrap();
    post(&admin_cookie, json!({"action": "disableTeam", "teamId": team_id})).await;
    assert_eq!(
        message(
            post(
                &admin_cookie,
                json!({"action": "addTeamMember", "teamId": team_id, "membershipId": bob.membership_id})
            )
            .await
        ),
        (StatusCode::CONFLICT, "The team is disabled.".into())
    );
    assert_eq!(
        post(
            &admin_cookie,
            json!({"action": "grant", "subjectType": "membership", "subjectId": bob.membership_id,
                   "agentId": "no-such-agent", "permission": "read"})
        )
        .await
        .0,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        post(&admin_cookie, json!({"action": "revokeGrant", "grantId": "nope"}))
            .await
            .0,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        message(
            post(
                &admin_cookie,
                json!({"action": "setRole", "membershipId": admin.membership_id, "role": "operator"})
            )
            .await
        ),
        (
            StatusCode::CONFLICT,
            "The organization needs at least one enabled admin.".into()
        )
    );

    // Re-provisioning the only admin with another role would demote them: refused too.
    assert_eq!(
        message(
            post(
                &admin_cookie,
                json!({"action": "provisionMember", "issuer": ISSUER, "subject": "ada", "name": "Ada",
                       "role": "operator"})
            )
            .await
        ),
        (
            StatusCode::CONFLICT,
            "The organization needs at least one enabled admin.".into()
        )
    );
    // A removed agent takes no grant.
    let org = organizations::by_slug(&state.db, "team").await.unwrap().id;
    let gone = agents::register(
        &state.db,
        &org,
        "http://127.0.0.1:9/gone.json",
        agents::AgentSource::Managed,
    )
    .await
    .unwrap()
    .id;
    assert_eq!(
        call(
            &state,
            &admin_cookie,
            "DELETE",
            &format!("/api/agents/{gone}"),
            Some(json!({}))
        )
        .await
        .0,
        StatusCode::OK
    );
    assert_eq!(
        post(
            &admin_cookie,
            json!({"action": "grant", "subjectType": "membership", "subjectId": bob.membership_id,
                   "agentId": gone, "permission": "read"})
        )
        .await
        .0,
        StatusCode::NOT_FOUND
    );

    // Not an admin: refused by the guard, before the body is looked at.
    assert_eq!(
        message(post(&bob_cookie, json!({"action": "createTeam", "name": "Mine"})).await),
        (StatusCode::FORBIDDEN, "This action is not permitted.".into())
    );
    assert_eq!(
        call(&state, &bob_cookie, "GET", "/api/admin/security", None)
            .await
            .0,
        StatusCode::FORBIDDEN
    );

    // People without editing the database: provision, demote, disable (the next request is
    // refused), re-enable.
    let (status, provisioned) = post(
        &admin_cookie,
        json!({"action": "provisionMember", "issuer": format!("{ISSUER}/"), "subject": "dee",
               "name": "Dee", "role": "viewer"}),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let (_, overview) = call(&state, &admin_cookie, "GET", "/api/admin/security", None).await;
    let dee = overview["members"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["membershipId"] == provisioned["id"])
        .unwrap()
        .clone();
    assert_eq!(
        (
            dee["displayName"].as_str(),
            dee["role"].as_str(),
            dee["identities"][0].as_str()
        ),
        (Some("Dee"), Some("viewer"), Some("https://id.example.com dee"))
    );
    post(
        &admin_cookie,
        json!({"action": "setRole", "membershipId": bob.membership_id, "role": "viewer"}),
    )
    .await;
    assert_eq!(
        call(
            &state,
            &bob_cookie,
            "POST",
            "/api/agents/x/commands",
            Some(json!({"text": "hi"}))
        )
        .await
        .0,
        StatusCode::FORBIDDEN,
        "demoted: the next request"
    );
    post(
        &admin_cookie,
        json!({"action": "disableMember", "membershipId": bob.membership_id}),
    )
    .await;
    assert_eq!(
        call(&state, &bob_cookie, "GET", "/api/tasks", None).await.0,
        StatusCode::UNAUTHORIZED
    );
    // A live stream's next reconnect is a request like any other.
    assert_eq!(
        call(&state, &bob_cookie, "GET", "/api/tasks/events", None)
            .await
            .0,
        StatusCode::UNAUTHORIZED
    );
    post(
        &admin_cookie,
        json!({"action": "enableMember", "membershipId": bob.membership_id}),
    )
    .await;
    assert_eq!(
        call(&state, &bob_cookie, "GET", "/api/tasks", None).await.0,
        StatusCode::OK
    );
    state.db.clone().close().await;
}

/// The grant filter is SQL: the same members and grants give the same rows on SQLite and
/// PostgreSQL, with organization, membership and team grants combined and disabled ones ignored.
#[tokio::test]
async fn grants_combine_and_filter_in_sql_on_every_backend_security_1_3() {
    use app::api::access::AccessChange;
    use app::api::tasks::TaskFilter;
    use app::words::{GrantPermission, GrantSubject};
    use server::store::audit::Actor;

    for test_db in support::backends().await {
        let db = test_db.migrated().await;
        let provision = |subject: &'static str, role| Provision {
            issuer: ISSUER,
            subject,
            organization: "team",
            name: subject,
            role,
        };
        let eve = identity::provision(&db, &provision("eve", Role::Operator))
            .await
            .unwrap();
        let org = eve.organization_id.clone();
        let agent = agents::register(
            &db,
            &org,
            "http://127.0.0.1:9/c.json",
            agents::AgentSource::Managed,
        )
        .await
        .unwrap()
        .id;
        let other = agents::register(
            &db,
            &org,
            "http://127.0.0.1:9/d.json",
            agents::AgentSource::Managed,
        )
        .await
        .unwrap()
        .id;
        let dir = tempfile::tempdir().unwrap();
        let ingestor = server::ingest::Ingestor::new(
            db.clone(),
            server::ingest::archive::ArtifactStore::new(dir.path()),
            Default::default(),
        );
        let mut expected = Vec::new();
        for (n, (agent_id, skill)) in [
            (&agent, Some("s1")),
            (&agent, Some("s2")),
            (&agent, None),
            (&other, None),
            (&other, Some("s1")),
        ]
        .into_iter()
        .enumerate()
        {
            ingestor
                .ingest(&Observation {
                    skill_id: skill.map(Into::into),
                    ..support::observation(
                        &org,
                        agent_id,
                        &uuid::Uuid::now_v7().to_string(),
                        json!({"task": {"id": format!("r{n}"), "contextId": format!("c{n}"),
                            "status": {"state": "TASK_STATE_WORKING"}}}),
                    )
                })
                .await
                .unwrap();
            // Readable once the grants below are given: s1 of `agent`, and all of `other`.
            if (agent_id == &agent && skill == Some("s1")) || agent_id == &other {
                expected.push(format!("r{n}"));
            }
        }
        let apply = |change| {
            let db = db.clone();
            let org = org.clone();
            async move {
                access_admin::apply(&db, &org, &Actor::System, change)
                    .await
                    .unwrap()
            }
        };
        let access = || {
            let db = db.clone();
            let eve = eve.clone();
            async move {
                Access::of_member(&db.read, &eve.organization_id, &eve.membership_id, eve.role)
                    .await
                    .unwrap()
            }
        };
        assert_eq!(
            access().await,
            Access::granted(org.clone(), vec![]),
            "{}",
            test_db.name
        );
        apply(AccessChange::Grant {
            subject_type: GrantSubject::Organization,
            subject_id: org.clone(),
            agent_id: agent.clone(),
            skill_id: Some("s1".into()),
            permission: GrantPermission::Read,
        })
        .await;
        let team = apply(AccessChange::CreateTeam { name: "T".into() }).await;
        apply(AccessChange::AddTeamMember {
            team_id: team.clone(),
            membership_id: eve.membership_id.clone(),
        })
        .await;
        apply(AccessChange::Grant {
            subject_type: GrantSubject::Team,
            subject_id: team.clone(),
            agent_id: other.clone(),
            skill_id: None,
            permission: GrantPermission::Operate,
        })
        .await;
        let granted = access().await;
        assert!(granted.reads(&agent, Some("s1")) && !granted.reads(&agent, Some("s2")));
        assert!(granted.operates(&other, None), "{}", test_db.name);
        let rows = server::store::tasks::list(&db.read, &granted, TaskFilter::All, Default::default(), 0, 10)
            .await
            .unwrap();
        let mut seen: Vec<String> = rows.tasks.into_iter().filter_map(|t| t.remote_task_id).collect();
        seen.sort();
        assert_eq!(seen, expected, "{}", test_db.name);
        apply(AccessChange::DisableTeam { team_id: team }).await;
        assert!(
            !access().await.reads(&other, None),
            "{}: a disabled team's grants stop",
            test_db.name
        );
        db.close().await;
        test_db.cleanup().await;
    }
}

/// §4.1 with people: a reviewer delegates a request (never to themself, only to someone who can
/// operate the agent), the request is then decided by its assignee only (an admin may too), every
/// decision names who made it, and `assigned=me` finds the assignee's requests. Real demo agent,
/// real workers.
#[tokio::test]
async fn a_delegated_request_is_decided_by_its_assignee_security_4_1() {
    use std::time::Duration;

    let (state, _db) = team_app_with(&[("A2A_ALLOW_PRIVATE_NETWORKS", "true")]).await;
    let workers = support::Workers::start(&state);
    let demo = support::demo().await;
    let (_, admin) = member(&state, "ada", Role::Admin).await;
    let (bob, bob_cookie) = member(&state, "bob", Role::Operator).await;
    let (cy, cy_cookie) = member(&state, "cy", Role::Operator).await;
    let (dee, _) = member(&state, "dee", Role::Viewer).await;
    let (_, eve_cookie) = member(&state, "eve", Role::Operator).await;

    let (status, registered) = call(
        &state,
        &admin,
        "POST",
        "/api/agents",
        Some(json!({"cardUrl": format!("{demo}/approver/card.json")})),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{registered}");
    let agent = registered["agent"]["id"].as_str().unwrap().to_owned();
    assert_eq!(
        call(&state, &admin, "GET", &format!("/api/agents/{agent}"), None)
            .await
            .0,
        StatusCode::OK
    );
    for (who, permission) in [(&bob, "operate"), (&cy, "operate"), (&dee, "operate")] {
        let (status, _) = call(
            &state,
            &admin,
            "POST",
            "/api/admin/security",
            Some(
                json!({"action": "grant", "subjectType": "membership", "subjectId": who.membership_id,
                        "agentId": agent, "permission": permission}),
            ),
        )
        .await;
        assert_eq!(status, StatusCode::OK);
    }
    let (status, sent) = call(
        &state,
        &bob_cookie,
        "POST",
        &format!("/api/agents/{agent}/messages"),
        Some(json!({"text": "please approve"})),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{sent}");
    let task = sent["localId"].as_str().unwrap().to_owned();
    let opened = crate::ledger::eventually(Duration::from_secs(20), || async {
        let (_, list) = call(
            &state,
            &admin,
            "GET",
            &format!("/api/decisions?taskId={task}"),
            None,
        )
        .await;
        list["requests"].as_array().is_some_and(|r| !r.is_empty())
    })
    .await;
    assert!(opened, "the agent asked for approval");
    let (_, list) = call(
        &state,
        &admin,
        "GET",
        &format!("/api/decisions?taskId={task}"),
        None,
    )
    .await;
    let id = list["requests"][0]["id"].as_str().unwrap().to_owned();

    // Eve has no grant: the request, its task and its count do not exist for her.
    let (_, none) = call(&state, &eve_cookie, "GET", "/api/decisions", None).await;
    assert_eq!(none["requests"], json!([]));
    for path in [
        format!("/api/decisions/{id}"),
        format!("/api/reviewers?taskId={task}"),
        format!("/api/tasks/{task}"),
    ] {
        assert_eq!(
            call(&state, &eve_cookie, "GET", &path, None).await.0,
            StatusCode::NOT_FOUND,
            "{path}"
        );
    }
    let count = |cookie: &str| {
        let state = state.clone();
        let cookie = cookie.to_owned();
        async move {
            let request = Request::post("/api/fn/count_pending_approvals")
                .header("cookie", cookie)
                .header("origin", ORIGIN)
                .header("content-type", "application/x-www-form-urlencoded")
                .body(Body::empty())
                .unwrap();
            support::text(support::send(&state, request).await).await
        }
    };
    assert_eq!(
        (count(&eve_cookie).await, count(&bob_cookie).await),
        ("0".to_owned(), "1".to_owned()),
        "the Inbox badge counts only what each one reads"
    );

    // The reviewers: operators and admins who can operate the agent; not the viewer.
    let (status, reviewers) = call(
        &state,
        &bob_cookie,
        "GET",
        &format!("/api/reviewers?taskId={task}"),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let mut names: Vec<(String, bool)> = reviewers["reviewers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["displayName"].as_str().unwrap().to_owned(),
                r["self"].as_bool().unwrap(),
            )
        })
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            ("ada".to_owned(), false),
            ("bob".to_owned(), true),
            ("cy".to_owned(), false)
        ]
    );

    let message = |answer: &(StatusCode, Value)| {
        answer.1["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    };
    let delegate = |to: &str| {
        json!({"outcome": "delegate", "expectedRevision": 1, "rationale": "Cy owns staging",
                                     "delegateMembershipId": to})
    };
    let to_self = decide_as(&state, &id, &bob_cookie, delegate(&bob.membership_id), "d1").await;
    assert_eq!(
        (to_self.0, message(&to_self)),
        (
            StatusCode::UNPROCESSABLE_ENTITY,
            "You cannot delegate a request to yourself.".into()
        )
    );
    let to_viewer = decide_as(&state, &id, &bob_cookie, delegate(&dee.membership_id), "d2").await;
    assert_eq!(
        (to_viewer.0, message(&to_viewer)),
        (
            StatusCode::UNPROCESSABLE_ENTITY,
            "The delegate cannot operate this agent.".into()
        )
    );
    let no_target = decide_as(
        &state,
        &id,
        &bob_cookie,
        json!({"outcome": "delegate", "expectedRevision": 1, "rationale": "x"}),
        "d3",
    )
    .await;
    assert_eq!(
        (no_target.0, message(&no_target)),
        (
            StatusCode::BAD_REQUEST,
            "delegateMembershipId is required to delegate.".into()
        )
    );

    let delegated = decide_as(&state, &id, &bob_cookie, delegate(&cy.membership_id), "d4").await;
    assert_eq!(delegated.0, StatusCode::CREATED, "{}", delegated.1);
    assert_eq!(
        delegated.1["request"]["status"], "pending",
        "delegating does not close it"
    );
    assert_eq!(
        delegated.1["request"]["assignedMembershipId"],
        cy.membership_id.as_str()
    );
    assert_eq!(delegated.1["decision"]["decidedBy"], "bob");
    assert_eq!(delegated.1["decision"]["delegatedTo"], "cy");

    let elsewhere = decide_as(
        &state,
        &id,
        &bob_cookie,
        json!({"outcome": "reject", "expectedRevision": 1, "rationale": "no"}),
        "r1",
    )
    .await;
    assert_eq!(
        (elsewhere.0, message(&elsewhere)),
        (
            StatusCode::FORBIDDEN,
            "This request is assigned to someone else.".into()
        )
    );
    let (_, mine) = call(&state, &cy_cookie, "GET", "/api/decisions?assigned=me", None).await;
    assert_eq!(mine["requests"].as_array().unwrap().len(), 1);
    let (_, not_mine) = call(&state, &bob_cookie, "GET", "/api/decisions?assigned=me", None).await;
    assert_eq!(not_mine["requests"], json!([]));

    let rejected = decide_as(
        &state,
        &id,
        &cy_cookie,
        json!({"outcome": "reject", "expectedRevision": 1, "rationale": "Not today"}),
        "r2",
    )
    .await;
    assert_eq!(rejected.0, StatusCode::CREATED, "{}", rejected.1);
    assert_eq!(rejected.1["request"]["status"], "rejected");
    assert_eq!(rejected.1["decision"]["decidedBy"], "cy");
    // A request opened by a person: its requester cannot decide it (separation of duties).
    let open = |cookie: &str, body: Value, key: &str| {
        let state = state.clone();
        let cookie = cookie.to_owned();
        let key = key.to_owned();
        async move {
            let answer = post_keyed(&state, &cookie, "/api/decisions", &body, &key).await;
            (answer.status, answer.body, answer.location)
        }
    };
    let expires = (chrono::Utc::now() + chrono::Duration::hours(8)).to_rfc3339();
    let asking = json!({"taskId": task, "title": "Scale staging down", "summary": "Night hours",
        "action": {"kind": "send_message", "text": "Scale staging to 1 replica."}, "expiresAt": expires});
    for (body, want) in [
        (json!({"title": " "}), "title must be 1 to 300 characters."),
        (
            json!({"expiresAt": "2001-01-01T00:00:00Z"}),
            "expiresAt must be a time in the future, at most 30 days ahead.",
        ),
        (json!({"risk": "extreme"}), "risk must be low, medium or high."),
        (
            json!({"policy": {"allowedOutcomes": ["reject"]}}),
            "policy.allowedOutcomes must include approve or edit.",
        ),
    ] {
        let mut bad = asking.clone();
        for (k, v) in body.as_object().unwrap() {
            bad[k] = v.clone();
        }
        let (status, answer, _) = open(&bob_cookie, bad, "bad").await;
        assert_eq!(
            (status, answer["error"]["message"].as_str()),
            (StatusCode::BAD_REQUEST, Some(want))
        );
    }
    let mut to_viewer = asking.clone();
    to_viewer["assignedMembershipId"] = json!(dee.membership_id);
    let (status, answer, _) = open(&bob_cookie, to_viewer, "viewer").await;
    assert_eq!(
        (status, answer["error"]["message"].as_str()),
        (
            StatusCode::UNPROCESSABLE_ENTITY,
            Some("The assignee cannot operate this agent.")
        )
    );
    assert_eq!(
        open(&eve_cookie, asking.clone(), "eve").await.0,
        StatusCode::NOT_FOUND,
        "no grant: no task"
    );
    let (status, opened, location) = open(&bob_cookie, asking.clone(), "ask-1").await;
    assert_eq!(status, StatusCode::CREATED, "{opened}");
    let mine = opened["request"]["id"].as_str().unwrap().to_owned();
    assert_eq!(location, Some(format!("/api/decisions/{mine}")));
    assert_eq!(opened["request"]["requesterUserId"], bob.user_id.as_str());
    let (status, again, _) = open(&bob_cookie, asking.clone(), "ask-1").await;
    assert_eq!(
        (status, again["request"]["id"].as_str()),
        (StatusCode::OK, Some(mine.as_str())),
        "a replay"
    );
    let mut other = asking.clone();
    other["title"] = json!("Something else");
    assert_eq!(open(&bob_cookie, other, "ask-1").await.0, StatusCode::CONFLICT);
    let own = decide_as(
        &state,
        &mine,
        &bob_cookie,
        json!({"outcome": "approve", "expectedRevision": 1}),
        "own",
    )
    .await;
    assert_eq!(
        (own.0, message(&own)),
        (
            StatusCode::FORBIDDEN,
            "The requester cannot decide their own request.".into()
        )
    );
    let by_cy = decide_as(
        &state,
        &mine,
        &cy_cookie,
        json!({"outcome": "reject", "expectedRevision": 1, "rationale": "Keep it"}),
        "cy",
    )
    .await;
    assert_eq!(by_cy.0, StatusCode::CREATED, "{}", by_cy.1);

    // The policy decides which outcomes exist; a newer request supersedes the open one.
    let mut approve_only = asking.clone();
    approve_only["title"] = json!("Approve only");
    approve_only["policy"] = json!({"allowedOutcomes": ["approve"], "separationOfDuties": false});
    let (status, strict, _) = open(&bob_cookie, approve_only, "ask-2").await;
    assert_eq!(status, StatusCode::CREATED, "{strict}");
    let strict_id = strict["request"]["id"].as_str().unwrap().to_owned();
    let refused = post_keyed(
        &state,
        &cy_cookie,
        &format!("/api/decisions/{strict_id}/decisions"),
        &json!({"outcome": "reject", "expectedRevision": 1, "rationale": "No"}),
        "strict-reject",
    )
    .await;
    assert_eq!(
        (refused.status, refused.body["error"]["message"].as_str()),
        (
            StatusCode::FORBIDDEN,
            Some("The request's policy does not allow this outcome.")
        )
    );
    let mut newer = asking.clone();
    newer["title"] = json!("Newer");
    assert_eq!(open(&bob_cookie, newer, "ask-3").await.0, StatusCode::CREATED);
    let (_, superseded) = call(
        &state,
        &bob_cookie,
        "GET",
        &format!("/api/decisions/{strict_id}"),
        None,
    )
    .await;
    assert_eq!(
        superseded["request"]["status"], "superseded",
        "one live request per task"
    );
    workers.stop().await;
    state.db.clone().close().await;
}

/// §1.3 skill-only grants against the demo agent's routed skills: the card, the Agents list and
/// the chat's skill choice show only the granted skill; a send without it, or with another skill
/// (on the card or not), is refused the same way; a send with it goes out. A send naming another
/// agent's conversation is 404.
#[tokio::test]
async fn a_skill_only_member_sees_and_sends_only_their_skill_security_1_3() {
    let (state, _db) = team_app_with(&[("A2A_ALLOW_PRIVATE_NETWORKS", "true")]).await;
    let workers = support::Workers::start(&state);
    let demo = support::demo().await;
    let (_, admin) = member(&state, "ada", Role::Admin).await;
    let (eve, eve_cookie) = member(&state, "eve", Role::Operator).await;
    let register = |variant: &'static str| {
        let state = state.clone();
        let admin = admin.clone();
        let demo = demo.clone();
        async move {
            let (_, body) = call(
                &state,
                &admin,
                "POST",
                "/api/agents",
                Some(json!({"cardUrl": format!("{demo}/{variant}/card.json")})),
            )
            .await;
            let id = body["agent"]["id"].as_str().unwrap().to_owned();
            assert_eq!(
                call(&state, &admin, "GET", &format!("/api/agents/{id}"), None)
                    .await
                    .0,
                StatusCode::OK
            );
            id
        }
    };
    let skills = register("skills").await;
    let form = register("form").await;
    call(
        &state,
        &admin,
        "POST",
        "/api/admin/security",
        Some(
            json!({"action": "grant", "subjectType": "membership", "subjectId": eve.membership_id,
                    "agentId": skills, "skillId": "deploy", "permission": "operate"}),
        ),
    )
    .await;

    let (_, detail) = call(&state, &eve_cookie, "GET", &format!("/api/agents/{skills}"), None).await;
    let ids: Vec<&str> = detail["card"]["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["deploy"], "the reduced card");
    let server_fn = |path: &'static str, content_type: &'static str, body: String| {
        let state = state.clone();
        let cookie = eve_cookie.clone();
        async move {
            let request = Request::post(path)
                .header("cookie", cookie)
                .header("origin", ORIGIN)
                .header("content-type", content_type)
                .body(Body::from(body))
                .unwrap();
            let response = support::send(&state, request).await;
            let status = response.status();
            (
                status,
                serde_json::from_str::<Value>(&support::text(response).await).unwrap(),
            )
        }
    };
    let (_, listed) = server_fn(
        "/api/fn/list_agents",
        "application/x-www-form-urlencoded",
        String::new(),
    )
    .await;
    assert_eq!(listed.as_array().unwrap().len(), 1, "{listed}");
    assert_eq!(listed[0]["skills"], json!(["Deploy a service"]));
    let (_, extensions) = server_fn(
        "/api/fn/get_agent_extensions",
        "application/json",
        json!({"agent_id": skills, "caller": [], "skill": null}).to_string(),
    )
    .await;
    let choices: Vec<&str> = extensions["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(choices, ["deploy"], "{extensions}");
    let (_, asked_hidden) = server_fn(
        "/api/fn/get_agent_extensions",
        "application/json",
        json!({"agent_id": skills, "caller": [], "skill": "rollback"}).to_string(),
    )
    .await;
    assert!(
        !asked_hidden.to_string().contains("Roll back"),
        "a hidden skill is not named: {asked_hidden}"
    );

    let send = |body: Value| {
        let state = state.clone();
        let cookie = eve_cookie.clone();
        let skills = skills.clone();
        async move {
            call(
                &state,
                &cookie,
                "POST",
                &format!("/api/agents/{skills}/messages"),
                Some(body),
            )
            .await
        }
    };
    for body in [
        json!({"text": "ship it"}),
        json!({"text": "undo", "skillId": "rollback"}),
        json!({"text": "?", "skillId": "no-such-skill"}),
    ] {
        let (status, answer) = send(body.clone()).await;
        assert_eq!(
            (status, answer["error"]["message"].as_str()),
            (StatusCode::FORBIDDEN, Some("This action is not permitted.")),
            "{body}"
        );
    }
    let (status, sent) = send(json!({"text": "ship billing-api", "skillId": "deploy"})).await;
    assert_eq!(status, StatusCode::OK, "{sent}");
    let (_, tasks) = call(&state, &eve_cookie, "GET", "/api/tasks", None).await;
    assert_eq!(tasks["tasks"].as_array().unwrap().len(), 1);

    // The admin's conversation with the form agent cannot be borrowed by a send to another agent.
    let (_, theirs) = call(
        &state,
        &admin,
        "POST",
        &format!("/api/agents/{form}/messages"),
        Some(json!({"text": "hi"})),
    )
    .await;
    let (_, task) = call(
        &state,
        &admin,
        "GET",
        &format!("/api/tasks/{}", theirs["localId"].as_str().unwrap()),
        None,
    )
    .await;
    let conversation = task["task"]["conversationId"].as_str().unwrap().to_owned();
    let input = app::api::tasks::SendInput {
        agent_id: skills.clone(),
        conversation_id: Some(conversation),
        text: "join".into(),
        idempotency_key: Some("borrow".into()),
        ..Default::default()
    };
    let request = Request::post("/api/fn/send_message")
        .header("cookie", admin.clone())
        .header("origin", ORIGIN)
        .header("content-type", "application/json")
        .body(Body::from(json!({"input": input}).to_string()))
        .unwrap();
    assert_eq!(
        support::send(&state, request).await.status(),
        StatusCode::NOT_FOUND
    );
    workers.stop().await;
    state.db.clone().close().await;
}
