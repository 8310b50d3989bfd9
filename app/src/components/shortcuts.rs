//! Keyboard shortcuts (issue #32, "Find and move"): `?` lists them, `g` then a letter goes to a
//! screen, `/` focuses the screen's search, `j`/`k` move through the screen's list (Enter opens
//! the row: its link has the focus), and Ctrl/Cmd-K opens the command palette.
//!
//! [`interpret`] is the pure key map; [`Shortcuts`] listens on the window (browser only) and
//! owns the help dialog and the [`palette`].

use leptos::prelude::*;

use super::dialog::Dialog;
use super::nav::NAV_ITEMS;

pub mod palette;

/// What a key press asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shortcut {
    Help,
    /// `g`: the next letter names a screen.
    GoPrefix,
    /// Go to this screen.
    Go(&'static str),
    Search,
    Next,
    Previous,
    Palette,
}

/// A key press, as [`interpret`] needs it.
#[derive(Clone, Copy, Debug, Default)]
pub struct Press<'a> {
    pub key: &'a str,
    /// Ctrl or Cmd (Meta) is held.
    pub command: bool,
    pub alt: bool,
    /// The focus is in a text field (typing there is not a shortcut).
    pub typing: bool,
    /// `g` was the previous key.
    pub after_g: bool,
    /// The single-key shortcuts are turned off in Settings: only Ctrl/Cmd-K.
    pub single_keys_off: bool,
}

/// The shortcut `press` means, if any. Only Ctrl/Cmd-K works while typing; nothing else is
/// taken from a text field or from a key held with Ctrl, Cmd or Alt (the browser's own).
pub fn interpret(press: Press<'_>) -> Option<Shortcut> {
    if press.command && !press.alt && press.key.eq_ignore_ascii_case("k") {
        return Some(Shortcut::Palette);
    }
    if press.typing || press.command || press.alt || press.single_keys_off {
        return None;
    }
    if press.after_g {
        return NAV_ITEMS
            .iter()
            .find(|item| press.key.len() == 1 && press.key.starts_with(item.key))
            .map(|item| Shortcut::Go(item.href));
    }
    match press.key {
        "?" => Some(Shortcut::Help),
        "g" => Some(Shortcut::GoPrefix),
        "/" => Some(Shortcut::Search),
        "j" => Some(Shortcut::Next),
        "k" => Some(Shortcut::Previous),
        _ => None,
    }
}

/// The shortcuts as the help dialog lists them.
fn help_rows() -> Vec<(String, String)> {
    let mut rows = vec![
        ("?".to_owned(), "Show these shortcuts".to_owned()),
        ("Ctrl K / ⌘ K".to_owned(), "Command palette".to_owned()),
        ("/".to_owned(), "Search on this screen".to_owned()),
        ("j / k".to_owned(), "Next / previous row of the list".to_owned()),
        ("Enter".to_owned(), "Open the row".to_owned()),
        ("Esc".to_owned(), "Close a panel, menu or dialog".to_owned()),
    ];
    rows.extend(
        NAV_ITEMS
            .iter()
            .map(|item| (format!("g then {}", item.key), format!("Go to {}", item.label))),
    );
    rows
}

/// The window's shortcuts, the help dialog and the command palette (once, in the shell).
#[component]
pub fn Shortcuts() -> impl IntoView {
    let help = RwSignal::new(false);
    let palette_open = RwSignal::new(false);
    #[cfg(feature = "hydrate")]
    listen(help, palette_open);
    view! {
        <Show when=move || help.get()>
            <HelpDialog open=help/>
        </Show>
        <Show when=move || palette_open.get()>
            <palette::CommandPalette open=palette_open/>
        </Show>
    }
}

/// The list of shortcuts, as a modal dialog that closes on Escape or its button.
#[component]
fn HelpDialog(open: RwSignal<bool>) -> impl IntoView {
    let close = NodeRef::<leptos::html::Button>::new();
    Effect::new(move |_| {
        if let Some(button) = close.get() {
            let _ = button.focus();
        }
    });
    view! {
        <Dialog open class="shortcuts-help" labelled_by="shortcuts-title">
            <h2 id="shortcuts-title">"Keyboard shortcuts"</h2>
            <table class="shortcut-table">
                <tbody>
                    {help_rows()
                        .into_iter()
                        .map(|(keys, what)| view! { <tr><td><kbd>{keys}</kbd></td><td>{what}</td></tr> })
                        .collect_view()}
                </tbody>
            </table>
            <button type="button" class="button" node_ref=close on:click=move |_| open.set(false)>"Close"</button>
        </Dialog>
    }
}

#[cfg(feature = "hydrate")]
fn listen(help: RwSignal<bool>, palette_open: RwSignal<bool>) {
    use leptos_router::hooks::use_navigate;
    use wasm_bindgen::JsCast;

    let navigate = use_navigate();
    let after_g = StoredValue::new(false);
    let handle = window_event_listener(leptos::ev::keydown, move |ev| {
        if ev.default_prevented() || ev.is_composing() {
            return;
        }
        let typing = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .is_some_and(|el| is_text_field(&el));
        let key = ev.key();
        let press = Press {
            key: &key,
            command: ev.ctrl_key() || ev.meta_key(),
            alt: ev.alt_key(),
            typing,
            after_g: after_g.get_value(),
            // Read at each press that could be one (never while typing): a change in Settings
            // applies at once.
            single_keys_off: !(typing
                || ev.ctrl_key()
                || ev.meta_key()
                || ev.alt_key()
                || crate::settings::load().single_key_shortcuts),
        };
        let shortcut = interpret(press);
        after_g.set_value(shortcut == Some(Shortcut::GoPrefix));
        // A dialog of ours is open: only Escape (handled by the dialog) and the palette key.
        if (help.get_untracked() || palette_open.get_untracked()) && shortcut != Some(Shortcut::Palette) {
            return;
        }
        let Some(shortcut) = shortcut else {
            return;
        };
        ev.prevent_default();
        match shortcut {
            Shortcut::Help => help.set(true),
            Shortcut::Palette => palette_open.update(|open| *open = !*open),
            Shortcut::GoPrefix => {}
            Shortcut::Go(href) => navigate(href, Default::default()),
            Shortcut::Search => focus_search(),
            Shortcut::Next => move_in_list(1),
            Shortcut::Previous => move_in_list(-1),
        }
    });
    on_cleanup(move || handle.remove());
}

/// Whether typing into `element` is text entry (inputs other than buttons, text areas,
/// selects, editable content).
#[cfg(feature = "hydrate")]
fn is_text_field(element: &web_sys::Element) -> bool {
    match element.tag_name().to_ascii_lowercase().as_str() {
        "textarea" | "select" => true,
        "input" => !matches!(
            element.get_attribute("type").unwrap_or_default().as_str(),
            "button" | "submit" | "reset" | "checkbox" | "radio"
        ),
        _ => element
            .get_attribute("contenteditable")
            .is_some_and(|v| v != "false"),
    }
}

/// Focuses the screen's search field (the first `type=search` input), if it has one.
#[cfg(feature = "hydrate")]
fn focus_search() {
    use wasm_bindgen::JsCast;
    let field = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.query_selector("main input[type=search]").ok().flatten())
        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok());
    if let Some(field) = field {
        let _ = field.focus();
    }
}

/// Moves the focus `step` rows through the screen's list (`[data-keynav]`): onto the next
/// row's first link or button. From outside the list, `j` enters at the top, `k` at the end.
#[cfg(feature = "hydrate")]
fn move_in_list(step: i32) {
    use wasm_bindgen::JsCast;
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let Ok(rows) = document.query_selector_all("main [data-keynav] > li") else {
        return;
    };
    let count = rows.length() as i32;
    if count == 0 {
        return;
    }
    let active = document.active_element();
    let current = (0..count).find(|&i| {
        rows.item(i as u32)
            .zip(active.as_ref())
            .is_some_and(|(row, active)| row.contains(Some(active)))
    });
    let next = match current {
        Some(i) => (i + step).clamp(0, count - 1),
        None if step > 0 => 0,
        None => count - 1,
    };
    let target = rows
        .item(next as u32)
        .and_then(|row| row.dyn_into::<web_sys::Element>().ok())
        .and_then(|row| row.query_selector("a[href], button").ok().flatten())
        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok());
    if let Some(target) = target {
        let _ = target.focus();
        target.scroll_into_view_with_bool(false);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn press(key: &str) -> Press<'_> {
        Press {
            key,
            ..Press::default()
        }
    }

    /// WCAG 2.1.4: with the single-key shortcuts turned off, no character key does anything;
    /// the palette's Ctrl/Cmd-K still works.
    #[test]
    fn single_key_shortcuts_can_be_turned_off() {
        for key in ["?", "/", "j", "k", "g"] {
            let off = Press {
                single_keys_off: true,
                ..press(key)
            };
            assert_eq!(interpret(off), None, "{key}");
        }
        let after_g = Press {
            single_keys_off: true,
            after_g: true,
            ..press("t")
        };
        assert_eq!(interpret(after_g), None);
        let palette = Press {
            single_keys_off: true,
            command: true,
            ..press("k")
        };
        assert_eq!(interpret(palette), Some(Shortcut::Palette));
    }

    #[test]
    fn keys_map_to_shortcuts_and_g_then_a_letter_goes_to_a_screen() {
        assert_eq!(interpret(press("?")), Some(Shortcut::Help));
        assert_eq!(interpret(press("/")), Some(Shortcut::Search));
        assert_eq!(interpret(press("j")), Some(Shortcut::Next));
        assert_eq!(interpret(press("k")), Some(Shortcut::Previous));
        assert_eq!(interpret(press("g")), Some(Shortcut::GoPrefix));
        let after_g = |key| Press {
            after_g: true,
            ..press(key)
        };
        assert_eq!(interpret(after_g("t")), Some(Shortcut::Go("/tasks")));
        assert_eq!(interpret(after_g("i")), Some(Shortcut::Go("/inbox")));
        assert_eq!(interpret(after_g("p")), Some(Shortcut::Go("/approvals")));
        assert_eq!(interpret(after_g("x")), None);
        assert_eq!(interpret(after_g("tt")), None);
        // Every screen has its own letter.
        let mut letters: Vec<char> = NAV_ITEMS.iter().map(|i| i.key).collect();
        letters.sort_unstable();
        letters.dedup();
        assert_eq!(letters.len(), NAV_ITEMS.len());
    }

    #[test]
    fn typing_and_the_browser_s_own_keys_are_left_alone_except_the_palette() {
        let typing = |key| Press {
            typing: true,
            ..press(key)
        };
        for key in ["?", "/", "j", "g"] {
            assert_eq!(interpret(typing(key)), None, "{key}");
        }
        let command = |key| Press {
            command: true,
            ..press(key)
        };
        assert_eq!(interpret(command("k")), Some(Shortcut::Palette));
        assert_eq!(interpret(command("K")), Some(Shortcut::Palette));
        assert_eq!(
            interpret(Press {
                typing: true,
                ..command("k")
            }),
            Some(Shortcut::Palette)
        );
        assert_eq!(interpret(command("j")), None);
        assert_eq!(
            interpret(Press {
                alt: true,
                ..press("j")
            }),
            None
        );
    }

    #[test]
    fn the_help_lists_every_screen_s_key() {
        let rows = help_rows();
        for item in &NAV_ITEMS {
            assert!(
                rows.iter()
                    .any(|(keys, what)| *keys == format!("g then {}", item.key) && what.ends_with(item.label)),
                "{}",
                item.label
            );
        }
    }
}
