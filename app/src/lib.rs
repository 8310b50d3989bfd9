//! The Agent Taskbay application, shared by the server (feature `ssr`) and the browser
//! (feature `hydrate`).
//!
//! - [`a2a`]: the A2A wire model (1.0 and 0.3), normalisation and card compliance; no I/O.
//! - [`api`]: server functions and the ssr-only backend traits the server implements.
//! - [`error`]: [`error::AppError`], the error type of every server function.
//! - [`ext`]: the extensions (negotiation, forms, approvals, skill routing, A2UI, sideband), pure.
//! - [`root`]: the HTML shell and the [`App`] component with its routes.
//! - [`theme`]: the light / dark / system theme choice and where it is persisted.
//! - [`browser`]: the few browser calls the app makes (no-ops when rendering on the server).
//! - [`components`]: widgets used across pages (navigation, icons, theme switch).
//! - [`live`]: the browser's subscriptions to the live update streams (server-sent events).
//! - [`pages`]: one module per screen.
//! - [`projection`]: the task projection and the fold the browser and the server share.
//! - [`words`]: closed sets of stored words (statuses, actions) as enums, and `stored_words!`.
//!
//! Nothing in this crate performs server I/O: server-only crates are optional and enabled by `ssr`.

// Leptos views are nested types; the composer's is deeper than the default limit allows.
#![recursion_limit = "256"]

pub mod a2a;
pub mod api;
pub mod browser;
pub mod components;
pub mod content;
pub mod csp;
pub mod error;
pub mod ext;
pub mod live;
pub mod pages;
pub mod projection;
mod root;
pub mod settings;
pub mod theme;
pub mod words;

pub use root::{App, shell};
