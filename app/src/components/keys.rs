//! Keyboard handling shared by the console's panels, menus and confirmations.

use leptos::ev::KeyboardEvent;

/// A `keydown` handler that runs `close` on Escape (issue #32: Escape closes the Add agent
/// panel, menus and inline confirmations, like every dialog people know).
pub fn on_escape(close: impl Fn() + Copy + 'static) -> impl Fn(KeyboardEvent) + Copy + 'static {
    move |ev: KeyboardEvent| {
        if ev.key() == "Escape" && !ev.default_prevented() {
            ev.prevent_default();
            close();
        }
    }
}
