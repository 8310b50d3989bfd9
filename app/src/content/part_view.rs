//! The part view: a media-type chip, a Raw toggle, and the body chosen by [`classify`].
//!
//! Text rule: text, Markdown and Raw bodies show [`TEXT_CHUNK_CHARS`] at first, then a chunk per
//! "Show more" up to [`MAX_TEXT_CHARS`], and offer the whole text as a download
//! ([`super::long_text`]); CSV bodies over [`MAX_TEXT_CHARS`] are cut, with a note.

use std::borrow::Cow;

use leptos::prelude::*;
use serde_json::Value;

use super::classify::{ContentKind, classify, media_type_of};
use super::csv::CsvView;
use super::json::JsonView;
use super::long_text::{LongKind, LongText};
pub use super::long_text::{MAX_TEXT_CHARS, TEXT_CHUNK_CHARS};
use super::media::{DownloadCard, MediaView, file_card};
use crate::a2a::{Part, PartContent};

/// One message or artifact part, rendered by media type; used wherever parts are shown. With a
/// `summary`, the body is that one line (the chat's view of data it understands); Raw still
/// shows the part as sent.
#[component]
pub fn PartView(part: Part, #[prop(default = None)] summary: Option<String>) -> impl IntoView {
    let kind = classify(&part);
    let media_type = media_type_of(&part);
    let raw = RwSignal::new(false);
    let name = match kind {
        ContentKind::Text | ContentKind::Markdown | ContentKind::Json | ContentKind::Csv => {
            part.filename.clone()
        }
        _ => None,
    };
    let raw_source = part.clone();
    view! {
        <div class="content-part" data-kind=kind.as_str()>
            <div class="content-part-bar">
                <span class="content-chip">{media_type.clone()}</span>
                {name.map(|n| view! { <span class="content-file-name">{n}</span> })}
                <button
                    type="button"
                    class="content-toggle"
                    aria-pressed=move || raw.get().to_string()
                    on:click=move |_| raw.update(|r| *r = !*r)
                >
                    "Raw"
                </button>
            </div>
            <div class="content-part-body" hidden=move || raw.get()>
                {match summary {
                    Some(line) => view! { <p class="content-summary">{line}</p> }.into_any(),
                    None => part_body(kind, &media_type, part),
                }}
            </div>
            {move || raw.get().then(|| view! { <RawPart part=raw_source.clone()/> })}
        </div>
    }
}

/// Parts of one message or artifact, in order.
#[component]
pub fn PartsView(parts: Vec<Part>) -> impl IntoView {
    view! {
        <div class="content-parts">
            {parts.into_iter().map(|part| view! { <PartView part=part/> }).collect_view()}
        </div>
    }
}

fn part_body(kind: ContentKind, media_type: &str, part: Part) -> AnyView {
    match kind {
        ContentKind::Text => {
            let filename = download_name(&part, "text.txt");
            view! { <TextView text=text_of(&part).into_owned() filename media_type=media_type.to_owned()/> }
                .into_any()
        }
        ContentKind::Markdown => view! {
            <LongText
                text=text_of(&part).into_owned()
                kind=LongKind::Markdown
                filename=download_name(&part, "text.md")
                media_type=media_type.to_owned()
            />
        }
        .into_any(),
        ContentKind::Csv => {
            let text = text_of(&part);
            let (source, cut) = truncate_chars(&text, MAX_TEXT_CHARS);
            view! { <CsvView text=source.to_owned()/> {cut.then(cut_note)} }.into_any()
        }
        ContentKind::Json => json_body(part, media_type),
        ContentKind::Image | ContentKind::Audio | ContentKind::Video | ContentKind::Pdf => match part.content
        {
            PartContent::Url(url) => {
                view! { <MediaView kind=kind url=url filename=part.filename/> }.into_any()
            }
            // classify only picks a media kind for archived URLs.
            _ => view! { <DownloadCard card=file_card(&part, media_type)/> }.into_any(),
        },
        ContentKind::Download => view! { <DownloadCard card=file_card(&part, media_type)/> }.into_any(),
    }
}

/// A data part's value, or a text part parsed as JSON; text that does not parse stays text.
fn json_body(part: Part, media_type: &str) -> AnyView {
    let filename = download_name(&part, "part.json");
    match part.content {
        PartContent::Data(value) => view! { <JsonView value=value/> }.into_any(),
        PartContent::Text(text) => match serde_json::from_str::<Value>(&text) {
            Ok(value) => view! { <JsonView value=value/> }.into_any(),
            Err(_) => view! {
                <p class="content-note">"Not valid JSON; shown as text."</p>
                <TextView text=text filename media_type=media_type.to_owned()/>
            }
            .into_any(),
        },
        _ => ().into_any(),
    }
}

/// The text a text-like body shows: the text, a data part's string, or compact JSON.
fn text_of(part: &Part) -> Cow<'_, str> {
    match &part.content {
        PartContent::Text(text) | PartContent::Data(Value::String(text)) => Cow::Borrowed(text),
        PartContent::Data(value) => Cow::Owned(value.to_string()),
        PartContent::Url(_) | PartContent::Raw(_) => Cow::Borrowed(""),
    }
}

/// The first `max` characters of `text`, and whether anything was cut.
pub(crate) fn truncate_chars(text: &str, max: usize) -> (&str, bool) {
    match text.char_indices().nth(max) {
        Some((end, _)) => (&text[..end], true),
        None => (text, false),
    }
}

fn cut_note() -> AnyView {
    view! {
        <p class="content-note">{format!("Showing the first {MAX_TEXT_CHARS} characters; the rest is cut.")}</p>
    }
    .into_any()
}

/// The name a part's text downloads under: its filename, else `fallback`.
fn download_name(part: &Part, fallback: &str) -> String {
    part.filename
        .clone()
        .filter(|f| !f.trim().is_empty())
        .unwrap_or_else(|| fallback.to_owned())
}

/// Plain text with its whitespace kept (text rule).
#[component]
fn TextView(text: String, filename: String, media_type: String) -> impl IntoView {
    view! { <LongText text kind=LongKind::Text filename media_type/> }
}

/// The part as sent, pretty-printed JSON text (text rule).
#[component]
fn RawPart(part: Part) -> impl IntoView {
    let json = serde_json::to_string_pretty(&part).unwrap_or_default();
    view! { <LongText text=json kind=LongKind::Code filename="part.json" media_type="application/json"/> }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn text_rule_truncates_by_characters() {
        assert_eq!(truncate_chars("héllo", 10), ("héllo", false));
        assert_eq!(truncate_chars("héllo", 5), ("héllo", false));
        assert_eq!(truncate_chars("héllo", 2), ("hé", true));
        assert_eq!(truncate_chars("", 0), ("", false));
        let long = "é".repeat(MAX_TEXT_CHARS + 1);
        let (shown, cut) = truncate_chars(&long, MAX_TEXT_CHARS);
        assert!(cut);
        assert_eq!(shown.chars().count(), MAX_TEXT_CHARS);
    }

    #[test]
    fn text_of_reads_text_and_data_strings() {
        assert_eq!(text_of(&Part::text("a")), "a");
        assert_eq!(text_of(&Part::data(json!("b"), None)), "b");
        assert_eq!(text_of(&Part::data(json!({"c": 1}), None)), "{\"c\":1}");
    }
}
