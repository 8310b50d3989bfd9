//! `agent-taskbay`: parse the command line, read the configuration, run.

use std::process::ExitCode;

use clap::Parser;
use server::cli::{self, Cli};
use server::config::Config;
use server::telemetry;

/// mimalloc, not the system's malloc (ADR 0055).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[tokio::main]
async fn main() -> ExitCode {
    // `credentials` prints one fixed line for every failure, a bad argument or configuration
    // (the key ring) included, and exits 1 (`security-and-durability.md` §2.2 "CLI failures").
    let credentials = std::env::args().nth(1).as_deref() == Some("credentials");
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) if credentials && error.use_stderr() => return credentials_failed(),
        Err(error) => error.exit(),
    };
    let config = match Config::from_env() {
        Ok(config) => config,
        Err(_) if credentials => return credentials_failed(),
        Err(error) => {
            eprintln!("agent-taskbay: invalid configuration: {error}");
            return ExitCode::from(2);
        }
    };
    telemetry::init(config.log_format);
    match cli::run(cli, config).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("agent-taskbay: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn credentials_failed() -> ExitCode {
    eprintln!("agent-taskbay: {}", cli::credentials::FAILED);
    ExitCode::FAILURE
}
