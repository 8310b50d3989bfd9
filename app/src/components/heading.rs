//! A heading whose level is decided at run time (`h2`…`h6`): a form's title or an A2UI surface's
//! text sits under whatever section the page puts it in, and heading levels must not skip
//! (issue #32, axe `heading-order`).

use leptos::prelude::*;

/// `<hN class=… id=…>content</hN>`, `level` clamped to 1..=6.
pub fn heading(
    level: u8,
    class: &'static str,
    id: Option<String>,
    content: impl IntoView + 'static,
) -> AnyView {
    match level.clamp(1, 6) {
        1 => view! { <h1 class=class id=id>{content}</h1> }.into_any(),
        2 => view! { <h2 class=class id=id>{content}</h2> }.into_any(),
        3 => view! { <h3 class=class id=id>{content}</h3> }.into_any(),
        4 => view! { <h4 class=class id=id>{content}</h4> }.into_any(),
        5 => view! { <h5 class=class id=id>{content}</h5> }.into_any(),
        _ => view! { <h6 class=class id=id>{content}</h6> }.into_any(),
    }
}
