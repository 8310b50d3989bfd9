//! `agent-taskbay credentials store|revoke|reencrypt` (`shared/spec/security-and-durability.md`
//! §2.2 "Operations"): an agent's credential without a browser. `store` reads the binding from
//! standard input (at most 256,000 bytes, never echoed); `reencrypt --all` moves every enabled
//! binding to the active key (the key rotation procedure in `docs/guides/credentials.md`).
//! Every failure prints the same one line, [`FAILED`], and exits 1: nothing of the input, the
//! keys or the cause is shown.

use std::io::Read as _;

use clap::{Args, Subcommand};

use crate::config::Config;
use crate::db::Db;
use crate::serve;
use crate::services::credentials;
use crate::store::audit::Actor;
use crate::store::{credentials as credential_store, organizations};
use crate::vault::Vault;

/// The one line printed for every failure.
pub const FAILED: &str = "Credential update failed. Check the organization/agent, vault key configuration and stdin binding format. No secret values are printed.";
/// Most bytes read from standard input (§2.1).
pub const MAX_STDIN_BYTES: u64 = 256_000;

/// What `credentials` does.
#[derive(Debug, Subcommand)]
pub enum CredentialsCommand {
    /// Store or replace the agent's binding, read as JSON from standard input.
    Store(Target),
    /// Revoke the agent's credential: calls fail closed until one is stored again.
    Revoke(Target),
    /// Encrypt the agent's binding again with A2A_VAULT_ACTIVE_KEY (or every binding: --all).
    Reencrypt(ReencryptArgs),
}

/// The agent a command is about.
#[derive(Debug, Args)]
pub struct Target {
    /// The organization's slug (`local` without sign-in).
    #[arg(long)]
    pub organization: String,
    /// The agent's id (as in its page's URL).
    #[arg(long)]
    pub agent: String,
}

/// Options of `credentials reencrypt`.
#[derive(Debug, Args)]
pub struct ReencryptArgs {
    #[arg(long, required_unless_present = "all", requires = "agent")]
    pub organization: Option<String>,
    #[arg(long, required_unless_present = "all", requires = "organization")]
    pub agent: Option<String>,
    /// Every enabled binding of every organization.
    #[arg(long, conflicts_with_all = ["organization", "agent"])]
    pub all: bool,
}

/// Runs `credentials <command>`; any failure is [`FAILED`].
pub async fn run(command: CredentialsCommand, config: Config) -> anyhow::Result<()> {
    let vault = Vault::new(config.vault_keys.clone());
    let db = serve::open_database(&config).await.map_err(|_| failed())?;
    let outcome = execute(&db, &vault, command).await;
    db.close().await;
    match outcome {
        Some(line) => {
            println!("{line}");
            Ok(())
        }
        None => Err(failed()),
    }
}

fn failed() -> anyhow::Error {
    anyhow::Error::msg(FAILED)
}

async fn execute(db: &Db, vault: &Vault, command: CredentialsCommand) -> Option<String> {
    let actor = Actor::System;
    match command {
        CredentialsCommand::Store(target) => {
            let binding = read_stdin()?;
            let organization = organizations::by_slug(db, &target.organization).await.ok()?;
            credentials::store_binding(db, vault, &organization.id, &target.agent, &binding, &actor)
                .await
                .ok()?;
            Some("Agent credential stored.".into())
        }
        CredentialsCommand::Revoke(target) => {
            let organization = organizations::by_slug(db, &target.organization).await.ok()?;
            credentials::revoke(db, &organization.id, &target.agent, &actor)
                .await
                .ok()?;
            Some("Agent credential revoked.".into())
        }
        CredentialsCommand::Reencrypt(args) if args.all => {
            let rows = credential_store::all_enabled(db).await.ok()?;
            // Every row is tried, so one that fails (its key gone, changed meanwhile) does not
            // keep the others on the old key; any failure is still the one failure line.
            let (mut moved, mut failed) = (0, 0);
            for row in &rows {
                match credentials::reencrypt(db, vault, &row.organization_id, &row.agent_id, &actor).await {
                    Ok(after) if after.key_id != row.key_id => moved += 1,
                    Ok(_) => {}
                    Err(_) => failed += 1,
                }
            }
            if failed > 0 {
                return None;
            }
            Some(format!(
                "Re-encrypted {moved} of {} agent credentials with the active key.",
                rows.len()
            ))
        }
        CredentialsCommand::Reencrypt(args) => {
            let organization = organizations::by_slug(db, args.organization.as_deref()?)
                .await
                .ok()?;
            credentials::reencrypt(db, vault, &organization.id, args.agent.as_deref()?, &actor)
                .await
                .ok()?;
            Some("Agent credential re-encrypted.".into())
        }
    }
}

/// Standard input, refused past [`MAX_STDIN_BYTES`].
fn read_stdin() -> Option<Vec<u8>> {
    let mut input = Vec::new();
    std::io::stdin()
        .take(MAX_STDIN_BYTES + 1)
        .read_to_end(&mut input)
        .ok()?;
    (input.len() as u64 <= MAX_STDIN_BYTES).then_some(input)
}
