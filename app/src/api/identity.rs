//! Who is using the console: the identity menu's server function.

use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::AppError;
use crate::words::Role;

/// The signed-in person, as the identity menu shows them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Identity {
    /// Their membership in the organization (an approval assigned to it is theirs to decide).
    pub membership_id: String,
    pub display_name: String,
    pub role: Role,
    /// Signed in through the identity provider (so they can sign out); `false` for the
    /// development-mode administrator.
    pub signed_in: bool,
}

/// What the server provides.
#[cfg(feature = "ssr")]
pub trait IdentityBackend: Send + Sync {
    /// The caller of the current request.
    fn current(&self) -> crate::api::BoxFuture<'_, Result<Identity, AppError>>;
    /// Ends the current request's session and clears its cookie.
    fn sign_out(&self) -> crate::api::BoxFuture<'_, Result<(), AppError>>;
}

/// The caller of this request.
#[server(prefix = "/api/fn", endpoint = "get_identity")]
pub async fn get_identity() -> Result<Identity, AppError> {
    crate::api::respond(async { crate::api::backend()?.identity.current().await }.await)
}

/// Signs out: the session ends and its cookie is cleared; the identity menu then leaves for the
/// signed-out page. (A plain form post would carry `Origin: null` under the console's
/// `no-referrer` policy, which the request guard refuses; the `ActionForm` posts with `fetch`.)
#[server(prefix = "/api/fn", endpoint = "sign_out")]
pub async fn sign_out() -> Result<(), AppError> {
    crate::api::respond(async { crate::api::backend()?.identity.sign_out().await }.await)
}

/// Where a browser goes once signed out (a server page: the app's pages need a session).
pub const SIGNED_OUT_PATH: &str = "/api/auth/signed-out";

/// The caller, loaded once in the browser for the whole app (the identity menu and every control
/// that depends on the role read it): `None` on the server and until it has loaded.
#[derive(Clone, Copy)]
pub struct CurrentIdentity(pub leptos::prelude::Signal<Option<Identity>>);

/// Loads the caller in the browser and provides it to the app (called once, by the root).
pub fn provide_current_identity() {
    provide_context(CurrentIdentity(crate::api::browser_value(get_identity)));
}

/// The caller, as provided by the root (`None` until loaded, or outside the app).
pub fn current_identity() -> Signal<Option<Identity>> {
    use_context::<CurrentIdentity>().map_or_else(|| Signal::derive(|| None), |current| current.0)
}

/// Whether the caller is known to have `role`'s rights or more: admins manage agents and access,
/// operators and admins operate. `false` until the identity has loaded, so controls for admins
/// appear once it is known; the server checks every call regardless.
pub fn known_admin() -> Signal<bool> {
    let me = current_identity();
    Signal::derive(move || me.with(|me| me.as_ref().is_some_and(|me| me.role == Role::Admin)))
}

/// Whether the caller may be an admin: `true` until the identity has loaded (the server renders
/// the page before it is known, and admins are the common case on one machine), then whether
/// they are one. Controls for admins hide once a non-admin is known; the server checks anyway.
pub fn maybe_admin() -> Signal<bool> {
    let me = current_identity();
    Signal::derive(move || me.with(|me| me.as_ref().is_none_or(|me| me.role == Role::Admin)))
}

/// Whether the caller is known to be a viewer, who never sends, cancels or decides: those
/// controls are disabled with [`READ_ONLY`] as the reason.
pub fn known_viewer() -> Signal<bool> {
    let me = current_identity();
    Signal::derive(move || me.with(|me| me.as_ref().is_some_and(|me| me.role == Role::Viewer)))
}

/// Why a viewer's send, cancel or decision controls are disabled.
pub const READ_ONLY: &str = "Your role is Viewer: you can read, but not send, cancel or decide.";
/// Why admin-only controls are missing for everyone else.
pub const ADMINS_ONLY: &str = "Only admins add, remove and configure agents.";
