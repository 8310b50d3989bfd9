//! What the composer sends, as pure functions: the text format, attached parts (file, file URL,
//! JSON data) as A2A 1.0 part objects, the agent card's input modes, and the Options panel.

use serde_json::{Map, Value, json};

use crate::api::tasks::SendOptions;

/// Largest file the composer attaches: it is read into memory and sent as base64.
pub const MAX_ATTACHMENT_BYTES: f64 = 10.0 * 1024.0 * 1024.0;

/// How the typed text is sent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TextFormat {
    /// The message's `text` (a plain text part).
    #[default]
    Text,
    /// A text part with media type `text/markdown`.
    Markdown,
}

impl TextFormat {
    /// Both formats, in the order the toggle shows them.
    pub const ALL: [TextFormat; 2] = [TextFormat::Text, TextFormat::Markdown];

    /// The media type of the text part.
    pub fn media_type(self) -> &'static str {
        match self {
            TextFormat::Text => "text/plain",
            TextFormat::Markdown => "text/markdown",
        }
    }

    /// The toggle label.
    pub fn label(self) -> &'static str {
        match self {
            TextFormat::Text => "Text",
            TextFormat::Markdown => "Markdown",
        }
    }
}

/// A part the user attached, listed as a removable chip until the message is sent.
#[derive(Clone, Debug, PartialEq)]
pub struct Attachment {
    /// Unique within the composer, for the list key.
    pub id: u64,
    /// What the chip says: the file name, the URL or "JSON data".
    pub label: String,
    /// The A2A 1.0 part object.
    pub part: Value,
}

/// A file read in the browser: `{"raw", "filename", "mediaType"}` (an empty browser media type
/// is left out).
pub fn file_part(base64: &str, filename: &str, media_type: &str) -> Value {
    let mut part = Map::new();
    part.insert("raw".into(), json!(base64));
    if !filename.is_empty() {
        part.insert("filename".into(), json!(filename));
    }
    if !media_type.trim().is_empty() {
        part.insert("mediaType".into(), json!(media_type.trim()));
    }
    Value::Object(part)
}

/// A file by URL: `{"url", "mediaType"?}`. Only absolute http(s) URLs are accepted.
pub fn url_part(url: &str, media_type: &str) -> Result<Value, String> {
    let url = url.trim();
    let scheme_ok = ["http://", "https://"].iter().any(|p| {
        url.len() > p.len()
            && url
                .get(..p.len())
                .is_some_and(|head| head.eq_ignore_ascii_case(p))
    });
    if !scheme_ok {
        return Err("Enter an absolute http:// or https:// URL.".into());
    }
    let mut part = Map::new();
    part.insert("url".into(), json!(url));
    if !media_type.trim().is_empty() {
        part.insert("mediaType".into(), json!(media_type.trim()));
    }
    Ok(Value::Object(part))
}

/// A JSON data part: `{"data": value, "mediaType": "application/json"}`; the text must parse.
pub fn data_part(text: &str) -> Result<Value, String> {
    if text.trim().is_empty() {
        return Err("Enter some JSON.".into());
    }
    let value: Value = serde_json::from_str(text).map_err(|e| format!("Not valid JSON: {e}."))?;
    Ok(json!({ "data": value, "mediaType": "application/json" }))
}

/// The base64 payload of a `data:…;base64,…` URL, as `FileReader.readAsDataURL` produces.
pub fn base64_of_data_url(data_url: &str) -> Option<&str> {
    let rest = data_url.strip_prefix("data:")?;
    let (header, payload) = rest.split_once(',')?;
    header.ends_with(";base64").then_some(payload)
}

/// Refuses files over [`MAX_ATTACHMENT_BYTES`] before they are read.
pub fn check_file_size(name: &str, bytes: f64) -> Result<(), String> {
    if bytes > MAX_ATTACHMENT_BYTES {
        Err(format!("{name} is larger than 10 MiB; attach it by URL instead."))
    } else {
        Ok(())
    }
}

/// The `text` and `parts` of a send, or `None` when there is nothing to send. Markdown goes in
/// a `text/markdown` part with `text` left empty; attachments follow.
pub fn message_content(
    text: &str,
    format: TextFormat,
    attachments: &[Attachment],
) -> Option<(String, Vec<Value>)> {
    let blank = text.trim().is_empty();
    if blank && attachments.is_empty() {
        return None;
    }
    let mut parts = Vec::with_capacity(attachments.len() + 1);
    let text = match format {
        TextFormat::Text if blank => String::new(),
        TextFormat::Text => text.to_owned(),
        TextFormat::Markdown => {
            if !blank {
                parts.push(json!({ "text": text, "mediaType": TextFormat::Markdown.media_type() }));
            }
            String::new()
        }
    };
    parts.extend(attachments.iter().map(|a| a.part.clone()));
    Some((text, parts))
}

/// The media type a part would be judged by: its `mediaType`, else `text/plain` for text and
/// `application/json` for data; files without one are unknown (never flagged).
pub fn part_media_type(part: &Value) -> Option<String> {
    if let Some(media) = part
        .get("mediaType")
        .and_then(Value::as_str)
        .filter(|m| !m.trim().is_empty())
    {
        return Some(media.trim().to_owned());
    }
    if part.get("text").is_some() {
        Some("text/plain".into())
    } else if part.get("data").is_some() {
        Some("application/json".into())
    } else {
        None
    }
}

/// Whether the card's input modes accept `media_type`: exact match, `type/*` or `*/*`, case
/// and parameters ignored. A card that declares no modes accepts everything.
pub fn accepts(modes: &[String], media_type: &str) -> bool {
    if modes.is_empty() {
        return true;
    }
    let essence = |m: &str| {
        m.split(';')
            .next()
            .unwrap_or_default()
            .trim()
            .to_ascii_lowercase()
    };
    let wanted = essence(media_type);
    let wanted_type = wanted.split('/').next().unwrap_or_default().to_owned();
    modes
        .iter()
        .map(|m| essence(m))
        .any(|mode| match mode.split_once('/') {
            _ if mode == "*" || mode == "*/*" => true,
            Some((kind, "*")) => kind == wanted_type,
            _ => mode == wanted,
        })
}

/// The text format the card names first among its input modes (shown with a ★).
pub fn preferred_format(modes: &[String]) -> Option<TextFormat> {
    modes.iter().find_map(|mode| {
        let mode = mode
            .split(';')
            .next()
            .unwrap_or_default()
            .trim()
            .to_ascii_lowercase();
        TextFormat::ALL.into_iter().find(|f| f.media_type() == mode)
    })
}

/// A comma-separated list, trimmed, blanks dropped.
pub fn parse_list(text: &str) -> Vec<String> {
    text.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

/// The Options panel as [`SendOptions`]; the box is always sent (the agent is asked to
/// return immediately, or to answer when the task settles).
pub fn build_options(
    return_immediately: bool,
    history_length: &str,
    accepted_output_modes: &str,
    reference_task_ids: &str,
) -> Result<SendOptions, String> {
    let history = history_length.trim();
    let history_length = if history.is_empty() {
        None
    } else {
        Some(
            history
                .parse::<u64>()
                .map_err(|_| "History length must be a whole number of messages (0 or more).".to_owned())?,
        )
    };
    Ok(SendOptions {
        return_immediately: Some(return_immediately),
        history_length,
        accepted_output_modes: parse_list(accepted_output_modes),
        reference_task_ids: parse_list(reference_task_ids),
        extensions: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attachment(part: Value) -> Attachment {
        Attachment {
            id: 1,
            label: "x".into(),
            part,
        }
    }

    #[test]
    fn plain_text_goes_in_text_and_markdown_in_a_part() {
        assert_eq!(
            message_content("hi", TextFormat::Text, &[]),
            Some(("hi".into(), vec![]))
        );
        assert_eq!(
            message_content("# hi", TextFormat::Markdown, &[]),
            Some((
                String::new(),
                vec![json!({"text": "# hi", "mediaType": "text/markdown"})]
            ))
        );
        assert_eq!(message_content("  \n", TextFormat::Text, &[]), None);
    }

    #[test]
    fn attachments_follow_the_text_and_may_stand_alone() {
        let data = data_part(r#"{"n": 1, "ok": true}"#).expect("json");
        let (text, parts) =
            message_content(" ", TextFormat::Markdown, &[attachment(data.clone())]).expect("some");
        assert_eq!(text, "");
        assert_eq!(parts, vec![data.clone()]);
        let (text, parts) =
            message_content("see", TextFormat::Text, &[attachment(data.clone())]).expect("some");
        assert_eq!((text.as_str(), parts), ("see", vec![data]));
    }

    #[test]
    fn part_builders() {
        assert_eq!(
            file_part("aGk=", "a.txt", "text/plain"),
            json!({"raw": "aGk=", "filename": "a.txt", "mediaType": "text/plain"})
        );
        assert_eq!(
            file_part("aGk=", "blob", ""),
            json!({"raw": "aGk=", "filename": "blob"})
        );
        assert_eq!(
            url_part(" https://x/y.pdf ", ""),
            Ok(json!({"url": "https://x/y.pdf"}))
        );
        assert_eq!(
            url_part("HTTP://x/y.png", "image/png"),
            Ok(json!({"url": "HTTP://x/y.png", "mediaType": "image/png"}))
        );
        for bad in ["javascript:alert(1)", "/relative", "", "https://"] {
            assert!(url_part(bad, "").is_err(), "{bad}");
        }
        assert_eq!(
            data_part("[1, 2]"),
            Ok(json!({"data": [1, 2], "mediaType": "application/json"}))
        );
        assert!(
            data_part("{oops")
                .expect_err("invalid")
                .starts_with("Not valid JSON")
        );
        assert!(data_part("  ").is_err());
    }

    #[test]
    fn data_urls_and_size_limit() {
        assert_eq!(base64_of_data_url("data:image/png;base64,AAE="), Some("AAE="));
        assert_eq!(base64_of_data_url("data:;base64,"), Some(""));
        assert_eq!(base64_of_data_url("data:text/plain,hello"), None);
        assert_eq!(base64_of_data_url("blob:x"), None);
        assert!(check_file_size("a", MAX_ATTACHMENT_BYTES).is_ok());
        assert!(check_file_size("big.iso", MAX_ATTACHMENT_BYTES + 1.0).is_err());
    }

    #[test]
    fn input_modes_match_exactly_or_by_wildcard() {
        let modes = vec![
            "text/plain".to_owned(),
            "image/*".to_owned(),
            "Application/JSON; charset=utf-8".to_owned(),
        ];
        assert!(accepts(&modes, "text/plain"));
        assert!(accepts(&modes, "TEXT/PLAIN; charset=utf-8"));
        assert!(accepts(&modes, "image/png"));
        assert!(accepts(&modes, "application/json"));
        assert!(!accepts(&modes, "text/markdown"));
        assert!(!accepts(&modes, "application/pdf"));
        assert!(accepts(&["*/*".to_owned()], "application/pdf"));
        assert!(accepts(&[], "anything/at-all"));
    }

    #[test]
    fn part_media_types_and_preferred_format() {
        assert_eq!(
            part_media_type(&json!({"text": "x"})).as_deref(),
            Some("text/plain")
        );
        assert_eq!(
            part_media_type(&json!({"data": {}})).as_deref(),
            Some("application/json")
        );
        assert_eq!(
            part_media_type(&json!({"raw": "", "mediaType": "image/png"})).as_deref(),
            Some("image/png")
        );
        assert_eq!(part_media_type(&json!({"url": "https://x"})), None);
        let modes = vec![
            "application/json".to_owned(),
            "text/markdown".to_owned(),
            "text/plain".to_owned(),
        ];
        assert_eq!(preferred_format(&modes), Some(TextFormat::Markdown));
        assert_eq!(preferred_format(&["text/*".to_owned()]), None);
    }

    #[test]
    fn options_from_the_panel() {
        assert_eq!(
            build_options(false, "", "", ""),
            Ok(SendOptions {
                return_immediately: Some(false),
                ..SendOptions::default()
            })
        );
        let options = build_options(true, " 5 ", "text/plain, ,application/json", "t1,t2 ").expect("valid");
        assert_eq!(options.return_immediately, Some(true));
        assert_eq!(options.history_length, Some(5));
        assert_eq!(
            options.accepted_output_modes,
            vec!["text/plain", "application/json"]
        );
        assert_eq!(options.reference_task_ids, vec!["t1", "t2"]);
        assert!(build_options(false, "-1", "", "").is_err());
        assert!(build_options(false, "many", "", "").is_err());
    }
}
