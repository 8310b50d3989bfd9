//! Server-side rendering checks: parts render to inert HTML whatever an agent sends.

use leptos::prelude::*;
use serde_json::{Value, json};

use super::*;
use crate::a2a::{Part, PartContent};

const DIGEST: &str = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

const HOSTILE_MARKDOWN: &str = r#"<script>alert(1)</script>

Inline <script>alert(2)</script> and <img src=x onerror=alert(3)> and <b onclick=alert(4)>b</b>

[click](javascript:alert(5)) [js2]( JaVaScRiPt:alert(6) ) [data](data:text/html;base64,PHNjcmlwdD4=)
[vb](vbscript:msgbox) [rel](/api/admin) [ref][r] <javascript:alert(7)>

[r]: javascript:alert(8)

![remote](http://evil.example/pixel.png) ![](https://evil.example/x.png "t") [![in link](https://evil.example/i.png)](https://good.example/)

<a href="javascript:alert(9)">raw anchor</a>

<iframe src="https://evil.example"></iframe>

<svg onload=alert(10)><style>*{}</style>

```"><script>alert(11)</script>
<script>alert(12)</script>
```

| <script>alert(13)</script> | [x](javascript:alert(14)) |
|---|---|
| <img src=x onerror=alert(15)> | ok |

[ok](https://good.example/a?b=1&c=2) <me@x.example>
"#;

fn render(part: Part) -> String {
    let owner = Owner::new();
    owner.with(|| view! { <PartView part=part/> }.to_html())
}

fn part(content: PartContent, media_type: Option<&str>, filename: Option<&str>) -> Part {
    Part {
        content,
        media_type: media_type.map(str::to_owned),
        filename: filename.map(str::to_owned),
        metadata: None,
    }
}

fn markdown(source: &str) -> String {
    render(part(
        PartContent::Text(source.to_owned()),
        Some("text/markdown"),
        None,
    ))
}

/// Every tag in `html`; text and attribute values are escaped, so a raw `<` always opens one.
fn tags(html: &str) -> Vec<String> {
    html.split('<')
        .skip(1)
        .map(|rest| rest.split('>').next().unwrap_or_default().to_ascii_lowercase())
        .collect()
}

/// The attributes of one lowercased tag; values are always double-quoted with `"` escaped.
fn attributes(tag: &str) -> Vec<(String, String)> {
    let mut attrs = Vec::new();
    let mut rest = tag.split_once(char::is_whitespace).map_or("", |(_, r)| r);
    loop {
        rest = rest.trim_start();
        if rest.is_empty() || rest == "/" {
            return attrs;
        }
        let end = rest
            .find(|c: char| c == '=' || c.is_whitespace())
            .unwrap_or(rest.len());
        let name = rest[..end].to_owned();
        rest = &rest[end..];
        let mut value = String::new();
        if let Some(quoted) = rest.strip_prefix("=\"") {
            let close = quoted.find('"').unwrap_or(quoted.len());
            value = quoted[..close].to_owned();
            rest = quoted.get(close + 1..).unwrap_or_default();
        }
        attrs.push((name, value));
    }
}

/// Asserts the inertness invariants on rendered HTML: no active elements, no event handler or
/// style attributes, no script-capable URL in any attribute and no remote `src`. Escaped text
/// may still read `href="javascript:` after a `&lt;`; it is text, so only tags are checked.
fn assert_inert(html: &str) {
    assert!(!html.contains("<script"), "{html}");
    assert!(!html.contains("<img src=\"http"), "{html}");
    for tag in tags(html) {
        let name = tag.split_whitespace().next().unwrap_or_default();
        for banned in [
            "script", "iframe", "svg", "style", "object", "embed", "base", "form", "meta", "link",
        ] {
            assert_ne!(name, banned, "element <{tag}> in {html}");
        }
        for (attr, value) in attributes(&tag) {
            assert!(!attr.starts_with("on"), "event handler attribute in <{tag}>");
            assert_ne!(attr, "style", "style attribute in <{tag}>");
            let value = value.trim_start();
            for scheme in ["javascript:", "data:", "vbscript:"] {
                assert!(!value.starts_with(scheme), "{scheme} in <{tag}>");
            }
            if attr == "src" {
                assert!(value.starts_with("/api/artifacts/"), "remote src in <{tag}>");
            }
        }
    }
}

#[test]
fn markdown_rules_hostile_markdown_renders_inert() {
    let html = markdown(HOSTILE_MARKDOWN);
    assert_inert(&html);
    assert!(!html.contains("<script"), "{html}");
    assert!(html.contains("&lt;script&gt;"), "{html}");
    assert!(!html.contains("<img"), "{html}");
    assert!(!html.contains("href=\"/api/admin\""), "{html}");
    assert!(!tags(&html).iter().any(|t| t.contains("onerror")), "{html}");
    assert_eq!(html.matches("(remote image not loaded)").count(), 3, "{html}");
    assert!(
        html.contains("href=\"https://good.example/a?b=1&amp;c=2\""),
        "{html}"
    );
    assert!(html.contains("href=\"mailto:me@x.example\""), "{html}");
    assert!(html.contains("rel=\"noopener noreferrer\""), "{html}");
    assert!(html.contains("target=\"_blank\""), "{html}");
    // Rejected links keep their text only.
    let text = html.replace("<!>", "");
    assert!(
        text.contains("<p>click js2 data\nvb rel ref javascript:alert(7)</p>"),
        "{text}"
    );
}

#[test]
fn markdown_rules_gfm_renders_elements() {
    let html = markdown("# T\n\n| a | b |\n|:-:|--|\n| 1 | ~~2~~ |\n\n- [x] done\n\n```sh\necho hi\n```\n");
    assert_inert(&html);
    // `<!>` is the hydration marker after each list of children.
    let html = html.replace("<!>", "");
    for needle in [
        "<h1>T</h1>",
        "<table class=\"content-table\">",
        "<th scope=\"col\" class=\"content-align-center\">a</th>",
        "<del>2</del>",
        "type=\"checkbox\"",
        "<pre class=\"content-code\"><code class=\"language-sh\">echo hi\n</code></pre>",
    ] {
        assert!(html.contains(needle), "{needle} missing in {html}");
    }
}

#[test]
fn part_view_shows_a_media_type_chip_and_raw_toggle() {
    let html = render(Part::text("a\n  b"));
    assert!(
        html.contains("<span class=\"content-chip\">text/plain</span>"),
        "{html}"
    );
    assert!(html.contains(">Raw</button>"), "{html}");
    assert!(
        html.contains("<div class=\"content-text\">a\n  b</div>"),
        "{html}"
    );
    assert!(html.contains("data-kind=\"text\""), "{html}");
}

/// Issue #26 "One huge text part freezes the browser": a 300,000-character text part renders
/// its first chunk only, with "Show more" and "Download".
#[test]
fn text_rule_a_huge_text_renders_one_chunk_with_show_more_and_download() {
    let html = render(Part::text("x".repeat(300_000)));
    assert!(
        html.contains(&"x".repeat(TEXT_CHUNK_CHARS)),
        "the first chunk is shown"
    );
    assert!(
        !html.contains(&"x".repeat(TEXT_CHUNK_CHARS + 1)),
        "and nothing more"
    );
    assert!(html.len() < TEXT_CHUNK_CHARS + 5_000, "{} bytes", html.len());
    assert!(
        html.contains("Showing 20000 of 300000 characters."),
        "{html:.2000}"
    );
    assert!(html.contains(r#"data-testid="show-more""#) && html.contains(">Show more</button>"));
    assert!(html.contains(r#"data-testid="download-text""#) && html.contains(">Download</button>"));
    // Under one chunk: drawn as before, no controls.
    let short = render(Part::text("x".repeat(TEXT_CHUNK_CHARS)));
    assert!(short.contains(&format!(
        r#"<div class="content-text">{}</div>"#,
        "x".repeat(TEXT_CHUNK_CHARS)
    )));
    assert!(!short.contains("show-more") && !short.contains("download-text"));
}

/// Markdown is bounded the same way: only the first chunk is parsed and rendered.
#[test]
fn text_rule_huge_markdown_renders_one_chunk() {
    let line = "Some *markdown* text in a paragraph of its own.\n\n";
    let source = line.repeat(300_000 / line.len() + 1);
    let html = render(part(
        PartContent::Text(source.clone()),
        Some("text/markdown"),
        None,
    ));
    let paragraphs = html.matches("<p>").count();
    let per_chunk = TEXT_CHUNK_CHARS / line.len();
    assert!(
        paragraphs > 0 && paragraphs <= per_chunk + 1,
        "{paragraphs} paragraphs"
    );
    assert!(html.contains(">Show more</button>") && html.contains(">Download</button>"));
    assert!(html.contains(&format!("of {} characters.", source.chars().count())));
}

#[test]
fn media_rule_remote_image_is_a_card_not_an_img() {
    let url = "https://evil.example/a.png?x=\"><script>";
    let html = render(part(
        PartContent::Url(url.into()),
        Some("image/png"),
        Some("a.png"),
    ));
    assert_inert(&html);
    assert!(!html.contains("<img"), "{html}");
    assert!(html.contains("content-file-url"), "{html}");
    assert!(html.contains("rel=\"noopener noreferrer\""), "{html}");

    let html = render(part(
        PartContent::Url("javascript:alert(1)".into()),
        Some("image/png"),
        None,
    ));
    assert_inert(&html);
    assert!(!html.contains("<a "), "{html}");
}

#[test]
fn media_rule_archived_media_is_inline() {
    let url = archive_url(DIGEST);
    let html = render(part(
        PartContent::Url(url.clone()),
        Some("image/png"),
        Some("\"><script>x"),
    ));
    assert_inert(&html);
    assert!(html.contains(&format!("<img src=\"{url}\"")), "{html}");
    assert!(html.contains("class=\"content-media\""), "{html}");
    assert!(html.contains("alt=\"&quot;&gt;&lt;script&gt;x\""), "{html}");

    let html = render(part(PartContent::Url(url.clone()), Some("video/mp4"), None));
    assert!(html.contains("<video") && html.contains("controls"), "{html}");
    let html = render(part(PartContent::Url(url.clone()), Some("audio/ogg"), None));
    assert!(html.contains("<audio") && html.contains("controls"), "{html}");
    let html = render(part(
        PartContent::Url(url.clone()),
        Some("application/pdf"),
        Some("r.pdf"),
    ));
    assert!(
        html.contains("PDF document") && html.contains("download=\"r.pdf\""),
        "{html}"
    );
}

#[test]
fn download_rule_cards_show_name_type_size_and_archived_link() {
    let html = render(part(
        PartContent::Url(archive_url(DIGEST)),
        Some("application/zip"),
        Some("r.zip"),
    ));
    assert!(
        html.contains(&format!("href=\"{}\" download=\"r.zip\"", archive_url(DIGEST))),
        "{html}"
    );
    let html = render(part(PartContent::Raw("aGVsbG8=".into()), Some("image/png"), None));
    assert!(
        html.contains(">file</span>") && html.contains("image/png · 5 B"),
        "{html}"
    );
    assert!(!html.contains("<img") && !html.contains("href"), "{html}");
}

#[test]
fn json_rule_tables_trees_and_inert_keys() {
    let rows = json!([{"name": "<script>alert(1)</script>", "n": 1}, {"__proto__": {"x": true}}]);
    let html = render(Part::data(rows, None));
    assert_inert(&html);
    assert!(html.contains("<table class=\"content-table\">"), "{html}");
    assert!(html.contains("<th scope=\"col\">__proto__</th>"), "{html}");
    assert!(html.contains("&lt;script&gt;"), "{html}");

    let tree: Value = json!({"__proto__": {"polluted": "<img src=x onerror=alert(1)>"}, "list": [1, null]});
    let html = render(Part::data(tree, Some("application/vnd.x+json".into())));
    assert_inert(&html);
    assert!(html.contains("<details"), "{html}");
    assert!(html.contains(">__proto__</span>"), "{html}");
    assert!(html.contains("Raw JSON"), "{html}");
}

#[test]
fn json_rule_text_that_is_not_json_stays_text() {
    let html = render(part(
        PartContent::Text("{nope <b>".into()),
        Some("application/json"),
        None,
    ));
    assert!(
        html.contains("Not valid JSON") && html.contains("{nope &lt;b&gt;"),
        "{html}"
    );
}

#[test]
fn csv_rule_renders_a_capped_table() {
    let mut csv = String::from("h1,\"<script>\"\r\n");
    for i in 0..1005 {
        csv.push_str(&format!("{i},\"a,\"\"b\"\"\"\r\n"));
    }
    let html = render(part(PartContent::Text(csv), Some("text/csv"), None));
    assert_inert(&html);
    assert!(html.contains("<th scope=\"col\">&lt;script&gt;</th>"), "{html}");
    assert!(html.contains("<td>a,\"b\"</td>"));
    assert!(html.contains("<td>999</td>") && !html.contains("<td>1000</td>"));
    assert!(html.contains("Showing first 1000 rows."));
}

#[test]
fn parts_view_renders_in_order() {
    let owner = Owner::new();
    let parts = vec![Part::text("first"), Part::text("second")];
    let html = owner.with(|| view! { <PartsView parts=parts/> }.to_html());
    let first = html.find("first").expect("first");
    let second = html.find("second").expect("second");
    assert!(first < second);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

    #[test]
    fn markdown_rendering_never_panics_and_stays_inert(s in "[-*_`#>|\\[\\]()!<>:/=\"a-z \n]{0,200}") {
        assert_inert(&markdown(&s));
    }
}
