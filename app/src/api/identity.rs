//! Who is using the console: the identity menu's server function.

use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::AppError;
use crate::words::Role;

/// The signed-in person, as the identity menu shows them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Identity {
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
