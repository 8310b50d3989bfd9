//! A2A protocol versions the console speaks (1.0 and 0.3) and how version strings are read.
//!
//! Only `Major.Minor` matters on the wire (spec A.1): `"0.3.0"` and `"0.3"` are the same
//! version, and a patch number is never sent.

use serde::{Deserialize, Serialize};

/// The request header carrying the protocol version (spec A.1, §3.6 of the 1.0 spec).
pub const VERSION_HEADER: &str = "A2A-Version";

/// A protocol version this console can speak.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum ProtocolVersion {
    /// A2A 1.0 (ProtoJSON, `SCREAMING_SNAKE` enums, wrapper stream responses).
    #[serde(rename = "1.0")]
    V1_0,
    /// A2A 0.3 (`kind` discriminators, lower-case enums, `/v1/` REST prefix).
    #[serde(rename = "0.3")]
    V0_3,
}

impl ProtocolVersion {
    /// The wire form, `"1.0"` or `"0.3"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ProtocolVersion::V1_0 => "1.0",
            ProtocolVersion::V0_3 => "0.3",
        }
    }

    /// Parses any version string whose `Major.Minor` is 1.0 or 0.3 (`"1.0.1"`, `"0.3.0"`).
    pub fn parse(version: &str) -> Option<Self> {
        match major_minor(version)?.as_str() {
            "1.0" => Some(ProtocolVersion::V1_0),
            "0.3" => Some(ProtocolVersion::V0_3),
            _ => None,
        }
    }
}

impl std::fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The `Major.Minor` part of a version string (`"0.3.0"` → `"0.3"`, `"1"` → `"1.0"`,
/// `"v1.0"` → `"1.0"`); `None` when it does not start with a number.
pub fn major_minor(version: &str) -> Option<String> {
    let trimmed = version.trim();
    let trimmed = trimmed.strip_prefix(['v', 'V']).unwrap_or(trimmed);
    let mut pieces = trimmed.split('.');
    let major: u32 = pieces.next()?.parse().ok()?;
    let minor: u32 = match pieces.next() {
        Some(m) => m.parse().ok()?,
        None => 0,
    };
    Some(format!("{major}.{minor}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn major_minor_drops_patch_and_prefix() {
        assert_eq!(major_minor("0.3.0").as_deref(), Some("0.3"));
        assert_eq!(major_minor(" 1.0.1 ").as_deref(), Some("1.0"));
        assert_eq!(major_minor("v1").as_deref(), Some("1.0"));
        assert_eq!(major_minor("latest"), None);
        assert_eq!(major_minor(""), None);
    }

    #[test]
    fn parse_knows_only_spoken_versions() {
        assert_eq!(ProtocolVersion::parse("1.0.1"), Some(ProtocolVersion::V1_0));
        assert_eq!(ProtocolVersion::parse("0.3.0"), Some(ProtocolVersion::V0_3));
        assert_eq!(ProtocolVersion::parse("0.2.6"), None);
        assert_eq!(ProtocolVersion::parse("2.0"), None);
        assert_eq!(ProtocolVersion::V0_3.to_string(), "0.3");
    }
}
