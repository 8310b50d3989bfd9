//! Route parameters that stay put while a page is being left. `/chat/:id`, `/tasks/:id`,
//! `/agents/:id` and `/approvals/:id` all name their parameter `id`: following a link from one
//! to another changes `id` before the old page is disposed, which would make it load the new id
//! (a conversation fetched by a task id) and touch its state while it is torn down.

use leptos::prelude::*;
use leptos_router::hooks::{use_location, use_params_map};

/// The `:id` of the page under `prefix` (e.g. `"/chat/"`); keeps its last value once the
/// location leaves `prefix`.
pub fn page_id(prefix: &'static str) -> Memo<String> {
    let params = use_params_map();
    while_on(prefix, move || params.with(|p| p.get("id").unwrap_or_default()))
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
