//! Icons from the vendored lucide sprite (`public/icons.svg`), inlined once per page by
//! [`IconSprite`].
//!
//! Inline, not `<use href="/icons.svg#…">`: Chromium loads an external `<use>` target as a
//! separate SVG document on the page's main thread while the HTML is still parsing, which
//! measured 15–20 ms of a repeat visit before the app's script could start (a trace of
//! `/tasks/:id`, 2026-12-04). The sprite is 4 KB, under 1 KB of the page compressed.

use leptos::prelude::*;

/// The sprite's `<symbol>`s, as vendored.
const SPRITE: &str = include_str!("../../../public/icons.svg");

/// The sprite's symbols in a hidden inline `<svg>`; rendered once, by `App`.
#[component]
pub fn IconSprite() -> impl IntoView {
    let symbols = sprite_symbols(SPRITE);
    view! { <svg class="icon-sprite" aria-hidden="true" focusable="false" width="0" height="0" inner_html=symbols></svg> }
}

/// The `<symbol>` elements of the sprite file: what is between its first `<symbol` and its
/// last `</symbol>` (no comment, no outer `<svg>`).
fn sprite_symbols(sprite: &str) -> &str {
    let start = sprite.find("<symbol").unwrap_or(0);
    let end = sprite
        .rfind("</symbol>")
        .map_or(start, |at| at + "</symbol>".len());
    sprite.get(start..end).unwrap_or_default()
}

/// The favicon, also the logo beside the product's name (`nav::BrandMark`).
const FAVICON: &str = include_str!("../../../public/favicon.svg");
/// The favicon's `viewBox`, which the inline logo repeats.
pub(crate) const FAVICON_VIEW_BOX: &str = "0 0 32 32";

/// The favicon's drawing: what is inside its outer `<svg …>`, to draw it inline.
pub(crate) fn favicon_drawing() -> &'static str {
    let start = FAVICON.find('>').map_or(0, |at| at + 1);
    let end = FAVICON.rfind("</svg>").unwrap_or(FAVICON.len());
    FAVICON.get(start..end).unwrap_or_default()
}

/// An inline icon from the sprite; decorative, so hidden from assistive technology.
#[component]
pub fn Icon(
    /// The symbol id in `public/icons.svg`, e.g. `bot`.
    name: &'static str,
) -> impl IntoView {
    view! {
        <svg class="icon" aria-hidden="true" focusable="false" width="20" height="20">
            <use_ href=format!("#{name}")></use_>
        </svg>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_inlined_sprite_holds_every_symbol_and_nothing_else() {
        let symbols = sprite_symbols(SPRITE);
        assert!(symbols.starts_with("<symbol"));
        assert!(symbols.ends_with("</symbol>"));
        assert_eq!(
            symbols.matches("<symbol").count(),
            SPRITE.matches("<symbol").count()
        );
        assert!(!symbols.contains("<svg") && !symbols.contains("<!--"));
        // Every icon the console draws is in it: the screens' and the theme switch's.
        let names = crate::components::nav::NAV_ITEMS
            .iter()
            .map(|item| item.icon)
            .chain(crate::theme::Theme::ALL.map(crate::components::theme_switch::icon_for));
        for name in names {
            assert!(symbols.contains(&format!(r#"<symbol id="{name}""#)), "{name}");
        }
    }

    #[test]
    fn the_inline_logo_is_the_favicons_drawing() {
        assert!(FAVICON.contains(&format!(r#"viewBox="{FAVICON_VIEW_BOX}""#)));
        let drawing = favicon_drawing();
        assert!(
            drawing.starts_with("<rect") && drawing.ends_with("/>"),
            "{drawing}"
        );
        assert!(!drawing.contains("<svg") && !drawing.contains("</svg>"));
    }
}
