//! People and memberships (`shared/spec/security-and-durability.md` §1.1 "Provisioning", §1.5):
//! the store on SQLite and PostgreSQL, `agent-taskbay auth provision`, and the development-mode
//! administrator as the API sees it.

use axum::http::StatusCode;
use server::store::identity::{self, DEVELOPMENT_ISSUER, DEVELOPMENT_SUBJECT, Provision, Role};
use server::store::organizations;

use crate::support::{self, binary};

fn ada(role: Role) -> Provision<'static> {
    Provision {
        issuer: "https://id.example.com",
        subject: "ada",
        organization: "team",
        name: "Ada Lovelace",
        role,
    }
}

#[tokio::test]
async fn provisioning_is_idempotent_and_updates_the_role_security_1_1() {
    for test_db in support::backends().await {
        let db = test_db.migrated().await;
        let first = identity::provision(&db, &ada(Role::Operator)).await.unwrap();
        // The organization is created by its slug, named after it.
        let team = organizations::by_slug(&db, "team").await.unwrap();
        assert_eq!(
            (first.organization_id.as_str(), team.name.as_str()),
            (team.id.as_str(), "team"),
            "{}",
            test_db.name
        );
        assert_eq!((first.role, first.active), (Role::Operator, true));
        assert_eq!(first.display_name, "Ada Lovelace");

        // Again, with another role and name: the same membership, the new role, the old name.
        identity::set_membership_enabled(&db, &first.membership_id, false)
            .await
            .unwrap();
        let again = identity::provision(
            &db,
            &Provision {
                name: "Someone Else",
                ..ada(Role::Viewer)
            },
        )
        .await
        .unwrap();
        assert_eq!(again.membership_id, first.membership_id, "{}", test_db.name);
        assert_eq!((again.role, again.active), (Role::Viewer, true), "re-enabled");
        assert_eq!(again.display_name, "Ada Lovelace", "not renamed");

        // A user disabled as a whole stays disabled.
        identity::set_user_enabled(&db, &first.user_id, false)
            .await
            .unwrap();
        let disabled = identity::provision(&db, &ada(Role::Admin)).await.unwrap();
        assert_eq!(
            (disabled.role, disabled.active),
            (Role::Admin, false),
            "{}",
            test_db.name
        );

        // The same person in a second organization: one user, two memberships.
        let elsewhere = identity::provision(
            &db,
            &Provision {
                organization: "other",
                ..ada(Role::Viewer)
            },
        )
        .await
        .unwrap();
        assert_eq!(elsewhere.user_id, first.user_id);
        assert_ne!(elsewhere.membership_id, first.membership_id);
        let found = identity::member_of(&db.read, &team.id, "https://id.example.com", "ada")
            .await
            .unwrap()
            .unwrap();
        assert_eq!(found.membership_id, first.membership_id);
        assert!(
            identity::member_of(&db.read, &team.id, "https://id.example.com", "nobody")
                .await
                .unwrap()
                .is_none()
        );
        db.close().await;
        test_db.cleanup().await;
    }
}

#[tokio::test]
async fn the_development_administrator_is_provisioned_once_and_stays_disabled_security_1_5() {
    for test_db in support::backends().await {
        let db = test_db.migrated().await;
        let local = organizations::local(&db).await.unwrap().id;
        let (a, b) = tokio::join!(
            identity::development_member(&db, &local),
            identity::development_member(&db, &local)
        );
        let (a, b) = (a.unwrap(), b.unwrap());
        assert_eq!(
            a.membership_id, b.membership_id,
            "{}: one membership",
            test_db.name
        );
        assert_eq!(
            (a.display_name.as_str(), a.role, a.active),
            ("Local operator", Role::Admin, true)
        );
        let stored = identity::member_of(&db.read, &local, DEVELOPMENT_ISSUER, DEVELOPMENT_SUBJECT)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(stored, a);

        identity::set_membership_enabled(&db, &a.membership_id, false)
            .await
            .unwrap();
        let after = identity::development_member(&db, &local).await.unwrap();
        assert_eq!(
            (after.membership_id.as_str(), after.active),
            (a.membership_id.as_str(), false)
        );
        assert!(matches!(
            identity::set_membership_enabled(&db, "no-such-membership", true).await,
            Err(server::store::StoreError::NotFound)
        ));
        db.close().await;
        test_db.cleanup().await;
    }
}

/// Disabled in the database, the development-mode administrator is refused by every API route
/// (`401 Sign in to continue.`); `auth provision` with its issuer enables it again.
#[tokio::test]
async fn a_disabled_local_operator_must_be_provisioned_again() {
    let (state, test_db) = support::app().await;
    let ok = support::get(&state, "/api/agents").await;
    assert_eq!(ok.status(), StatusCode::OK);
    let local = state.organization_id().await.unwrap();
    let member = identity::development_member(&state.db, &local).await.unwrap();
    identity::set_membership_enabled(&state.db, &member.membership_id, false)
        .await
        .unwrap();

    let refused = support::get(&state, "/api/agents").await;
    assert_eq!(refused.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(
        support::text(refused).await,
        r#"{"error":{"message":"Sign in to continue."}}"#
    );

    let output = binary()
        .env("A2A_DATA_DIR", test_db.config.data_dir.to_str().unwrap())
        .args([
            "auth",
            "provision",
            "--issuer",
            DEVELOPMENT_ISSUER,
            "--subject",
            DEVELOPMENT_SUBJECT,
        ])
        .args([
            "--organization",
            "local",
            "--name",
            "Local operator",
            "--role",
            "admin",
        ])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "Identity membership provisioned.\n"
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(support::get(&state, "/api/agents").await.status(), StatusCode::OK);
    state.db.clone().close().await;
    test_db.cleanup().await;
}

#[test]
fn provision_refuses_bad_options_with_one_reason() {
    let dir = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        binary()
            .env("A2A_DATA_DIR", dir.path())
            .args(["auth", "provision"])
            .args(args)
            .output()
            .unwrap()
    };
    let base = [
        "--issuer",
        "https://id.example.com/",
        "--subject",
        "ada",
        "--organization",
        "team",
        "--name",
        "Ada",
    ];
    let bad_role = run(&[&base[..], &["--role", "owner"]].concat());
    assert_eq!(bad_role.status.code(), Some(2));
    let stderr = String::from_utf8(bad_role.stderr).unwrap();
    assert!(
        stderr.starts_with(
            "error: invalid value 'owner' for '--role <ROLE>': must be admin, operator or viewer\n"
        ),
        "{stderr}"
    );
    let bad_issuer = run(&[
        "--issuer",
        "http://id.example.com",
        "--subject",
        "ada",
        "--organization",
        "team",
        "--name",
        "Ada",
        "--role",
        "admin",
    ]);
    assert_eq!(bad_issuer.status.code(), Some(2));
    assert!(
        String::from_utf8(bad_issuer.stderr)
            .unwrap()
            .contains("must be the provider's https issuer URL")
    );
    assert!(
        !dir.path().join("agent-taskbay.sqlite3").exists(),
        "nothing opened on a usage error"
    );

    let ok = run(&[&base[..], &["--role", "admin"]].concat());
    assert_eq!(
        String::from_utf8_lossy(&ok.stdout),
        "Identity membership provisioned.\n"
    );
    let again = run(&[&base[..], &["--role", "viewer"]].concat());
    assert_eq!(
        String::from_utf8_lossy(&again.stdout),
        "Identity membership provisioned.\n"
    );
    assert!(again.status.success());
}

/// §1.2: a session resolves to its member as they are now, until its absolute expiry; the
/// database holds only the token's SHA-256; sign-out ends it.
#[tokio::test]
async fn sessions_resolve_until_they_expire_and_end_on_sign_out_security_1_2() {
    use chrono::{Duration, Utc};
    use sea_orm::EntityTrait;
    use server::db::entity::user_session;
    use server::store::sessions;

    for test_db in support::backends().await {
        let db = test_db.migrated().await;
        let person = identity::provision(&db, &ada(Role::Operator)).await.unwrap();
        let now = Utc::now();
        let token = sessions::create(&db, &person.membership_id, now + Duration::hours(8))
            .await
            .unwrap();
        assert!(sessions::well_formed(&token));
        let stored = user_session::Entity::find().all(&db.read).await.unwrap();
        assert_eq!(stored.len(), 1);
        assert_ne!(
            stored[0].token_hash, token,
            "{}: only the hash is stored",
            test_db.name
        );

        let found = sessions::member(&db, &token, now).await.unwrap().unwrap();
        assert_eq!(
            (found.membership_id.as_str(), found.role, found.active),
            (person.membership_id.as_str(), Role::Operator, true)
        );
        // Demoted or disabled: the next lookup says so.
        identity::provision(&db, &ada(Role::Viewer)).await.unwrap();
        identity::set_membership_enabled(&db, &person.membership_id, false)
            .await
            .unwrap();
        let now_viewer = sessions::member(&db, &token, now).await.unwrap().unwrap();
        assert_eq!(
            (now_viewer.role, now_viewer.active),
            (Role::Viewer, false),
            "{}",
            test_db.name
        );

        assert_eq!(
            sessions::member(&db, &token, now + Duration::hours(8))
                .await
                .unwrap(),
            None,
            "expired"
        );
        assert_eq!(sessions::member(&db, "not-a-token", now).await.unwrap(), None);
        assert_eq!(
            sessions::member(&db, &sessions::new_token(), now).await.unwrap(),
            None
        );
        assert_eq!(
            sessions::purge_expired(&db, now + Duration::hours(9))
                .await
                .unwrap(),
            1
        );

        let second = sessions::create(&db, &person.membership_id, now + Duration::hours(1))
            .await
            .unwrap();
        sessions::delete(&db, &second).await.unwrap();
        assert_eq!(
            sessions::member(&db, &second, now).await.unwrap(),
            None,
            "{}: signed out",
            test_db.name
        );
        db.close().await;
        test_db.cleanup().await;
    }
}

/// §1.1 step 3: an attempt is consumed once, and not at all after 10 minutes.
#[tokio::test]
async fn sign_in_attempts_are_consumed_once_within_ten_minutes_security_1_1() {
    use chrono::{Duration, Utc};
    use server::store::sessions::{self, Attempt};

    for test_db in support::backends().await {
        let db = test_db.migrated().await;
        let attempt = Attempt {
            state: "state-1".into(),
            nonce: "nonce-1".into(),
            pkce_verifier: "verifier-1".into(),
            return_to: "/tasks".into(),
        };
        let token = sessions::begin_attempt(&db, &attempt).await.unwrap();
        let now = Utc::now();
        let (a, b) = tokio::join!(
            sessions::consume_attempt(&db, &token, now),
            sessions::consume_attempt(&db, &token, now)
        );
        let consumed: Vec<Attempt> = [a.unwrap(), b.unwrap()].into_iter().flatten().collect();
        assert_eq!(
            consumed,
            vec![attempt.clone()],
            "{}: exactly one callback gets it",
            test_db.name
        );
        assert_eq!(
            sessions::consume_attempt(&db, &token, now).await.unwrap(),
            None,
            "replayed"
        );

        let late = sessions::begin_attempt(&db, &attempt).await.unwrap();
        let after = now + Duration::seconds(601);
        assert_eq!(
            sessions::consume_attempt(&db, &late, after).await.unwrap(),
            None,
            "{}: expired",
            test_db.name
        );
        assert_eq!(
            sessions::consume_attempt(&db, "bad token", now).await.unwrap(),
            None
        );
        db.close().await;
        test_db.cleanup().await;
    }
}

/// §1.6: a fixed 60-second window per key, counted in the database.
#[tokio::test]
async fn budgets_count_fixed_windows_per_key_security_1_6() {
    use chrono::{Duration, TimeZone, Utc};
    use server::store::budgets;

    for test_db in support::backends().await {
        let db = test_db.migrated().await;
        let start = Utc.timestamp_opt(1_800_000_000, 0).unwrap();
        for n in 1..=3 {
            assert!(
                budgets::take(&db, "user:m:operate", 3, start + Duration::seconds(n))
                    .await
                    .unwrap()
            );
        }
        assert!(
            !budgets::take(&db, "user:m:operate", 3, start + Duration::seconds(59))
                .await
                .unwrap(),
            "{}",
            test_db.name
        );
        assert!(
            budgets::take(&db, "user:m:read", 3, start).await.unwrap(),
            "another key, another budget"
        );
        assert!(
            budgets::take(&db, "user:m:operate", 3, start + Duration::seconds(60))
                .await
                .unwrap(),
            "the next window"
        );
        assert_eq!(
            budgets::purge_past(&db, start + Duration::seconds(60))
                .await
                .unwrap(),
            2,
            "{}",
            test_db.name
        );
        db.close().await;
        test_db.cleanup().await;
    }
}

/// The housekeeping loop deletes expired sessions and past budget windows (ADR 0036).
#[tokio::test]
async fn housekeeping_purges_what_expired() {
    use chrono::{Duration, Utc};
    use server::store::{budgets, sessions};

    let test_db = support::sqlite();
    let db = test_db.migrated().await;
    let person = identity::provision(&db, &ada(Role::Viewer)).await.unwrap();
    let expired = sessions::create(&db, &person.membership_id, Utc::now() - Duration::seconds(1))
        .await
        .unwrap();
    let live = sessions::create(&db, &person.membership_id, Utc::now() + Duration::hours(1))
        .await
        .unwrap();
    budgets::take(&db, "user:m:read", 900, Utc::now() - Duration::minutes(5))
        .await
        .unwrap();
    let state = server::AppState::new(support::leptos_options(), test_db.config.clone(), db.clone()).unwrap();
    let shutdown = tokio_util::sync::CancellationToken::new();
    let worker = tokio::spawn(server::workers::housekeeping::run(
        state.worker_deps(),
        std::time::Duration::from_millis(10),
        shutdown.clone(),
    ));
    let purged = crate::ledger::eventually(std::time::Duration::from_secs(10), || async {
        sessions::member(&db, &expired, Utc::now() - Duration::minutes(1))
            .await
            .unwrap()
            .is_none()
    })
    .await;
    assert!(purged, "the expired session is deleted");
    assert!(
        sessions::member(&db, &live, Utc::now()).await.unwrap().is_some(),
        "a live one stays"
    );
    assert!(
        budgets::take(&db, "user:m:read", 1, Utc::now() - Duration::minutes(5))
            .await
            .unwrap(),
        "the old window is gone"
    );
    shutdown.cancel();
    worker.await.unwrap();
    test_db.cleanup().await;
}
