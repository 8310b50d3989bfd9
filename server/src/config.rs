//! Configuration from the environment, with the original console's `A2A_*` names
//! (`shared/spec/reference.md` §5). Read once at start by [`Config::from_env`]; nothing else
//! reads the environment. A bad value stops the process with one line naming the variable.

use std::fmt;
use std::path::PathBuf;

use url::Url;

pub mod auth;
pub mod push;
mod variables;

pub use self::variables::VARIABLES;

/// Longest agent card URL accepted (`shared/spec/reference.md` §4.3).
pub const MAX_CARD_URL_LEN: usize = 1024;

/// A configuration value that failed validation.
#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq)]
#[error("{variable}: {message}")]
pub struct ConfigError {
    /// The environment variable at fault.
    pub variable: &'static str,
    pub message: String,
}

impl ConfigError {
    fn new(variable: &'static str, message: impl Into<String>) -> Self {
        Self {
            variable,
            message: message.into(),
        }
    }
}

/// A string that must never appear in logs (it may hold a password).
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// The secret value, for the one place that needs it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

/// Which database holds the system of record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DatabaseConfig {
    /// The embedded SQLite file (local use).
    Sqlite { path: PathBuf },
    /// A PostgreSQL server (hosted team deployment).
    Postgres {
        url: Secret,
        /// Run pending migrations at start (`A2A_AUTO_MIGRATE=true`).
        auto_migrate: bool,
    },
}

impl DatabaseConfig {
    /// Short name for logs and metrics.
    pub fn kind(&self) -> &'static str {
        match self {
            DatabaseConfig::Sqlite { .. } => "sqlite",
            DatabaseConfig::Postgres { .. } => "postgresql",
        }
    }
}

/// Log line format.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LogFormat {
    #[default]
    Text,
    Json,
}

/// Where the background workers run (`A2A_COMMAND_WORKER_MODE`, §6.1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WorkerMode {
    /// Inside `serve` (the default; the only mode of the embedded SQLite database).
    #[default]
    Embedded,
    /// In separate `agent-taskbay worker` processes; `serve` runs none (PostgreSQL only).
    External,
}

/// Rules for every outbound request to an agent (`shared/spec/security-and-durability.md` §7).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OutboundConfig {
    /// Loopback and private ranges are allowed only when this is set.
    pub allow_private_networks: bool,
    /// Exact origins (`scheme://host[:port]`); empty means no allowlist.
    pub allowed_origins: Vec<String>,
    /// `A2A_TRUSTED_CARD_KEYS`: the keys Agent Card signatures are verified with.
    pub trusted_card_keys: Vec<crate::gateway::card_trust::Pin>,
    /// `A2A_REQUIRE_SIGNED_CARDS`: refuse agents whose card is unsigned.
    pub require_signed_cards: bool,
    /// `A2A_EXTRA_CA_CERTS`: a PEM bundle trusted beside the public roots (agents on a private
    /// CA; the identity provider reads it too).
    pub extra_ca_certs: Option<std::path::PathBuf>,
}

/// The whole product configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    pub data_dir: PathBuf,
    pub artifact_dir: PathBuf,
    /// Archived bytes one organization may keep (`A2A_ARTIFACT_QUOTA_BYTES`); `None`: no quota.
    pub artifact_quota: Option<u64>,
    pub database: DatabaseConfig,
    pub outbound: OutboundConfig,
    /// `A2A_AUTH_ORIGIN`: the origin people reach the console at through a reverse proxy,
    /// accepted by the request guard besides the loopback names of the bound port.
    pub auth_origin: Option<String>,
    /// `A2A_AUTH_MODE`: development, or OIDC sign-in with its settings (or why they are unusable).
    pub auth: auth::AuthMode,
    /// Agents seeded into the `local` organization; they cannot be removed.
    pub registered_agents: Vec<Url>,
    /// Sideband URIs understood beyond the two built-in ones.
    pub sideband_extension_uris: Vec<String>,
    /// How often approval requests are expired and superseded.
    pub decision_sweep: std::time::Duration,
    /// Streams open to agents at once per process (`A2A_MAX_AGENT_STREAMS`).
    pub max_agent_streams: usize,
    pub log_format: LogFormat,
    /// Open live (SSE) connections allowed at once in this process (`A2A_MAX_LIVE_CONNECTIONS`).
    pub max_live_connections: usize,
    /// `A2A_VAULT_KEYS` and `A2A_VAULT_ACTIVE_KEY`: the credential vault's keys; `None`
    /// without them (agents that need credentials then fail closed).
    pub vault_keys: Option<crate::vault::KeyRing>,
    /// `A2A_COMMAND_WORKER_MODE`: whether `serve` runs the workers.
    pub worker_mode: WorkerMode,
    /// Push notifications from agents (`A2A_PUSH_*`); `None`: off.
    pub push: Option<push::PushSettings>,
}

/// `A2A_MAX_AGENT_STREAMS` default: the reference's 8 streams per process (§3.5).
pub const DEFAULT_MAX_AGENT_STREAMS: usize = 8;

/// `A2A_MAX_AGENT_STREAMS`: an integer from 1 to 1000.
fn parse_max_agent_streams(value: Option<String>) -> Result<usize, ConfigError> {
    const VAR: &str = "A2A_MAX_AGENT_STREAMS";
    let Some(value) = value else {
        return Ok(DEFAULT_MAX_AGENT_STREAMS);
    };
    value
        .parse::<usize>()
        .ok()
        .filter(|n| (1..=1000).contains(n))
        .ok_or_else(|| ConfigError::new(VAR, format!("must be an integer from 1 to 1000, not \"{value}\"")))
}
/// `A2A_MAX_LIVE_CONNECTIONS` default and ceiling.
pub const DEFAULT_MAX_LIVE_CONNECTIONS: usize = 2000;
pub const MAX_LIVE_CONNECTIONS_CEILING: usize = 100_000;

/// `A2A_DECISION_SWEEP_MS` default (reference §5).
pub const DEFAULT_DECISION_SWEEP: std::time::Duration = std::time::Duration::from_millis(15_000);

/// `A2A_ARTIFACT_QUOTA_BYTES` default: 10 GiB per organization (issue #26).
pub const DEFAULT_ARTIFACT_QUOTA_BYTES: u64 = 10 * 1024 * 1024 * 1024;

/// Name of the embedded database file inside the data directory.
pub const SQLITE_FILE_NAME: &str = "agent-taskbay.sqlite3";

impl Config {
    /// Reads the process environment.
    pub fn from_env() -> Result<Config, ConfigError> {
        Config::from_lookup(|name| std::env::var(name).ok())
    }

    /// Reads configuration through `lookup`, so tests can supply their own environment.
    /// Empty values count as unset.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Config, ConfigError> {
        let get = |name: &str| {
            lookup(name)
                .map(|v| v.trim().to_owned())
                .filter(|v| !v.is_empty())
        };

        let data_dir = PathBuf::from(get("A2A_DATA_DIR").unwrap_or_else(|| ".data".into()));
        let artifact_dir = get("A2A_ARTIFACT_DATA_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| data_dir.join("artifacts"));
        let artifact_quota = parse_quota(get("A2A_ARTIFACT_QUOTA_BYTES"))?;
        let database = database_config(&get, &data_dir)?;
        let outbound = OutboundConfig {
            allow_private_networks: parse_bool(
                "A2A_ALLOW_PRIVATE_NETWORKS",
                get("A2A_ALLOW_PRIVATE_NETWORKS"),
            )?,
            allowed_origins: parse_origins(get("A2A_ALLOWED_AGENT_ORIGINS"))?,
            trusted_card_keys: get("A2A_TRUSTED_CARD_KEYS")
                .map(|json| crate::gateway::card_trust::parse_pins(&json))
                .transpose()
                .map_err(|message| ConfigError::new("A2A_TRUSTED_CARD_KEYS", message))?
                .unwrap_or_default(),
            require_signed_cards: parse_bool("A2A_REQUIRE_SIGNED_CARDS", get("A2A_REQUIRE_SIGNED_CARDS"))?,
            extra_ca_certs: get("A2A_EXTRA_CA_CERTS").map(PathBuf::from),
        };
        let auth_origin = get("A2A_AUTH_ORIGIN")
            .map(|value| {
                exact_origin(&value).ok_or_else(|| {
                    ConfigError::new(
                        "A2A_AUTH_ORIGIN",
                        "must be an http(s) origin with no path, query, fragment or credentials",
                    )
                })
            })
            .transpose()?;
        let auth = auth::auth_mode(&get)?;
        let registered_agents = parse_card_urls(get("A2A_REGISTERED_AGENTS"))?;
        // An empty plural still suppresses the singular alias (reference §2.1).
        let sideband_extension_uris = match lookup("A2A_SIDEBAND_EXTENSION_URIS") {
            Some(list) if list.trim().is_empty() => Vec::new(),
            Some(list) => parse_uri_list("A2A_SIDEBAND_EXTENSION_URIS", list.trim())?,
            None => match get("A2A_SIDEBAND_EXTENSION_URI") {
                Some(list) => parse_uri_list("A2A_SIDEBAND_EXTENSION_URI", &list)?,
                None => Vec::new(),
            },
        };
        let log_format = match get("A2A_LOG_FORMAT").as_deref() {
            None | Some("text") => LogFormat::Text,
            Some("json") => LogFormat::Json,
            Some(other) => {
                return Err(ConfigError::new(
                    "A2A_LOG_FORMAT",
                    format!("must be text or json, not \"{other}\""),
                ));
            }
        };
        // Below 100 ms, or unreadable, falls back to the default (reference §5).
        let decision_sweep = get("A2A_DECISION_SWEEP_MS")
            .and_then(|v| v.parse::<u64>().ok())
            .filter(|ms| *ms >= 100)
            .map_or(DEFAULT_DECISION_SWEEP, std::time::Duration::from_millis);
        let max_agent_streams = parse_max_agent_streams(get("A2A_MAX_AGENT_STREAMS"))?;
        let max_live_connections = parse_max_live_connections(get("A2A_MAX_LIVE_CONNECTIONS"))?;
        let vault_keys = crate::vault::KeyRing::from_vars(
            get("A2A_VAULT_KEYS").as_deref(),
            get("A2A_VAULT_ACTIVE_KEY").as_deref(),
        )
        .map_err(|message| ConfigError::new("A2A_VAULT_KEYS", message))?;
        let worker_mode = match get("A2A_COMMAND_WORKER_MODE").as_deref() {
            None | Some("embedded") => WorkerMode::Embedded,
            Some("external") if matches!(database, DatabaseConfig::Sqlite { .. }) => {
                return Err(ConfigError::new(
                    "A2A_COMMAND_WORKER_MODE",
                    "External command workers require PostgreSQL.",
                ));
            }
            Some("external") => WorkerMode::External,
            Some(_) => {
                return Err(ConfigError::new(
                    "A2A_COMMAND_WORKER_MODE",
                    "Invalid A2A_COMMAND_WORKER_MODE.",
                ));
            }
        };
        let push = push::parse(
            get("A2A_PUSH_CALLBACK_ORIGIN"),
            get("A2A_PUSH_SIGNING_KEY"),
            parse_bool(push::ALLOW_LOOPBACK_HTTP, get(push::ALLOW_LOOPBACK_HTTP))?,
        )?;
        Ok(Config {
            push,
            worker_mode,
            vault_keys,
            max_live_connections,
            decision_sweep,
            max_agent_streams,
            data_dir,
            artifact_dir,
            artifact_quota,
            database,
            outbound,
            auth_origin,
            auth,
            registered_agents,
            sideband_extension_uris,
            log_format,
        })
    }
}

fn parse_max_live_connections(value: Option<String>) -> Result<usize, ConfigError> {
    let Some(value) = value else {
        return Ok(DEFAULT_MAX_LIVE_CONNECTIONS);
    };
    value
        .parse::<usize>()
        .ok()
        .filter(|n| (1..=MAX_LIVE_CONNECTIONS_CEILING).contains(n))
        .ok_or_else(|| {
            ConfigError::new(
                "A2A_MAX_LIVE_CONNECTIONS",
                format!("must be a whole number from 1 to {MAX_LIVE_CONNECTIONS_CEILING}, not \"{value}\""),
            )
        })
}

fn database_config(
    get: &impl Fn(&str) -> Option<String>,
    data_dir: &std::path::Path,
) -> Result<DatabaseConfig, ConfigError> {
    let url = get("A2A_DATABASE_URL");
    let wants_postgres = match get("A2A_DATABASE_PROFILE").as_deref() {
        None => url.is_some(),
        Some("postgresql" | "postgres") => true,
        Some("sqlite" | "pglite" | "embedded") => false,
        Some(other) => {
            return Err(ConfigError::new(
                "A2A_DATABASE_PROFILE",
                format!("must be sqlite or postgresql, not \"{other}\""),
            ));
        }
    };
    if !wants_postgres {
        if url.is_some() {
            return Err(ConfigError::new(
                "A2A_DATABASE_URL",
                "is set but A2A_DATABASE_PROFILE selects the embedded SQLite database; unset one of them",
            ));
        }
        return Ok(DatabaseConfig::Sqlite {
            path: data_dir.join(SQLITE_FILE_NAME),
        });
    }
    let Some(url) = url else {
        return Err(ConfigError::new(
            "A2A_DATABASE_URL",
            "is required when A2A_DATABASE_PROFILE is postgresql",
        ));
    };
    if !(url.starts_with("postgres://") || url.starts_with("postgresql://")) || Url::parse(&url).is_err() {
        return Err(ConfigError::new(
            "A2A_DATABASE_URL",
            "must be a postgres:// or postgresql:// URL",
        ));
    }
    // Exactly `true` enables; any other non-empty value disables (the original's rule).
    let auto_migrate = get("A2A_AUTO_MIGRATE").as_deref() == Some("true");
    Ok(DatabaseConfig::Postgres {
        url: Secret(url),
        auto_migrate,
    })
}

fn parse_bool(variable: &'static str, value: Option<String>) -> Result<bool, ConfigError> {
    match value.as_deref() {
        None | Some("false") => Ok(false),
        Some("true") => Ok(true),
        Some(other) => Err(ConfigError::new(
            variable,
            format!("must be true or false, not \"{other}\""),
        )),
    }
}

/// `A2A_ARTIFACT_QUOTA_BYTES`: unset is [`DEFAULT_ARTIFACT_QUOTA_BYTES`], `0` turns the quota
/// off, anything else must be a whole number of bytes.
fn parse_quota(value: Option<String>) -> Result<Option<u64>, ConfigError> {
    match value.as_deref() {
        None => Ok(Some(DEFAULT_ARTIFACT_QUOTA_BYTES)),
        Some(text) => match text.parse::<u64>() {
            Ok(0) => Ok(None),
            Ok(bytes) => Ok(Some(bytes)),
            Err(_) => Err(ConfigError::new(
                "A2A_ARTIFACT_QUOTA_BYTES",
                format!("must be a whole number of bytes (0 turns the quota off), not \"{text}\""),
            )),
        },
    }
}

fn split_list(list: &str) -> impl Iterator<Item = &str> {
    list.split(',').map(str::trim).filter(|entry| !entry.is_empty())
}

/// `A2A_ALLOWED_AGENT_ORIGINS`: each entry must be exactly an http(s) origin.
fn parse_origins(value: Option<String>) -> Result<Vec<String>, ConfigError> {
    const VAR: &str = "A2A_ALLOWED_AGENT_ORIGINS";
    let Some(list) = value else { return Ok(Vec::new()) };
    let mut origins = Vec::new();
    for entry in split_list(&list) {
        match exact_origin(entry) {
            Some(origin) => origins.push(origin),
            None => {
                return Err(ConfigError::new(
                    VAR,
                    format!("Agent allowlist entries must be exact origins. \"{entry}\" is not one."),
                ));
            }
        }
    }
    Ok(origins)
}

/// `entry` as an http(s) origin (`scheme://host[:port]`, lower-case, default port dropped) when
/// it is exactly one: a trailing slash is tolerated, but no path, query, fragment or
/// credentials can hide in it.
pub fn exact_origin(entry: &str) -> Option<String> {
    Url::parse(entry)
        .ok()
        .filter(|url| matches!(url.scheme(), "http" | "https") && url.host().is_some())
        .map(|url| url.origin().ascii_serialization())
        .filter(|origin| {
            let entry = entry.to_ascii_lowercase();
            entry == *origin || entry == format!("{origin}/")
        })
}

/// Validates an agent card URL: present, http(s), at most [`MAX_CARD_URL_LEN`] characters, no
/// credentials, query or fragment. The messages are the original console's
/// (`shared/spec/reference.md` §4.3).
pub fn validate_card_url(raw: &str) -> Result<Url, String> {
    let raw = raw.trim();
    if raw.is_empty() {
        return Err("cardUrl is required.".into());
    }
    if raw.chars().count() > MAX_CARD_URL_LEN {
        return Err(format!("Agent Card URL exceeds {MAX_CARD_URL_LEN} characters."));
    }
    let url = Url::parse(raw).map_err(|_| "Agent Card URL must be http(s).".to_owned())?;
    if !matches!(url.scheme(), "http" | "https") || url.host().is_none() {
        return Err("Agent Card URL must be http(s).".into());
    }
    if !url.username().is_empty()
        || url.password().is_some()
        || url.query().is_some()
        || url.fragment().is_some()
    {
        return Err("Agent Card URL must not contain credentials, query strings or fragments.".into());
    }
    Ok(url)
}

fn parse_card_urls(value: Option<String>) -> Result<Vec<Url>, ConfigError> {
    let Some(list) = value else { return Ok(Vec::new()) };
    split_list(&list)
        .map(|entry| {
            validate_card_url(entry).map_err(|message| ConfigError::new("A2A_REGISTERED_AGENTS", message))
        })
        .collect()
}

fn parse_uri_list(variable: &'static str, list: &str) -> Result<Vec<String>, ConfigError> {
    let mut uris: Vec<String> = Vec::new();
    for entry in split_list(list) {
        if Url::parse(entry).is_err() {
            return Err(ConfigError::new(
                variable,
                format!("\"{entry}\" is not an absolute URI"),
            ));
        }
        if !uris.iter().any(|seen| seen == entry) {
            uris.push(entry.to_owned());
        }
    }
    Ok(uris)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn config(vars: &[(&str, &str)]) -> Result<Config, ConfigError> {
        let env: HashMap<String, String> = vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        Config::from_lookup(|name| env.get(name).cloned())
    }

    #[test]
    fn defaults_are_the_embedded_database_under_dot_data() {
        let cfg = config(&[]).unwrap();
        assert_eq!(
            cfg.database,
            DatabaseConfig::Sqlite {
                path: PathBuf::from(".data/agent-taskbay.sqlite3")
            }
        );
        assert_eq!(cfg.artifact_dir, PathBuf::from(".data/artifacts"));
        assert!(!cfg.outbound.allow_private_networks);
        assert_eq!(cfg.log_format, LogFormat::Text);
    }

    #[test]
    fn auth_origin_must_be_an_exact_origin() {
        assert_eq!(config(&[]).unwrap().auth_origin, None);
        let cfg = config(&[("A2A_AUTH_ORIGIN", "https://Taskbay.example/")]).unwrap();
        assert_eq!(cfg.auth_origin.as_deref(), Some("https://taskbay.example"));
        for bad in [
            "https://taskbay.example/app",
            "taskbay.example",
            "https://u@taskbay.example",
            "ftp://x.example",
        ] {
            let error = config(&[("A2A_AUTH_ORIGIN", bad)]).unwrap_err();
            assert_eq!(
                error.to_string(),
                "A2A_AUTH_ORIGIN: must be an http(s) origin with no path, query, fragment or credentials",
                "{bad}"
            );
        }
    }

    #[test]
    fn data_dir_moves_database_and_artifacts() {
        let cfg = config(&[("A2A_DATA_DIR", "/srv/taskbay")]).unwrap();
        assert_eq!(
            cfg.database,
            DatabaseConfig::Sqlite {
                path: PathBuf::from("/srv/taskbay/agent-taskbay.sqlite3")
            }
        );
        assert_eq!(cfg.artifact_dir, PathBuf::from("/srv/taskbay/artifacts"));
    }

    #[test]
    fn database_url_selects_postgres_and_auto_migrate_needs_exactly_true() {
        let cfg = config(&[
            ("A2A_DATABASE_URL", "postgres://u@db/taskbay"),
            ("A2A_AUTO_MIGRATE", "true"),
        ])
        .unwrap();
        assert!(matches!(
            cfg.database,
            DatabaseConfig::Postgres {
                auto_migrate: true,
                ..
            }
        ));
        let cfg = config(&[
            ("A2A_DATABASE_URL", "postgresql://db/t"),
            ("A2A_AUTO_MIGRATE", "TRUE"),
        ])
        .unwrap();
        assert!(matches!(
            cfg.database,
            DatabaseConfig::Postgres {
                auto_migrate: false,
                ..
            }
        ));
    }

    #[test]
    fn bad_database_settings_name_the_variable() {
        let err = config(&[("A2A_DATABASE_URL", "mysql://db/x")]).unwrap_err();
        assert_eq!(err.variable, "A2A_DATABASE_URL");
        let err = config(&[("A2A_DATABASE_PROFILE", "postgresql")]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "A2A_DATABASE_URL: is required when A2A_DATABASE_PROFILE is postgresql"
        );
        let err = config(&[("A2A_DATABASE_PROFILE", "oracle")]).unwrap_err();
        assert_eq!(err.variable, "A2A_DATABASE_PROFILE");
    }

    #[test]
    fn postgres_url_is_redacted_in_debug_output() {
        let cfg = config(&[("A2A_DATABASE_URL", "postgres://u:hunter2@db/t")]).unwrap();
        assert!(!format!("{cfg:?}").contains("hunter2"));
    }

    #[test]
    fn booleans_are_strict() {
        assert!(
            config(&[("A2A_ALLOW_PRIVATE_NETWORKS", "true")])
                .unwrap()
                .outbound
                .allow_private_networks
        );
        let err = config(&[("A2A_ALLOW_PRIVATE_NETWORKS", "yes")]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "A2A_ALLOW_PRIVATE_NETWORKS: must be true or false, not \"yes\""
        );
    }

    #[test]
    fn allowlist_accepts_exact_origins_only() {
        let cfg = config(&[(
            "A2A_ALLOWED_AGENT_ORIGINS",
            "https://a.example, http://127.0.0.1:4010/",
        )])
        .unwrap();
        assert_eq!(
            cfg.outbound.allowed_origins,
            vec!["https://a.example", "http://127.0.0.1:4010"]
        );
        for bad in [
            "https://a.example/agents",
            "https://a.example?x=1",
            "https://u:p@a.example",
            "ftp://a.example",
            "a.example",
        ] {
            let err = config(&[("A2A_ALLOWED_AGENT_ORIGINS", bad)]).unwrap_err();
            assert_eq!(err.variable, "A2A_ALLOWED_AGENT_ORIGINS", "{bad}");
            assert!(
                err.message
                    .starts_with("Agent allowlist entries must be exact origins."),
                "{bad}"
            );
        }
    }

    #[test]
    fn registered_agents_are_validated_card_urls() {
        let cfg = config(&[(
            "A2A_REGISTERED_AGENTS",
            "http://127.0.0.1:4010/plain/card.json,https://x.example",
        )])
        .unwrap();
        assert_eq!(cfg.registered_agents.len(), 2);
        let long = format!("https://x.example/{}", "a".repeat(MAX_CARD_URL_LEN));
        for bad in [
            "https://u:p@x.example",
            "https://x.example/?q=1",
            "https://x.example/#f",
            "file:///etc/passwd",
            long.as_str(),
        ] {
            let err = config(&[("A2A_REGISTERED_AGENTS", bad)]).unwrap_err();
            assert_eq!(err.variable, "A2A_REGISTERED_AGENTS", "{bad}");
        }
    }

    #[test]
    fn card_url_errors_are_the_originals() {
        assert_eq!(validate_card_url(" ").unwrap_err(), "cardUrl is required.");
        assert_eq!(
            validate_card_url("ftp://x.example/card.json").unwrap_err(),
            "Agent Card URL must be http(s)."
        );
        assert_eq!(
            validate_card_url("not a url").unwrap_err(),
            "Agent Card URL must be http(s)."
        );
        let hidden = "Agent Card URL must not contain credentials, query strings or fragments.";
        for bad in [
            "https://u:p@x.example/c.json",
            "https://x.example/c.json?a=1",
            "https://x.example/c.json#f",
        ] {
            assert_eq!(validate_card_url(bad).unwrap_err(), hidden, "{bad}");
        }
        let long = format!("https://x.example/{}", "é".repeat(MAX_CARD_URL_LEN));
        assert_eq!(
            validate_card_url(&long).unwrap_err(),
            "Agent Card URL exceeds 1024 characters."
        );
        assert_eq!(
            validate_card_url("http://127.0.0.1:4010/form/card.json")
                .unwrap()
                .port(),
            Some(4010)
        );
    }

    #[test]
    fn sideband_singular_is_only_an_alias_when_plural_is_unset() {
        let cfg = config(&[("A2A_SIDEBAND_EXTENSION_URI", "urn:a:b")]).unwrap();
        assert_eq!(cfg.sideband_extension_uris, vec!["urn:a:b"]);
        let cfg = config(&[
            ("A2A_SIDEBAND_EXTENSION_URIS", "urn:c:d,urn:c:d"),
            ("A2A_SIDEBAND_EXTENSION_URI", "urn:a:b"),
        ])
        .unwrap();
        assert_eq!(cfg.sideband_extension_uris, vec!["urn:c:d"]);
        // An empty plural suppresses the alias (reference §2.1).
        let cfg = config(&[
            ("A2A_SIDEBAND_EXTENSION_URIS", ""),
            ("A2A_SIDEBAND_EXTENSION_URI", "urn:a:b"),
        ])
        .unwrap();
        assert!(cfg.sideband_extension_uris.is_empty());
    }

    #[test]
    fn decision_sweep_below_100_ms_falls_back_to_the_default_reference_5() {
        assert_eq!(config(&[]).unwrap().decision_sweep, DEFAULT_DECISION_SWEEP);
        let at = |v: &str| config(&[("A2A_DECISION_SWEEP_MS", v)]).unwrap().decision_sweep;
        assert_eq!(at("250"), std::time::Duration::from_millis(250));
        assert_eq!(at("99"), DEFAULT_DECISION_SWEEP);
        assert_eq!(at("soon"), DEFAULT_DECISION_SWEEP);
    }

    #[test]
    fn artifact_quota_defaults_to_10_gib_and_0_turns_it_off_issue_26() {
        assert_eq!(config(&[]).unwrap().artifact_quota, Some(10 * 1024 * 1024 * 1024));
        let at = |v: &str| config(&[("A2A_ARTIFACT_QUOTA_BYTES", v)]);
        assert_eq!(at("1024").unwrap().artifact_quota, Some(1024));
        assert_eq!(at("0").unwrap().artifact_quota, None);
        assert_eq!(
            at(" ").unwrap().artifact_quota,
            Some(DEFAULT_ARTIFACT_QUOTA_BYTES)
        );
        for bad in ["-1", "10GiB", "1.5", "lots", "99999999999999999999999"] {
            assert_eq!(
                at(bad).unwrap_err().to_string(),
                format!(
                    "A2A_ARTIFACT_QUOTA_BYTES: must be a whole number of bytes (0 turns the quota off), not \"{bad}\""
                ),
            );
        }
    }

    #[test]
    fn max_agent_streams_is_an_integer_from_1_to_1000() {
        assert_eq!(
            config(&[]).unwrap().max_agent_streams,
            8,
            "the reference's 8 (§3.5)"
        );
        let at = |v: &str| config(&[("A2A_MAX_AGENT_STREAMS", v)]);
        assert_eq!(at("1").unwrap().max_agent_streams, 1);
        assert_eq!(at("1000").unwrap().max_agent_streams, 1000);
        for bad in ["0", "1001", "-3", "eight", "2.5"] {
            let error = at(bad).unwrap_err();
            assert_eq!(error.variable, "A2A_MAX_AGENT_STREAMS");
            assert_eq!(
                error.to_string(),
                format!("A2A_MAX_AGENT_STREAMS: must be an integer from 1 to 1000, not \"{bad}\"")
            );
        }
    }

    #[test]
    fn log_format_must_be_known() {
        assert_eq!(
            config(&[("A2A_LOG_FORMAT", "json")]).unwrap().log_format,
            LogFormat::Json
        );
        assert_eq!(
            config(&[("A2A_LOG_FORMAT", "xml")]).unwrap_err().variable,
            "A2A_LOG_FORMAT"
        );
    }

    #[test]
    fn worker_mode_is_embedded_or_external_on_postgres_section_6_1() {
        assert_eq!(config(&[]).unwrap().worker_mode, WorkerMode::Embedded);
        let pg = ("A2A_DATABASE_URL", "postgres://u@127.0.0.1/db");
        assert_eq!(
            config(&[pg, ("A2A_COMMAND_WORKER_MODE", "external")])
                .unwrap()
                .worker_mode,
            WorkerMode::External
        );
        assert_eq!(
            config(&[("A2A_COMMAND_WORKER_MODE", "external")])
                .unwrap_err()
                .to_string(),
            "A2A_COMMAND_WORKER_MODE: External command workers require PostgreSQL."
        );
        assert_eq!(
            config(&[pg, ("A2A_COMMAND_WORKER_MODE", "separate")])
                .unwrap_err()
                .to_string(),
            "A2A_COMMAND_WORKER_MODE: Invalid A2A_COMMAND_WORKER_MODE."
        );
    }

    #[test]
    fn max_live_connections_is_a_bounded_whole_number() {
        let at = |v: &str| config(&[("A2A_MAX_LIVE_CONNECTIONS", v)]);
        assert_eq!(
            config(&[]).unwrap().max_live_connections,
            DEFAULT_MAX_LIVE_CONNECTIONS
        );
        assert_eq!(at("2").unwrap().max_live_connections, 2);
        assert_eq!(at(" 100000 ").unwrap().max_live_connections, 100_000);
        for bad in ["0", "-1", "100001", "lots", "2.5"] {
            assert_eq!(
                at(bad).unwrap_err().to_string(),
                format!("A2A_MAX_LIVE_CONNECTIONS: must be a whole number from 1 to 100000, not \"{bad}\""),
            );
        }
    }
}
