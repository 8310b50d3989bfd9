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
//! - [`canonical`]: canonical JSON with JavaScript's number and string formatting.

pub mod a2ui;
pub mod approval;
pub mod canonical;
pub mod form;
pub mod negotiation;
pub mod sideband;
pub mod skill_routing;
pub mod uri;
