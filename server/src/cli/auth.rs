//! `agent-taskbay auth provision`: gives a person a membership without editing the database
//! (`shared/spec/security-and-durability.md` §1.1 step 5, `shared/spec/reference.md` §7): the first
//! admin of a team deployment, or anyone the identity provider signs in. Idempotent: running it
//! again updates the role and re-enables the membership. One line out: `Identity membership
//! provisioned.`

use anyhow::Context as _;
use clap::{Args, Subcommand};

use crate::config::Config;
use crate::serve;
use crate::store::identity::{self, DEVELOPMENT_ISSUER, Provision, Role};

/// What `auth` does.
#[derive(Debug, Subcommand)]
pub enum AuthCommand {
    /// Give the person signed in as --issuer/--subject a role in an organization.
    Provision(ProvisionArgs),
}

/// Options of `auth provision`.
#[derive(Debug, Args)]
pub struct ProvisionArgs {
    /// The identity provider's issuer, exactly as in A2A_OIDC_ISSUER (https, no query or
    /// fragment; a trailing slash is ignored).
    #[arg(long, value_parser = parse_issuer)]
    pub issuer: String,
    /// The person's `sub` claim at that issuer.
    #[arg(long, value_parser = parse_subject)]
    pub subject: String,
    /// The organization's slug (A2A_AUTH_ORGANIZATION_SLUG; created when new).
    #[arg(long, value_parser = parse_slug)]
    pub organization: String,
    /// The person's display name (kept from the first provisioning).
    #[arg(long, value_parser = parse_name)]
    pub name: String,
    /// admin, operator or viewer.
    #[arg(long, value_parser = parse_role)]
    pub role: Role,
}

/// The line printed on success.
pub const PROVISIONED: &str = "Identity membership provisioned.";

/// Runs `auth <command>`.
pub async fn run(command: AuthCommand, config: Config) -> anyhow::Result<()> {
    match command {
        AuthCommand::Provision(args) => provision(args, config).await,
    }
}

async fn provision(args: ProvisionArgs, config: Config) -> anyhow::Result<()> {
    let db = serve::open_database(&config).await?;
    let provisioned = identity::provision(
        &db,
        &Provision {
            issuer: &args.issuer,
            subject: &args.subject,
            organization: &args.organization,
            name: &args.name,
            role: args.role,
        },
    )
    .await
    .context("provisioning the membership");
    db.close().await;
    provisioned?;
    println!("{PROVISIONED}");
    Ok(())
}

/// An `https` issuer without credentials, query or fragment (its trailing slash dropped, as
/// the configured issuer's is), or the development-mode administrator's issuer.
pub fn parse_issuer(value: &str) -> Result<String, String> {
    if value == DEVELOPMENT_ISSUER {
        return Ok(value.to_owned());
    }
    crate::config::auth::normalize_issuer(value)
        .ok_or_else(|| "must be the provider's https issuer URL, without query or fragment".to_owned())
}

fn parse_subject(value: &str) -> Result<String, String> {
    if value.is_empty() || value.len() > 255 || value.chars().any(char::is_control) {
        return Err("must be 1 to 255 characters, without control characters".to_owned());
    }
    Ok(value.to_owned())
}

/// An organization slug: lowercase letters, digits and dashes, starting with a letter or digit.
pub fn parse_slug(value: &str) -> Result<String, String> {
    let mut chars = value.chars();
    let valid = chars
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && value.len() <= 63;
    if !valid {
        return Err(
            "must be 1 to 63 lowercase letters, digits or dashes, starting with a letter or digit".to_owned(),
        );
    }
    Ok(value.to_owned())
}

fn parse_name(value: &str) -> Result<String, String> {
    let name = value.trim();
    if name.is_empty() || name.chars().count() > 200 || name.chars().any(char::is_control) {
        return Err("must be 1 to 200 characters, without control characters".to_owned());
    }
    Ok(name.to_owned())
}

fn parse_role(value: &str) -> Result<Role, String> {
    Role::parse(value).ok_or_else(|| "must be admin, operator or viewer".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn issuers_are_https_urls_without_query_or_fragment() {
        assert_eq!(
            parse_issuer("https://id.example.com/").unwrap(),
            "https://id.example.com"
        );
        assert_eq!(
            parse_issuer("https://id.example.com/realms/team").unwrap(),
            "https://id.example.com/realms/team"
        );
        assert_eq!(parse_issuer(DEVELOPMENT_ISSUER).unwrap(), DEVELOPMENT_ISSUER);
        for refused in [
            "",
            "http://id.example.com",
            "https://user:pw@id.example.com",
            "https://id.example.com/?a=1",
            "https://id.example.com/#x",
            "id.example.com",
        ] {
            assert!(parse_issuer(refused).is_err(), "{refused}");
        }
    }

    #[test]
    fn slugs_names_subjects_and_roles_are_checked() {
        assert!(parse_slug("team-1").is_ok());
        for refused in ["", "-team", "Team", "te am", "team_1", &"a".repeat(64)] {
            assert!(parse_slug(refused).is_err(), "{refused}");
        }
        assert_eq!(parse_name("  Ada Lovelace ").unwrap(), "Ada Lovelace");
        assert!(parse_name("   ").is_err() && parse_name("a\u{7}b").is_err());
        assert!(parse_subject("").is_err() && parse_subject(&"s".repeat(256)).is_err());
        assert_eq!(parse_role("viewer").unwrap(), Role::Viewer);
        assert_eq!(
            parse_role("owner").unwrap_err(),
            "must be admin, operator or viewer"
        );
    }
}
