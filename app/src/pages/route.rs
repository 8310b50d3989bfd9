//! Typed route and query parameters, and parameters that stay put while a page is being left.
//! `/chat/:id`, `/tasks/:id`, `/agents/:id` and `/approvals/:id` all name their parameter `id`:
//! following a link from one to another changes `id` before the old page is disposed, which would
//! make it load the new id (a conversation fetched by a task id) and touch its state while it is
//! torn down.

use std::str::FromStr;

use leptos::Params;
use leptos::prelude::*;
use leptos_router::hooks::{use_location, use_params};
use leptos_router::params::{IntoParam, Params, ParamsError};

/// The `:id` of the detail pages.
#[derive(Params, Clone, Debug, PartialEq, Eq)]
struct IdParams {
    id: Option<String>,
}

/// The `:id` of the page under `prefix` (e.g. `"/chat/"`); keeps its last value once the
/// location leaves `prefix`.
pub fn page_id(prefix: &'static str) -> Memo<String> {
    let params = use_params::<IdParams>();
    while_on(prefix, move || {
        params.with(|p| p.as_ref().ok().and_then(|p| p.id.clone()).unwrap_or_default())
    })
}

/// `read` while the location is under `prefix`; its last value once the location has left.
pub fn while_on<T>(prefix: &'static str, read: impl Fn() -> T + Send + Sync + 'static) -> Memo<T>
where
    T: Clone + PartialEq + Send + Sync + 'static,
{
    let location = use_location();
    Memo::new(move |previous: Option<&T>| {
        let here = location.pathname.with(|path| path.starts_with(prefix));
        match previous {
            Some(previous) if !here => previous.clone(),
            _ => read(),
        }
    })
}

/// A query value that is `None` when absent or malformed. A plain `Option<T>` field fails the
/// whole struct on a malformed value; this one leaves the other fields readable
/// (`?filter=done&offset=x` still filters).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Lenient<T>(pub Option<T>);

impl<T: FromStr> IntoParam for Lenient<T> {
    fn into_param(value: Option<&str>, _name: &str) -> Result<Self, ParamsError> {
        Ok(Lenient(value.and_then(|v| v.parse().ok())))
    }
}

/// A query value where an empty one (`?agent=`) counts as absent.
pub fn non_empty(value: &Option<String>) -> Option<String> {
    value.clone().filter(|v| !v.is_empty())
}
