//! `files`: one answer with every kind of file a console must show or offer for download:
//! markdown, JSON data, CSV, a PNG, a PDF and an opaque binary (inline `raw` base64 parts).
//! "huge" in the message: one reply whose single `text/plain` part is [`HUGE_TEXT_CHARS`]
//! characters long (issue #26: the console must show it in bounded chunks).

use app::a2a::TaskState;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};

use crate::demo_agent::runner::Step;
use crate::demo_agent::wire::{Incoming, Update};

/// A 4×4 teal PNG (valid signature, IHDR, IDAT and IEND chunks with correct CRCs).
pub(crate) const PNG_BASE64: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAQAAAAECAIAAAAmkwkpAAAAEElEQVR42mOQ7yqAIwbiOADD0xGRY1DLAwAAAABJRU5ErkJggg==";

/// A one-page PDF saying "Agent Taskbay demo report" (byte offsets in the xref table are exact).
pub(crate) const PDF: &str = concat!(
    "%PDF-1.4\n",
    "1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n",
    "2 0 obj\n<< /Type /Pages /Kids [3 0 R] /Count 1 >>\nendobj\n",
    "3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 144] /Contents 4 0 R ",
    "/Resources << /Font << /F1 5 0 R >> >> >>\nendobj\n",
    "4 0 obj\n<< /Length 55 >>\nstream\nBT /F1 18 Tf 36 72 Td (Agent Taskbay demo report) Tj ET\nendstream\nendobj\n",
    "5 0 obj\n<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>\nendobj\n",
    "xref\n0 6\n0000000000 65535 f \n0000000009 00000 n \n0000000058 00000 n \n",
    "0000000115 00000 n \n0000000241 00000 n \n0000000346 00000 n \n",
    "trailer\n<< /Size 6 /Root 1 0 R >>\nstartxref\n416\n%%EOF\n",
);

const MARKDOWN: &str = "# Deploy report\n\n- **billing-api** 1.42.0 is live in staging\n- 3/3 replicas ready\n\n\
    | check | result |\n| --- | --- |\n| health | ok |\n| latency p99 | 180 ms |\n";

const CSV: &str = "service,environment,replicas,status\nbilling-api,staging,3,ready\nbilling-api,production,5,ready\n\
    search,staging,2,degraded\n";

/// Characters of the "huge" reply's text part.
pub(crate) const HUGE_TEXT_CHARS: usize = 300_000;
/// The last line of the "huge" reply: a console that shows it has shown everything.
pub(crate) const HUGE_TEXT_END: &str = "End of the huge reply.";

/// The "huge" reply's text: numbered lines, [`HUGE_TEXT_END`] last, exactly
/// [`HUGE_TEXT_CHARS`] characters.
pub(crate) fn huge_text() -> String {
    let mut text = String::with_capacity(HUGE_TEXT_CHARS);
    let mut n = 0;
    while text.len() < HUGE_TEXT_CHARS {
        n += 1;
        text.push_str(&format!(
            "Line {n:06} of a reply far longer than anyone reads at once.\n"
        ));
    }
    text.truncate(HUGE_TEXT_CHARS - HUGE_TEXT_END.len());
    text.push_str(HUGE_TEXT_END);
    text
}

/// The script: every file as its own artifact, then COMPLETED; or the huge reply.
pub(crate) fn plan(incoming: &Incoming) -> Vec<Step> {
    if incoming.text.to_lowercase().contains("huge") {
        return vec![Step::Do(Update::say(TaskState::Completed, huge_text()))];
    }
    let binary: Vec<u8> = (0..=255).collect();
    let artifacts = [
        artifact(
            "summary.md",
            json!({"text": MARKDOWN, "mediaType": "text/markdown", "filename": "summary.md"}),
        ),
        artifact(
            "report.json",
            json!({"data": {"service": "billing-api", "version": "1.42.0", "replicas": {"ready": 3, "total": 3},
                            "checks": [{"name": "health", "ok": true}, {"name": "latency", "p99Ms": 180}]},
                   "mediaType": "application/json", "filename": "report.json"}),
        ),
        artifact(
            "replicas.csv",
            json!({"text": CSV, "mediaType": "text/csv", "filename": "replicas.csv"}),
        ),
        artifact(
            "chart.png",
            json!({"raw": PNG_BASE64, "mediaType": "image/png", "filename": "chart.png"}),
        ),
        artifact(
            "report.pdf",
            json!({"raw": STANDARD.encode(PDF), "mediaType": "application/pdf", "filename": "report.pdf"}),
        ),
        artifact(
            "sample.bin",
            json!({"raw": STANDARD.encode(binary), "mediaType": "application/octet-stream",
                   "filename": "sample.bin"}),
        ),
    ];
    let mut steps = vec![Step::Do(Update::say(TaskState::Working, "Collecting the files."))];
    steps.extend(artifacts.into_iter().map(|a| Step::Do(Update::artifact(a))));
    steps.push(Step::Do(Update::say(
        TaskState::Completed,
        "Here are six files: markdown, JSON, CSV, PNG, PDF and a binary.",
    )));
    steps
}

fn artifact(name: &str, part: Value) -> Value {
    json!({"artifactId": format!("file-{name}"), "name": name, "parts": [part]})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_huge_text_is_exactly_its_length_and_ends_with_its_marker() {
        let text = huge_text();
        assert_eq!(text.chars().count(), HUGE_TEXT_CHARS);
        assert!(text.ends_with(HUGE_TEXT_END));
        assert!(text.starts_with("Line 000001 of a reply"));
    }

    #[test]
    fn the_png_and_pdf_are_well_formed() {
        let png = STANDARD.decode(PNG_BASE64).unwrap();
        assert!(png.starts_with(b"\x89PNG\r\n\x1a\n") && png.ends_with(b"IEND\xaeB`\x82"));
        let xref = PDF.find("xref\n").unwrap();
        assert!(PDF.contains(&format!("startxref\n{xref}\n")));
        for (n, offset) in [(1, 9), (2, 58), (3, 115), (4, 241), (5, 346)] {
            assert!(PDF[offset..].starts_with(&format!("{n} 0 obj")), "object {n}");
        }
    }
}
