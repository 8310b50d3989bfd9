//! Keeps the Wire panel's page small however long its log grows (issue #33, event to screen):
//! a full block of lines that is far from the rail's view is *parked* (its lines taken out of
//! the page, its height kept, so the scrollbar does not move) and drawn again from the log when
//! it comes near. Measured at 1,000 events a second: with every line in the page, the browser's
//! style pass grew with the log (1.2 ms a frame after 5,000 lines, 3.5 ms after 10,000, 4.9 ms
//! after 15,000) although each frame restyled only the new lines, and the longest frame gaps
//! grew with it; `content-visibility` skips layout and paint for blocks out of view, not that.
//!
//! "Near" is within one rail's height of what the rail shows (an `IntersectionObserver` on the
//! blocks, its root the rail). The block lines are added to (the last one) is never parked, nor
//! is a block with a line's JSON open.

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;
use web_sys::js_sys::Array;
use web_sys::{
    Element, HtmlElement, IntersectionObserver, IntersectionObserverEntry, IntersectionObserverInit,
};

use super::wire::{LINES_PER_BLOCK, WireEntry, block_lines_html};

/// Set on a parked block.
const PARKED: &str = "data-parked";
/// Whether a block is near the rail's view, as the observer last said (`true` or `false`).
const NEAR: &str = "data-near";

/// The observer of one list's blocks; dropped with the panel.
pub(super) struct Parking {
    observer: IntersectionObserver,
    _callback: Closure<dyn FnMut(Array)>,
}

impl Parking {
    /// Watches the blocks of `list` (and those added later through [`Parking::added`]), parking
    /// and drawing them from `entries`.
    pub(super) fn new(list: &Element, entries: Signal<Vec<WireEntry>>) -> Option<Parking> {
        let callback = Closure::<dyn FnMut(Array)>::new(move |records: Array| {
            for record in records.iter() {
                let Ok(record) = record.dyn_into::<IntersectionObserverEntry>() else {
                    continue;
                };
                let block = record.target();
                let near = record.is_intersecting();
                let _ = block.set_attribute(NEAR, if near { "true" } else { "false" });
                if near {
                    entries.try_with_untracked(|log| unpark(&block, log));
                } else {
                    park(&block, record.bounding_client_rect().height());
                }
            }
        });
        let options = IntersectionObserverInit::new();
        // The rail scrolls on its own: near is measured against what it shows, a rail's height
        // either way. Without a rail (another layout), against the window.
        options.set_root(list.closest(".chat-rail").ok().flatten().as_ref());
        options.set_root_margin("100% 0px");
        let observer =
            IntersectionObserver::new_with_options(callback.as_ref().unchecked_ref(), &options).ok()?;
        let parking = Parking {
            observer,
            _callback: callback,
        };
        parking.observe_all(list);
        Some(parking)
    }

    /// The list was drawn again: watches its new blocks instead.
    pub(super) fn redrawn(&self, list: &Element) {
        self.observer.disconnect();
        self.observe_all(list);
    }

    /// Lines were added: watches blocks from position `from` on, and parks the block that was
    /// the last one if it filled up while far from view.
    ///
    /// That block is observed anew rather than measured here: the observer reports it, with its
    /// height as laid out, when the browser next renders, and the callback parks it then.
    /// Measuring it now would force a layout in the middle of adding lines (a block fills every
    /// tenth of a second at 1,000 events a second).
    pub(super) fn added(&self, list: &Element, from: u32) {
        let blocks = list.children();
        if let Some(previous) = from.checked_sub(1).and_then(|i| blocks.item(i))
            && previous.get_attribute(NEAR).as_deref() == Some("false")
        {
            self.observer.unobserve(&previous);
            self.observer.observe(&previous);
        }
        for i in from..blocks.length() {
            if let Some(block) = blocks.item(i) {
                self.observer.observe(&block);
            }
        }
    }

    fn observe_all(&self, list: &Element) {
        self.added(list, 0);
    }
}

impl Drop for Parking {
    fn drop(&mut self) {
        self.observer.disconnect();
    }
}

/// The lines list inside a block.
fn lines_of(block: &Element) -> Option<Element> {
    block.first_element_child()
}

/// Takes a full block's lines out, keeping its height; not the last block (lines are added to
/// it) and not one with a line's JSON open.
fn park(block: &Element, height: f64) {
    let Some(lines) = lines_of(block) else { return };
    let full = lines.child_element_count() as usize == LINES_PER_BLOCK;
    let last = block.next_element_sibling().is_none();
    let open = block
        .query_selector(r#"button.wire-open[aria-expanded="true"]"#)
        .ok()
        .flatten()
        .is_some();
    if block.has_attribute(PARKED) || !full || last || open || height <= 0.0 {
        return;
    }
    if let Some(block) = block.dyn_ref::<HtmlElement>() {
        let _ = block.style().set_property("height", &format!("{height}px"));
    }
    let _ = block.set_attribute(PARKED, "");
    lines.set_inner_html("");
}

/// Draws a parked block's lines again, from the log.
fn unpark(block: &Element, log: &[WireEntry]) {
    if !block.has_attribute(PARKED) {
        return;
    }
    let first = block
        .get_attribute("data-first")
        .and_then(|first| first.parse::<usize>().ok());
    let (Some(first), Some(lines)) = (first, lines_of(block)) else {
        return;
    };
    lines.set_inner_html(&block_lines_html(log, first));
    let _ = block.remove_attribute(PARKED);
    if let Some(block) = block.dyn_ref::<HtmlElement>() {
        let _ = block.style().remove_property("height");
    }
}
