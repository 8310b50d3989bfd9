//! Tests for `sideband/parts.rs`: §1.0 part normalisation and the §3.3 item → parts rules.

use serde_json::{Value, json};

use super::*;

fn norm(part: Value) -> SidebandPart {
    normalize_part(&part, "e:0".into())
}

fn kind_value_media(part: &SidebandPart) -> (PartKind, Value, &str) {
    (part.kind, part.value.clone(), part.media_type.as_str())
}

// §1.0 kind

#[test]
fn text_part_when_text_is_a_string() {
    assert_eq!(
        kind_value_media(&norm(json!({"text": "hi"}))),
        (PartKind::Text, json!("hi"), "text/plain")
    );
}

#[test]
fn text_part_when_kind_is_text_0_3() {
    assert_eq!(
        kind_value_media(&norm(json!({"kind": "text", "text": "hi"}))),
        (PartKind::Text, json!("hi"), "text/plain")
    );
    assert_eq!(norm(json!({"kind": "text"})).value, json!(""));
    assert_eq!(
        norm(json!({"kind": "text", "text": 12})).value,
        json!("12"),
        "JS String()"
    );
}

#[test]
fn data_part_when_data_key_exists_or_kind_is_data() {
    assert_eq!(
        kind_value_media(&norm(json!({"data": [1]}))),
        (PartKind::Data, json!([1]), "application/json")
    );
    assert_eq!(
        kind_value_media(&norm(json!({"data": null}))),
        (PartKind::Data, Value::Null, "application/json")
    );
    assert_eq!(norm(json!({"kind": "data"})).kind, PartKind::Data);
}

#[test]
fn text_wins_over_data() {
    assert_eq!(norm(json!({"text": "t", "data": 1})).kind, PartKind::Text);
}

#[test]
fn url_then_raw_then_file_uri_then_file_bytes() {
    let url = norm(json!({"url": "https://x.example/a", "raw": "QQ=="}));
    assert_eq!(
        kind_value_media(&url),
        (
            PartKind::Url,
            json!("https://x.example/a"),
            "application/octet-stream"
        )
    );
    assert_eq!(kind_value_media(&norm(json!({"raw": "QQ=="}))).0, PartKind::Raw);
    let file_uri = norm(json!({"kind": "file", "file": {"uri": "https://x.example/f", "bytes": "QQ=="}}));
    assert_eq!(
        (file_uri.kind, file_uri.value),
        (PartKind::Url, json!("https://x.example/f"))
    );
    let file_bytes = norm(json!({"file": {"bytes": "QQ==", "mimeType": "Image/PNG", "name": "a.png"}}));
    assert_eq!(
        kind_value_media(&file_bytes),
        (PartKind::Raw, json!("QQ=="), "image/png")
    );
    assert_eq!(file_bytes.filename.as_deref(), Some("a.png"));
}

#[test]
fn unknown_part_keeps_the_whole_value() {
    let part = json!({"url": 5, "file": {"uri": 1}});
    assert_eq!(
        kind_value_media(&norm(part.clone())),
        (PartKind::Unknown, part, "application/octet-stream")
    );
    assert_eq!(
        kind_value_media(&norm(json!("bare"))),
        (PartKind::Unknown, json!("bare"), "application/octet-stream")
    );
}

// §1.0 media type

#[test]
fn media_type_from_media_type_else_mime_type_else_file_mime_type_lower_cased() {
    assert_eq!(
        norm(json!({"text": "", "mediaType": "Text/Markdown", "mimeType": "x/y"})).media_type,
        "text/markdown"
    );
    assert_eq!(
        norm(json!({"text": "", "mimeType": "TEXT/CSV"})).media_type,
        "text/csv"
    );
    assert_eq!(
        norm(json!({"text": "", "file": {"mimeType": "A/B"}})).media_type,
        "a/b"
    );
    assert_eq!(
        norm(json!({"text": "", "mediaType": null, "mimeType": "x/y"})).media_type,
        "x/y"
    );
}

#[test]
fn empty_media_type_falls_back_to_the_kind_default() {
    assert_eq!(
        norm(json!({"text": "", "mediaType": ""})).media_type,
        "text/plain"
    );
    assert_eq!(
        norm(json!({"data": {}, "mediaType": "", "mimeType": "x/y"})).media_type,
        "application/json"
    );
}

#[test]
fn a2ui_media_type_normalised() {
    let part = norm(json!({"data": [], "mediaType": "Application/A2UI+JSON"}));
    assert_eq!(part.media_type, crate::ext::uri::A2UI_MEDIA_TYPE);
}

#[test]
fn filename_and_metadata_kept() {
    let part = norm(json!({"raw": "QQ==", "filename": "r.bin", "metadata": {"k": 1}}));
    assert_eq!(part.filename.as_deref(), Some("r.bin"));
    assert_eq!(part.metadata.map(Value::Object), Some(json!({"k": 1})));
    let bare = norm(json!({"raw": "QQ==", "filename": "", "metadata": "no"}));
    assert_eq!((bare.filename, bare.metadata), (None, None));
}

#[test]
fn part_ids_are_event_id_and_index() {
    assert_eq!(part_id("ev", 3), "ev:3");
    let parts = normalize_parts(&[json!({"text": "a", "id": "own"}), json!({"data": 1})], "ev");
    let ids: Vec<&str> = parts.iter().map(|p| p.id.as_str()).collect();
    assert_eq!(ids, vec!["ev:0", "ev:1"]);
}

// §3.3 item → parts

fn item(value: Value) -> Vec<SidebandPart> {
    event_parts(&value, "x")
}

#[test]
fn string_item_is_one_text_plain_part() {
    assert_eq!(
        kind_value_media(&item(json!("hello"))[0]),
        (PartKind::Text, json!("hello"), "text/plain")
    );
}

#[test]
fn non_object_item_is_one_json_data_part() {
    for value in [json!(1), json!(true), Value::Null, json!([1, "a"])] {
        let parts = item(value.clone());
        assert_eq!(parts.len(), 1);
        assert_eq!(
            kind_value_media(&parts[0]),
            (PartKind::Data, value, "application/json")
        );
    }
}

#[test]
fn object_with_parts_array_uses_those_parts() {
    let parts = item(json!({"parts": [{"text": "a"}, {"data": 2}], "text": "ignored"}));
    assert_eq!(parts.len(), 2);
    assert_eq!(parts[1].value, json!(2));
    assert!(item(json!({"parts": []})).is_empty());
}

#[test]
fn markdown_string_is_one_text_markdown_part() {
    let parts = item(json!({"markdown": "**b**", "text": "ignored"}));
    assert_eq!(
        kind_value_media(&parts[0]),
        (PartKind::Text, json!("**b**"), "text/markdown")
    );
}

#[test]
fn first_non_blank_text_message_content_description() {
    assert_eq!(
        item(json!({"text": " ", "message": "m", "content": "c"}))[0].value,
        json!("m")
    );
    assert_eq!(
        item(json!({"content": "c", "description": "d"}))[0].value,
        json!("c")
    );
    assert_eq!(item(json!({"description": "d"}))[0].value, json!("d"));
}

#[test]
fn text_media_type_from_media_type_or_mime_type_else_text_plain() {
    assert_eq!(
        item(json!({"text": "t", "mediaType": "Text/CSV"}))[0].media_type,
        "text/csv"
    );
    assert_eq!(
        item(json!({"text": "t", "mimeType": "text/html"}))[0].media_type,
        "text/html"
    );
    assert_eq!(
        item(json!({"text": "t", "mediaType": " "}))[0].media_type,
        "text/plain"
    );
}

#[test]
fn data_key_is_one_data_part() {
    let parts = item(json!({"data": {"p50": 41}, "mimeType": "application/vnd.x+json"}));
    assert_eq!(
        kind_value_media(&parts[0]),
        (PartKind::Data, json!({"p50": 41}), "application/vnd.x+json")
    );
    assert_eq!(item(json!({"data": 1}))[0].media_type, "application/json");
}

#[test]
fn anything_else_is_the_whole_object_as_json_data() {
    let value = json!({"id": "x", "level": "info"});
    assert_eq!(
        kind_value_media(&item(value.clone())[0]),
        (PartKind::Data, value, "application/json")
    );
}

#[test]
fn part_serialises_to_the_3_5_shape() {
    let part = norm(json!({"raw": "QQ==", "filename": "f", "metadata": {}}));
    assert_eq!(
        serde_json::to_value(&part).unwrap(),
        json!({"id": "e:0", "kind": "raw", "value": "QQ==", "mediaType": "application/octet-stream",
               "filename": "f", "metadata": {}})
    );
    let bare = serde_json::to_value(norm(json!({"text": "t"}))).unwrap();
    assert_eq!(
        bare,
        json!({"id": "e:0", "kind": "text", "value": "t", "mediaType": "text/plain"})
    );
}

#[test]
fn media_type_constants() {
    assert_eq!(
        [OCTET_STREAM, TEXT_PLAIN, APPLICATION_JSON, TEXT_MARKDOWN],
        [
            "application/octet-stream",
            "text/plain",
            "application/json",
            "text/markdown"
        ]
    );
}
