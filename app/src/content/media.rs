//! Files: archived media shown inline (`<img>`, `<audio>`, `<video>`, PDF links) and the
//! download card for everything else.
//!
//! Media rule: only archived URLs (`/api/artifacts/<sha256>`) are ever put in `src` or `href`
//! for download; a remote URL is shown as text, and as a link only when it is http(s).

use leptos::prelude::*;
use serde_json::Value;

use super::archive::archived_digest;
use super::classify::ContentKind;
use super::link::web_link;
use crate::a2a::{Part, PartContent};

/// Shown when a file part has no filename.
const DEFAULT_FILENAME: &str = "file";

/// What a download card says about one file part.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileCard {
    /// The part's filename, or "file".
    pub filename: String,
    /// The effective media type.
    pub media_type: String,
    /// Size in bytes: `metadata.size`, else estimated from inline base64 or text.
    pub size: Option<u64>,
    /// Where the bytes are.
    pub source: FileSource,
}

/// Where a file's bytes are, which decides the card's link.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileSource {
    /// Archived by the console: a Download link to this URL.
    Archived(String),
    /// A URL the console never loads; `link` is set only for http(s).
    Remote { url: String, link: Option<String> },
    /// Inline bytes or text that were not archived: nothing to link to.
    Inline,
}

/// The download card data for `part`, whose effective media type is `media_type`.
pub fn file_card(part: &Part, media_type: &str) -> FileCard {
    let size = metadata_size(part).or(match &part.content {
        PartContent::Raw(b64) => Some(base64_decoded_len(b64)),
        PartContent::Text(text) => u64::try_from(text.len()).ok(),
        PartContent::Url(_) | PartContent::Data(_) => None,
    });
    let source = match &part.content {
        PartContent::Url(url) if archived_digest(url).is_some() => FileSource::Archived(url.clone()),
        PartContent::Url(url) => FileSource::Remote {
            url: url.clone(),
            link: web_link(url).map(str::to_owned),
        },
        _ => FileSource::Inline,
    };
    FileCard {
        filename: filename_of(part).to_owned(),
        media_type: media_type.to_owned(),
        size,
        source,
    }
}

fn filename_of(part: &Part) -> &str {
    part.filename
        .as_deref()
        .filter(|f| !f.trim().is_empty())
        .unwrap_or(DEFAULT_FILENAME)
}

/// `metadata.size` as a number or a string of digits.
fn metadata_size(part: &Part) -> Option<u64> {
    match part.metadata.as_ref()?.get("size")? {
        Value::Number(n) => n.as_u64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// Decoded length of base64 text: three bytes per four characters, less the padding.
pub fn base64_decoded_len(b64: &str) -> u64 {
    let chars = b64.bytes().filter(|b| !b.is_ascii_whitespace()).count();
    let padding = b64
        .trim_end()
        .bytes()
        .rev()
        .take_while(|&b| b == b'=')
        .take(2)
        .count();
    u64::try_from((chars * 3 / 4).saturating_sub(padding)).unwrap_or(u64::MAX)
}

/// A byte count for people: `512 B`, `1.5 KB`, `12.0 MB`.
pub fn format_size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KB", "MB", "GB", "TB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

/// An archived image, audio, video or PDF part shown inline; used by the part view.
#[component]
pub fn MediaView(kind: ContentKind, url: String, filename: Option<String>) -> impl IntoView {
    let name = filename.unwrap_or_else(|| DEFAULT_FILENAME.to_owned());
    let media = match kind {
        ContentKind::Image => {
            view! { <img class="content-media" src=url.clone() alt=name.clone() loading="lazy"/> }.into_any()
        }
        ContentKind::Audio => {
            view! { <audio class="content-media" controls=true preload="metadata" src=url.clone()></audio> }
                .into_any()
        }
        ContentKind::Video => {
            view! { <video class="content-media" controls=true preload="metadata" src=url.clone()></video> }
                .into_any()
        }
        // Not embedded: archived files are served as attachments, so the PDF is downloaded and
        // opened by the operator's own viewer.
        _ => view! { <span class="content-file-note">"PDF document"</span> }.into_any(),
    };
    view! {
        <figure class="content-figure">
            {media}
            <figcaption class="content-file-meta">
                <span class="content-file-name">{name.clone()}</span>
                " "
                <a class="content-file-action" href=url download=name>"Download"</a>
            </figcaption>
        </figure>
    }
}

/// A file that is not shown inline: name, media type, size and, when safe, a link; used by
/// the part view.
#[component]
pub fn DownloadCard(card: FileCard) -> impl IntoView {
    let FileCard {
        filename,
        media_type,
        size,
        source,
    } = card;
    let details = match size {
        Some(size) => format!("{media_type} · {}", format_size(size)),
        None => media_type,
    };
    let action = match source {
        FileSource::Archived(url) => view! {
            <a class="content-file-action" href=url download=filename.clone()>"Download"</a>
        }
        .into_any(),
        FileSource::Remote { url, link } => view! {
            <code class="content-file-url">{url}</code>
            <span class="content-note">"Remote file, not loaded."</span>
            {link.map(|href| view! {
                <a class="content-file-action" href=href target="_blank" rel="noopener noreferrer">"Open link"</a>
            })}
        }
        .into_any(),
        FileSource::Inline => view! { <span class="content-note">"Inline bytes, not archived."</span> }.into_any(),
    };
    view! {
        <div class="content-file">
            <span class="content-file-name">{filename.clone()}</span>
            <span class="content-file-meta">{details}</span>
            {action}
        </div>
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::content::archive::archive_url;

    const DIGEST: &str = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

    fn part(content: PartContent, filename: Option<&str>, metadata: Option<Value>) -> Part {
        Part {
            content,
            media_type: None,
            filename: filename.map(str::to_owned),
            metadata: metadata.and_then(|m| m.as_object().cloned()),
        }
    }

    #[test]
    fn download_rule_archived_urls_get_a_download_link() {
        let url = archive_url(DIGEST);
        let card = file_card(
            &part(PartContent::Url(url.clone()), Some("r.zip"), None),
            "application/zip",
        );
        assert_eq!(card.filename, "r.zip");
        assert_eq!(card.source, FileSource::Archived(url));
        assert_eq!(card.size, None);
    }

    #[test]
    fn media_rule_remote_urls_link_only_over_http() {
        let card = file_card(
            &part(PartContent::Url("HTTPS://x.example/a.png".into()), None, None),
            "image/png",
        );
        assert_eq!(card.filename, "file");
        assert_eq!(
            card.source,
            FileSource::Remote {
                url: "HTTPS://x.example/a.png".into(),
                link: Some("HTTPS://x.example/a.png".into())
            }
        );
        for url in [
            "javascript:alert(1)",
            "data:image/png;base64,AA",
            "/api/other",
            "mailto:a@b",
        ] {
            let card = file_card(&part(PartContent::Url(url.into()), None, None), "image/png");
            assert_eq!(
                card.source,
                FileSource::Remote {
                    url: url.into(),
                    link: None
                },
                "{url}"
            );
        }
    }

    #[test]
    fn download_rule_size_from_metadata_then_base64_length() {
        let meta = Some(json!({"size": 2048}));
        assert_eq!(
            file_card(&part(PartContent::Raw("AAAA".into()), None, meta), "x").size,
            Some(2048)
        );
        let meta = Some(json!({"size": " 12 "}));
        assert_eq!(
            file_card(&part(PartContent::Url("u".into()), None, meta), "x").size,
            Some(12)
        );
        let card = file_card(&part(PartContent::Raw("aGk=".into()), Some(" "), None), "x");
        assert_eq!(
            (card.size, card.source, card.filename.as_str()),
            (Some(2), FileSource::Inline, "file")
        );
    }

    #[test]
    fn base64_length_estimate() {
        assert_eq!(base64_decoded_len(""), 0);
        assert_eq!(base64_decoded_len("aGk="), 2);
        assert_eq!(base64_decoded_len("aGVsbG8="), 5);
        assert_eq!(base64_decoded_len("aGVs\nbG8h"), 6);
        assert_eq!(base64_decoded_len("aA=="), 1);
        assert_eq!(base64_decoded_len("===="), 1);
    }

    #[test]
    fn sizes_read_for_people() {
        assert_eq!(format_size(0), "0 B");
        assert_eq!(format_size(1023), "1023 B");
        assert_eq!(format_size(1536), "1.5 KB");
        assert_eq!(format_size(5 * 1024 * 1024), "5.0 MB");
        assert_eq!(format_size(u64::MAX), "16777216.0 TB");
    }
}
