//! The System / Light / Dark switch in the sidebar footer.

use leptos::prelude::*;

use super::icon::Icon;
use crate::theme::{Theme, use_theme};

pub(crate) fn icon_for(theme: Theme) -> &'static str {
    match theme {
        Theme::System => "monitor",
        Theme::Light => "sun",
        Theme::Dark => "moon",
    }
}

/// A three-way toggle group; the choice is applied at once and remembered in a cookie.
#[component]
pub fn ThemeSwitch() -> impl IntoView {
    let theme = use_theme().0;
    view! {
        <div class="theme-switch" role="group" aria-label="Theme">
            {Theme::ALL
                .into_iter()
                .map(|choice| {
                    view! {
                        <button
                            type="button"
                            class="theme-choice"
                            data-theme-choice=choice.as_str()
                            title=format!("{} theme", choice.label())
                            aria-pressed=move || (theme.get() == choice).to_string()
                            on:click=move |_| {
                                theme.set(choice);
                                crate::browser::apply_theme(choice);
                            }
                        >
                            <Icon name=icon_for(choice)/>
                            <span class="visually-hidden">{choice.label()}</span>
                        </button>
                    }
                })
                .collect_view()}
        </div>
    }
}
