//! The variables the server reads (`shared/spec/reference.md` §5), each with its one-line meaning.

/// Every variable the server reads, with a one-line meaning; printed by `--help` and kept in
/// step with `docs/reference/configuration.md` by a test.
pub const VARIABLES: &[(&str, &str)] = &[
    (
        "A2A_DATA_DIR",
        "Data directory for the embedded SQLite database and artifacts (default .data)",
    ),
    (
        "A2A_DATABASE_URL",
        "postgres:// or postgresql:// URL; selects PostgreSQL instead of embedded SQLite",
    ),
    (
        "A2A_DATABASE_PROFILE",
        "sqlite (embedded; alias pglite) or postgresql; default follows A2A_DATABASE_URL",
    ),
    (
        "A2A_AUTO_MIGRATE",
        "exactly true runs PostgreSQL migrations at start (SQLite always migrates)",
    ),
    (
        "A2A_ARTIFACT_DATA_DIR",
        "Content-addressed artifact store (default <data dir>/artifacts)",
    ),
    (
        "A2A_ARTIFACT_QUOTA_BYTES",
        "Archived bytes each organization may keep (default 10737418240 = 10 GiB; 0 = no quota)",
    ),
    (
        "A2A_ALLOWED_AGENT_ORIGINS",
        "Comma-separated exact origins every outbound agent URL must match",
    ),
    (
        "A2A_ALLOW_PRIVATE_NETWORKS",
        "true allows loopback and private-range agents (default false)",
    ),
    (
        "A2A_AUTH_ORIGIN",
        "The console's public origin (scheme://host[:port]) behind a reverse proxy; requests must name it or a loopback address",
    ),
    (
        "A2A_AUTH_MODE",
        "development (default: every request is the local administrator, loopback only) or oidc (sign-in)",
    ),
    ("A2A_OIDC_ISSUER", "oidc: the provider's https issuer URL"),
    (
        "A2A_OIDC_CLIENT_ID",
        "oidc: the console's client id at the provider",
    ),
    (
        "A2A_OIDC_CLIENT_SECRET",
        "oidc: the client secret (sent as client_secret_post; never logged)",
    ),
    (
        "A2A_AUTH_ORGANIZATION_SLUG",
        "oidc: the organization every sign-in resolves to (created when missing)",
    ),
    (
        "A2A_AUTH_SESSION_SECONDS",
        "oidc: absolute session lifetime, 60 to 86400 (default 28800)",
    ),
    (
        "A2A_EXTRA_CA_CERTS",
        "PEM file of CA certificates trusted beside the public roots, toward the identity provider and agents",
    ),
    (
        "A2A_TRUSTED_CARD_KEYS",
        "JSON array of {origin, kid, jwk, expiresAt}: public keys Agent Card signatures are verified with",
    ),
    (
        "A2A_REQUIRE_SIGNED_CARDS",
        "true: agents whose card is unsigned are shown but never called (default false)",
    ),
    (
        "A2A_COMMAND_WORKER_MODE",
        "embedded (default: serve runs the workers) or external (PostgreSQL: `agent-taskbay worker` processes run them)",
    ),
    (
        "A2A_VAULT_KEYS",
        "JSON object of credential vault key ids to 64 hex characters (32-byte keys); back it up apart from the database",
    ),
    (
        "A2A_VAULT_ACTIVE_KEY",
        "The key id of A2A_VAULT_KEYS that new agent credentials are encrypted with",
    ),
    (
        "A2A_REGISTERED_AGENTS",
        "Comma-separated agent card URLs seeded into the local organization",
    ),
    (
        "A2A_SIDEBAND_EXTENSION_URIS",
        "Comma-separated extra sideband extension URIs understood",
    ),
    (
        "A2A_SIDEBAND_EXTENSION_URI",
        "Alias of A2A_SIDEBAND_EXTENSION_URIS, used only when the plural is unset",
    ),
    (
        "A2A_DECISION_SWEEP_MS",
        "How often approval requests are expired and superseded, in ms (default 15000, at least 100)",
    ),
    (
        "A2A_MAX_AGENT_STREAMS",
        "Streams open to agents at once per process, 1 to 1000 (default 8); the rest are polled",
    ),
    (
        "A2A_LOG_FORMAT",
        "text (default) or json (one JSON object per line)",
    ),
    (
        "A2A_MAX_LIVE_CONNECTIONS",
        "Open live (SSE) connections allowed per process; more answer 503 (default 2000, 1-100000)",
    ),
    (
        "RUST_LOG",
        "Log filter, e.g. info or agent_taskbay=debug (default info)",
    ),
    ("PORT", "Port for serve when --port is not given (default 3002)"),
    (
        "LEPTOS_SITE_ROOT",
        "Directory of the built site assets (default target/site)",
    ),
    (
        "A2A_PUSH_CALLBACK_ORIGIN",
        "https origin agents deliver push notifications to (path /); unset: push off",
    ),
    (
        "A2A_PUSH_SIGNING_KEY",
        "64 hex digits; derives each push registration's callback token (same on every process)",
    ),
    (
        "A2A_PUSH_ALLOW_LOOPBACK_HTTP",
        "true allows a plain http callback origin on localhost, 127.0.0.1 or [::1]",
    ),
];
