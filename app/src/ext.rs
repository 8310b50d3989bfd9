//! The extensions this console defines or understands (`shared/seed/000_3ea550046cd3d73b.txt`,
//! `shared/spec/reference.md` §1–§3). Each module is pure and wasm-clean: the same code decides on
//! the server and renders in the browser. Nothing here does I/O, reads a clock or draws random
//! numbers; callers pass those in.
//!
//! - [`negotiation`]: which URIs go on a send and in the header, and why (§2);
//! - [`form`]: structured forms: parsing, validation and coercion, the reply (§1.1);
//! - [`approval`]: approval requests: parsing, validation, digest, decisions (§1.2);
//! - [`skill_routing`]: skill-bound sends (§1.3);
//! - [`a2ui`]: A2UI v0.9 and v0.8 surfaces and actions (§1.4);
//! - [`sideband`]: sideband events decoded from stored A2A events (§3);
//! - [`canonical`]: canonical JSON with JavaScript's number and string formatting (and the ledger's
//!   form of stored digests).

pub mod a2ui;
pub mod approval;
pub mod canonical;
pub mod form;
pub mod negotiation;
pub mod sideband;
pub mod skill_routing;
pub mod uri;

/// Whether `value`, lower-cased, is `lower` (an all-lower-case media type): the spec's
/// "lower-cased media type" comparison, as JavaScript's `toLowerCase()` makes it (so a
/// non-ASCII letter that lower-cases to an ASCII one counts), without building the lower-cased
/// string.
pub fn lowercases_to(value: &str, lower: &str) -> bool {
    value.chars().flat_map(char::to_lowercase).eq(lower.chars())
}

#[cfg(test)]
mod tests {
    use super::lowercases_to;

    #[test]
    fn lowercases_to_compares_as_to_lowercase_does() {
        let pairs = [
            ("application/json+a2ui", "application/json+a2ui"),
            ("Application/JSON+A2UI", "application/json+a2ui"),
            // KELVIN SIGN lower-cases to an ASCII `k`, in Rust as in JavaScript.
            ("application/vnd.\u{212A}it", "application/vnd.kit"),
            ("application/vnd.KIT", "application/vnd.kit"),
            ("application/json+a2u", "application/json+a2ui"),
            ("application/json+a2ui ", "application/json+a2ui"),
            ("", "application/json+a2ui"),
            ("application/json", "application/json+a2ui"),
        ];
        for (value, lower) in pairs {
            assert_eq!(
                lowercases_to(value, lower),
                value.to_lowercase() == lower,
                "{value:?}"
            );
        }
        assert!(lowercases_to("Application/JSON+A2UI", "application/json+a2ui"));
        assert!(lowercases_to("application/vnd.\u{212A}it", "application/vnd.kit"));
        assert!(!lowercases_to("application/json+a2ui ", "application/json+a2ui"));
    }
}
