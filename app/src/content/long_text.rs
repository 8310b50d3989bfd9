//! Long text in bounded chunks (issue #26, "One huge text part freezes the browser"): a text or
//! Markdown body over [`TEXT_CHUNK_CHARS`] shows its first chunk, "Show more" adds one chunk at a
//! time up to [`MAX_TEXT_CHARS`], and "Download" saves the whole text. The server renders one
//! chunk, whatever the part's size, and the browser adds a chunk as its own element, so no
//! render, layout or hydration ever handles the whole text at once.
//!
//! Chunks end at a line break when one is in the chunk's last quarter, so Markdown is cut
//! between lines and plain text reads naturally.

use leptos::prelude::*;

use super::markdown::MarkdownView;

/// Characters shown at first, and added by each "Show more".
pub const TEXT_CHUNK_CHARS: usize = 20_000;
/// Characters of one text body shown at most; the rest is only in the download.
pub const MAX_TEXT_CHARS: usize = 200_000;

/// The byte ends of consecutive chunks of `text`, each at most `chunk` characters, together at
/// most `max_chars`: the end of the last chunk is where display stops.
pub fn chunk_ends(text: &str, chunk: usize, max_chars: usize) -> Vec<usize> {
    let mut ends = Vec::new();
    let (mut start, mut taken) = (0, 0);
    while start < text.len() && taken < max_chars && chunk > 0 {
        let rest = &text[start..];
        let limit = chunk.min(max_chars - taken);
        let hard = rest.char_indices().nth(limit).map_or(rest.len(), |(i, _)| i);
        let end = match rest[..hard].rfind('\n') {
            Some(line) if hard < rest.len() && line + 1 >= hard - hard / 4 => line + 1,
            _ => hard,
        };
        taken += rest[..end].chars().count();
        start += end;
        ends.push(start);
    }
    ends
}

/// How a long body is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LongKind {
    /// Plain text, whitespace kept.
    Text,
    /// Markdown, parsed from the shown prefix.
    Markdown,
    /// Preformatted code (the Raw view).
    Code,
}

/// A text body: as it is when short; else in chunks, with "Show more" and "Download".
#[component]
pub fn LongText(
    text: String,
    kind: LongKind,
    /// The name the download is saved under.
    #[prop(into)]
    filename: String,
    /// The media type of the download.
    #[prop(into)]
    media_type: String,
) -> impl IntoView {
    let ends = chunk_ends(&text, TEXT_CHUNK_CHARS, MAX_TEXT_CHARS);
    if ends.len() <= 1 && ends.last().is_none_or(|end| *end == text.len()) {
        return short_body(text, kind);
    }
    let total = text.chars().count();
    let ends = StoredValue::new(ends);
    let text = StoredValue::new(text);
    let shown = RwSignal::new(1_usize);
    let chunk = move |i: usize| {
        ends.with_value(|ends| {
            let start = if i == 0 { 0 } else { ends[i - 1] };
            text.with_value(|t| t[start..ends[i]].to_owned())
        })
    };
    let prefix = move |n: usize| ends.with_value(|ends| text.with_value(|t| t[..ends[n - 1]].to_owned()));
    let body = match kind {
        LongKind::Text => view! {
            <div class="content-text" data-testid="long-text">
                <For
                    each=move || 0..shown.get()
                    key=|i| *i
                    children=move |i| view! { <span class="content-text-chunk">{chunk(i)}</span> }
                />
            </div>
        }
        .into_any(),
        LongKind::Code => view! {
            <pre class="content-code content-raw" data-testid="long-text">
                <For
                    each=move || 0..shown.get()
                    key=|i| *i
                    children=move |i| view! { <span class="content-text-chunk">{chunk(i)}</span> }
                />
            </pre>
        }
        .into_any(),
        // Markdown blocks can span a chunk's end: the shown prefix is parsed as a whole.
        LongKind::Markdown => (move || view! { <MarkdownView source=prefix(shown.get())/> }).into_any(),
    };
    let shown_chars =
        move || ends.with_value(|ends| text.with_value(|t| t[..ends[shown.get() - 1]].chars().count()));
    let more = move || shown.get() < ends.with_value(Vec::len);
    let download = move |_| text.with_value(|t| save_text(t, &filename, &media_type));
    view! {
        {body}
        <div class="content-long" data-testid="long-text-controls">
            <p class="content-note">
                {move || {
                    let note = format!("Showing {} of {total} characters.", shown_chars());
                    if more() { note } else { format!("{note} The rest is in the download.") }
                }}
            </p>
            <Show when=more>
                <button type="button" class="button subtle" data-testid="show-more"
                    on:click=move |_| shown.update(|n| *n += 1)>
                    "Show more"
                </button>
            </Show>
            <button type="button" class="button subtle" data-testid="download-text" on:click=download>
                "Download"
            </button>
        </div>
    }
    .into_any()
}

/// A body under one chunk, drawn as before.
fn short_body(text: String, kind: LongKind) -> AnyView {
    match kind {
        LongKind::Text => view! { <div class="content-text">{text}</div> }.into_any(),
        LongKind::Code => view! { <pre class="content-code content-raw">{text}</pre> }.into_any(),
        LongKind::Markdown => view! { <MarkdownView source=text/> }.into_any(),
    }
}

/// Saves `text` as a file: a `Blob` URL clicked as a download link, revoked a little later.
#[cfg(feature = "hydrate")]
fn save_text(text: &str, filename: &str, media_type: &str) {
    use wasm_bindgen::{JsCast, JsValue};
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(media_type);
    let parts = web_sys::js_sys::Array::of1(&JsValue::from_str(text));
    let Ok(blob) = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options) else {
        return;
    };
    let Ok(url) = web_sys::Url::create_object_url_with_blob(&blob) else {
        return;
    };
    let link = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.create_element("a").ok())
        .and_then(|a| a.dyn_into::<web_sys::HtmlAnchorElement>().ok());
    if let Some(link) = link {
        link.set_href(&url);
        link.set_download(filename);
        link.click();
    }
    set_timeout(
        move || {
            let _ = web_sys::Url::revoke_object_url(&url);
        },
        std::time::Duration::from_secs(30),
    );
}

/// The server never downloads.
#[cfg(not(feature = "hydrate"))]
fn save_text(_text: &str, _filename: &str, _media_type: &str) {}

#[cfg(test)]
mod tests {
    use super::*;

    fn pieces<'a>(text: &'a str, ends: &[usize]) -> Vec<&'a str> {
        let mut start = 0;
        ends.iter()
            .map(|&end| {
                let piece = &text[start..end];
                start = end;
                piece
            })
            .collect()
    }

    #[test]
    fn chunks_are_bounded_by_characters_and_stop_at_the_cap() {
        let text = "é".repeat(25);
        let ends = chunk_ends(&text, 10, 100);
        assert_eq!(
            pieces(&text, &ends)
                .iter()
                .map(|p| p.chars().count())
                .collect::<Vec<_>>(),
            [10, 10, 5]
        );
        assert_eq!(*ends.last().unwrap(), text.len());
        let capped = chunk_ends(&text, 10, 15);
        assert_eq!(
            pieces(&text, &capped)
                .iter()
                .map(|p| p.chars().count())
                .collect::<Vec<_>>(),
            [10, 5]
        );
        assert!(chunk_ends("", 10, 100).is_empty());
        assert_eq!(chunk_ends("short", 10, 100), [5]);
    }

    #[test]
    fn chunks_end_after_a_line_break_near_their_end() {
        let text = format!("{}\n{}", "a".repeat(8), "b".repeat(15));
        let ends = chunk_ends(&text, 10, 100);
        assert_eq!(pieces(&text, &ends)[0], "aaaaaaaa\n");
        // A line break early in the chunk is not used: the chunk stays near full.
        let text = format!("a\n{}", "b".repeat(30));
        assert_eq!(pieces(&text, &chunk_ends(&text, 10, 100))[0].len(), 10);
    }
}
