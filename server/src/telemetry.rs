//! Structured logs with `tracing`: `RUST_LOG` filters, `A2A_LOG_FORMAT=json` switches to
//! one JSON object per line.

use tracing_subscriber::EnvFilter;

use crate::config::LogFormat;

/// Filter used when `RUST_LOG` is unset.
const DEFAULT_FILTER: &str = "info,sqlx=warn,sea_orm=warn";

/// Installs the global subscriber. Logs go to stderr so stdout stays for command output
/// (the demo agent's card URLs, `migrate` results).
pub fn init(format: LogFormat) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(DEFAULT_FILTER));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    // A second init (tests) is harmless; keep the first subscriber.
    let _ = match format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder
            .json()
            .flatten_event(true)
            .with_current_span(false)
            .try_init(),
    };
}
