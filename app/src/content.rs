//! Rich content: renders message and artifact parts by media type, deterministically and
//! inertly: no `inner_html`, no scripts, no remote fetches; only archived bytes are loaded.
//!
//! - [`classify`](classify()): which renderer a part gets, from its media type.
//! - [`PartView`] / [`PartsView`]: the components pages use.
//! - Renderers: `markdown`, `json`, `csv`, `media` (inline archived media and download cards).
//! - [`archive`]: the `/api/artifacts/<sha256>` URL convention; [`link`]: the URL allowlist.

pub mod archive;
pub mod classify;
pub mod csv;
pub mod json;
pub mod link;
pub mod long_text;
pub mod markdown;
pub mod media;
mod part_view;

#[cfg(all(test, feature = "ssr"))]
mod render_tests;

pub use archive::{ARCHIVE_URL_PREFIX, archive_url, archived_digest};
pub use classify::{ContentKind, classify, media_type_of};
pub use csv::{CsvTable, MAX_CSV_ROWS, parse_csv};
pub use json::{JsonTable, json_table};
pub use link::{safe_link, web_link};
pub use part_view::{MAX_TEXT_CHARS, PartView, PartsView, TEXT_CHUNK_CHARS};
