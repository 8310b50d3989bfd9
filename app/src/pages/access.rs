//! The Access screen (`/settings/access`, admins): members (provision, change role, disable,
//! re-enable), teams and their members, and grants on agents or single skills
//! (`shared/spec/security-and-durability.md` §1.3, §1.4). Every change is one
//! [`ChangeAccess`] call (audited on the server); the lists are fetched again after each one,
//! whether it worked or not, so the page always shows what is stored.

mod grants;
mod members;
mod teams;

use leptos::prelude::*;
use leptos_meta::Title;

use crate::api::access::{AccessChange, AccessOverview, ChangeAccess, get_access};

/// The page's one write, shared by its sections.
#[derive(Clone, Copy)]
pub(crate) struct Changes(ServerAction<ChangeAccess>);

impl Changes {
    /// Sends `change`.
    pub(crate) fn send(self, change: AccessChange) {
        self.0.dispatch(ChangeAccess { change });
    }

    /// Whether a change is on its way.
    pub(crate) fn busy(self) -> Memo<bool> {
        let pending = self.0.pending();
        Memo::new(move |_| pending.get())
    }
}

/// The page: the overview, refetched after every change, and the outcome of the last change.
#[component]
pub fn AccessPage() -> impl IntoView {
    let action = ServerAction::<ChangeAccess>::new();
    let changes = Changes(action);
    let draft = grants::GrantDraft::new();
    let overview = Resource::new(move || action.version().get(), |_| get_access());
    let outcome = move || {
        if action.pending().get() {
            return None;
        }
        action.value().with(|value| {
            value.as_ref().map(|result| match result {
                Ok(_) => view! { <p class="settings-status" role="status" data-testid="access-status">"Saved."</p> }.into_any(),
                Err(error) => view! {
                    <p class="settings-status error" role="alert" data-testid="access-status">{error.to_string()}</p>
                }
                .into_any(),
            })
        })
    };
    view! {
        <Title text="Access"/>
        <header class="page-header">
            <h1>"Access"</h1>
            <p class="lede">
                "Who can use this console and what they reach. Roles are a ceiling; grants give "
                "members, teams or everyone access to an agent or to one of its skills. "
                "A member without a grant sees nothing."
            </p>
            <p><a href="/settings">"← Settings"</a></p>
        </header>
        {outcome}
        <Transition fallback=|| view! { <p class="muted" aria-busy="true">"Loading access…"</p> }>
            <ErrorBoundary fallback=crate::components::error_alert::error_alert>
                {move || Suspend::new(async move {
                    overview.await.map(|overview| view! { <AccessSections overview changes draft/> })
                })}
            </ErrorBoundary>
        </Transition>
    }
}

#[component]
fn AccessSections(overview: AccessOverview, changes: Changes, draft: grants::GrantDraft) -> impl IntoView {
    let overview = StoredValue::new(overview);
    view! {
        <div class="settings-cards access">
            <members::Members overview changes/>
            <teams::Teams overview changes/>
            <grants::Grants overview changes draft/>
        </div>
    }
}

/// A member's name by membership id (an unknown id shows as itself).
pub(crate) fn member_name(overview: &AccessOverview, membership_id: &str) -> String {
    overview
        .members
        .iter()
        .find(|m| m.membership_id == membership_id)
        .map_or_else(|| membership_id.to_owned(), |m| m.display_name.clone())
}
