//! Which renderer a part gets: a pure function of its media type and content kind.
//!
//! Rules: the effective media type is the declared one, else text parts are `text/plain`, data
//! parts `application/json`, and files are named by their filename extension, else
//! `application/octet-stream`. Media (image, audio, video, PDF) is inline only from archived
//! bytes; everything that cannot be shown safely is a download card.

use crate::a2a::{Part, PartContent};

use super::archive::archived_digest;

/// Fallback media type of a text part.
const TEXT_FALLBACK: &str = "text/plain";
/// Fallback media type of a data part.
const DATA_FALLBACK: &str = "application/json";
/// Fallback media type of a file with no media type and no known extension.
const FILE_FALLBACK: &str = "application/octet-stream";

/// The renderer chosen for a part.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ContentKind {
    /// Plain text, whitespace kept.
    Text,
    /// GitHub-flavoured markdown, built into views (never injected as HTML).
    Markdown,
    /// A JSON table or collapsible tree.
    Json,
    /// A CSV table.
    Csv,
    /// An archived image, shown with `<img>`.
    Image,
    /// Archived audio, shown with `<audio controls>`.
    Audio,
    /// Archived video, shown with `<video controls>`.
    Video,
    /// An archived PDF, offered as open and download links.
    Pdf,
    /// A download card: anything that is not shown inline.
    Download,
}

impl ContentKind {
    /// A stable lowercase name, used as a `data-kind` attribute.
    pub fn as_str(self) -> &'static str {
        match self {
            ContentKind::Text => "text",
            ContentKind::Markdown => "markdown",
            ContentKind::Json => "json",
            ContentKind::Csv => "csv",
            ContentKind::Image => "image",
            ContentKind::Audio => "audio",
            ContentKind::Video => "video",
            ContentKind::Pdf => "pdf",
            ContentKind::Download => "download",
        }
    }
}

/// The effective media type of a part, lowercased and without parameters (`; charset=…`).
pub fn media_type_of(part: &Part) -> String {
    let declared = part
        .media_type
        .as_deref()
        .map(|m| m.split(';').next().unwrap_or_default().trim())
        .filter(|m| !m.is_empty());
    if let Some(declared) = declared {
        return declared.to_ascii_lowercase();
    }
    match &part.content {
        PartContent::Text(_) => TEXT_FALLBACK.to_owned(),
        PartContent::Data(_) => DATA_FALLBACK.to_owned(),
        PartContent::Url(_) | PartContent::Raw(_) => part
            .filename
            .as_deref()
            .and_then(media_type_for_filename)
            .unwrap_or(FILE_FALLBACK)
            .to_owned(),
    }
}

/// The renderer for a part; deterministic, see the module rules.
pub fn classify(part: &Part) -> ContentKind {
    let family = Family::of(&media_type_of(part));
    match &part.content {
        PartContent::Text(_) => match family {
            Family::Markdown => ContentKind::Markdown,
            Family::Json => ContentKind::Json,
            Family::Csv => ContentKind::Csv,
            Family::Text => ContentKind::Text,
            _ => ContentKind::Download,
        },
        // A data part is JSON; only a string value can be read as text of another type.
        PartContent::Data(value) => match (family, value.is_string()) {
            (Family::Markdown, true) => ContentKind::Markdown,
            (Family::Csv, true) => ContentKind::Csv,
            (Family::Text, true) => ContentKind::Text,
            _ => ContentKind::Json,
        },
        PartContent::Url(url) if archived_digest(url).is_some() => match family {
            Family::Image => ContentKind::Image,
            Family::Audio => ContentKind::Audio,
            Family::Video => ContentKind::Video,
            Family::Pdf => ContentKind::Pdf,
            _ => ContentKind::Download,
        },
        PartContent::Url(_) | PartContent::Raw(_) => ContentKind::Download,
    }
}

/// Media-type families the rules distinguish.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Family {
    Markdown,
    Json,
    Csv,
    Text,
    Image,
    Audio,
    Video,
    Pdf,
    Other,
}

impl Family {
    fn of(media_type: &str) -> Family {
        let (top, sub) = media_type.split_once('/').unwrap_or((media_type, ""));
        match (top, sub) {
            ("text", "markdown" | "x-markdown") => Family::Markdown,
            ("text", "csv") => Family::Csv,
            ("application", "json") => Family::Json,
            ("application", "pdf") => Family::Pdf,
            ("image", _) => Family::Image,
            ("audio", _) => Family::Audio,
            ("video", _) => Family::Video,
            (_, sub) if sub.ends_with("+json") => Family::Json,
            ("text", _) => Family::Text,
            ("application", sub) if is_textual_application(sub) => Family::Text,
            _ => Family::Other,
        }
    }
}

/// `application/*` subtypes that are text and safe to show as plain text.
fn is_textual_application(sub: &str) -> bool {
    sub.ends_with("+xml")
        || matches!(
            sub,
            "xml"
                | "yaml"
                | "x-yaml"
                | "toml"
                | "javascript"
                | "ecmascript"
                | "x-sh"
                | "sql"
                | "graphql"
                | "x-ndjson"
                | "jsonl"
        )
}

/// The media type implied by a filename's extension, for files sent without one.
fn media_type_for_filename(filename: &str) -> Option<&'static str> {
    let (_, ext) = filename.rsplit_once('.')?;
    Some(match ext.to_ascii_lowercase().as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "avif" => "image/avif",
        "svg" => "image/svg+xml",
        "mp3" => "audio/mpeg",
        "wav" => "audio/wav",
        "ogg" | "oga" => "audio/ogg",
        "m4a" => "audio/mp4",
        "flac" => "audio/flac",
        "mp4" | "m4v" => "video/mp4",
        "webm" => "video/webm",
        "ogv" => "video/ogg",
        "mov" => "video/quicktime",
        "pdf" => "application/pdf",
        "md" | "markdown" => "text/markdown",
        "txt" | "log" => "text/plain",
        "csv" => "text/csv",
        "json" => "application/json",
        "html" | "htm" => "text/html",
        "xml" => "application/xml",
        "yaml" | "yml" => "application/yaml",
        "zip" => "application/zip",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::content::archive::archive_url;

    const DIGEST: &str = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

    fn file(content: PartContent, media_type: Option<&str>, filename: Option<&str>) -> Part {
        Part {
            content,
            media_type: media_type.map(str::to_owned),
            filename: filename.map(str::to_owned),
            metadata: None,
        }
    }

    fn archived(media_type: Option<&str>, filename: Option<&str>) -> Part {
        file(PartContent::Url(archive_url(DIGEST)), media_type, filename)
    }

    fn text(media_type: &str) -> Part {
        file(PartContent::Text("x".into()), Some(media_type), None)
    }

    #[test]
    fn fallback_rule_text_is_plain_data_is_json_file_is_octet_stream() {
        assert_eq!(media_type_of(&Part::text("hi")), "text/plain");
        assert_eq!(media_type_of(&Part::data(json!({}), None)), "application/json");
        assert_eq!(media_type_of(&archived(None, None)), "application/octet-stream");
        assert_eq!(
            media_type_of(&archived(None, Some("noext"))),
            "application/octet-stream"
        );
        assert_eq!(
            media_type_of(&archived(None, Some("a.unknown"))),
            "application/octet-stream"
        );
    }

    #[test]
    fn fallback_rule_files_use_the_extension_only_without_a_media_type() {
        assert_eq!(media_type_of(&archived(None, Some("Photo.PNG"))), "image/png");
        assert_eq!(
            media_type_of(&archived(Some("text/plain"), Some("a.png"))),
            "text/plain"
        );
        assert_eq!(classify(&archived(None, Some("clip.webm"))), ContentKind::Video);
        // Text parts never take a media type from their filename.
        let named = file(PartContent::Text("# x".into()), None, Some("a.md"));
        assert_eq!(classify(&named), ContentKind::Text);
    }

    #[test]
    fn media_type_is_lowercased_without_parameters() {
        assert_eq!(
            media_type_of(&text(" Text/Markdown ; charset=utf-8")),
            "text/markdown"
        );
        assert_eq!(media_type_of(&text("")), "text/plain");
        assert_eq!(media_type_of(&text(" ; x=y")), "text/plain");
    }

    #[test]
    fn text_parts_by_media_type() {
        assert_eq!(classify(&Part::text("hi")), ContentKind::Text);
        assert_eq!(classify(&text("text/markdown")), ContentKind::Markdown);
        assert_eq!(classify(&text("text/x-markdown")), ContentKind::Markdown);
        assert_eq!(classify(&text("application/json")), ContentKind::Json);
        assert_eq!(classify(&text("application/ld+json")), ContentKind::Json);
        assert_eq!(classify(&text("text/csv")), ContentKind::Csv);
        assert_eq!(classify(&text("text/html")), ContentKind::Text);
        assert_eq!(classify(&text("application/yaml")), ContentKind::Text);
        assert_eq!(classify(&text("application/atom+xml")), ContentKind::Text);
    }

    #[test]
    fn text_parts_with_unknown_media_types_are_download_cards() {
        assert_eq!(classify(&text("application/octet-stream")), ContentKind::Download);
        assert_eq!(classify(&text("image/png")), ContentKind::Download);
        assert_eq!(classify(&text("nonsense")), ContentKind::Download);
    }

    #[test]
    fn data_parts_are_json_unless_a_string_of_a_text_type() {
        assert_eq!(classify(&Part::data(json!([1]), None)), ContentKind::Json);
        let a2ui = Part::data(json!({}), Some("application/a2ui+json".into()));
        assert_eq!(classify(&a2ui), ContentKind::Json);
        let odd = Part::data(json!({}), Some("application/x-thing".into()));
        assert_eq!(classify(&odd), ContentKind::Json);
        let md = Part::data(json!("# t"), Some("text/markdown".into()));
        assert_eq!(classify(&md), ContentKind::Markdown);
        let csv = Part::data(json!("a,b"), Some("text/csv".into()));
        assert_eq!(classify(&csv), ContentKind::Csv);
        let csv_object = Part::data(json!({"a": 1}), Some("text/csv".into()));
        assert_eq!(classify(&csv_object), ContentKind::Json);
        let plain = Part::data(json!("x"), Some("text/plain".into()));
        assert_eq!(classify(&plain), ContentKind::Text);
    }

    #[test]
    fn media_rule_archived_media_is_inline() {
        assert_eq!(classify(&archived(Some("image/png"), None)), ContentKind::Image);
        assert_eq!(
            classify(&archived(Some("image/svg+xml"), None)),
            ContentKind::Image
        );
        assert_eq!(classify(&archived(Some("audio/mpeg"), None)), ContentKind::Audio);
        assert_eq!(classify(&archived(Some("video/mp4"), None)), ContentKind::Video);
        assert_eq!(
            classify(&archived(Some("application/pdf"), None)),
            ContentKind::Pdf
        );
        assert_eq!(classify(&archived(Some("IMAGE/PNG"), None)), ContentKind::Image);
    }

    #[test]
    fn media_rule_remote_media_is_never_inline() {
        for url in [
            "https://cdn.example/a.png".to_owned(),
            "data:image/png;base64,AAAA".to_owned(),
            format!("{}?x=1", archive_url(DIGEST)),
            archive_url(&DIGEST.to_uppercase()),
        ] {
            let part = file(PartContent::Url(url.clone()), Some("image/png"), None);
            assert_eq!(classify(&part), ContentKind::Download, "{url}");
        }
    }

    #[test]
    fn download_rule_inline_bytes_and_other_files() {
        let raw = file(PartContent::Raw("iVBORw0KGgo=".into()), Some("image/png"), None);
        assert_eq!(classify(&raw), ContentKind::Download);
        assert_eq!(
            classify(&archived(Some("application/zip"), None)),
            ContentKind::Download
        );
        assert_eq!(
            classify(&archived(Some("text/markdown"), None)),
            ContentKind::Download
        );
        assert_eq!(classify(&archived(None, None)), ContentKind::Download);
    }
}
