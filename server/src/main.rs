//! `agent-taskbay`: parse the command line, read the configuration, run.

use std::process::ExitCode;

use clap::Parser;
use server::cli::{self, Cli};
use server::config::Config;
use server::telemetry;

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    let config = match Config::from_env() {
        Ok(config) => config,
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
