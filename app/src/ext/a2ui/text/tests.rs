//! Tests for the JavaScript-semantics string measures used by every A2UI limit.

use serde_json::json;

use super::*;

#[test]
fn utf16_length_counts_surrogate_pairs_as_two() {
    assert_eq!(utf16_len("abc"), 3);
    assert_eq!(utf16_len("é"), 1);
    assert_eq!(utf16_len("😀"), 2);
}

#[test]
fn ids_are_1_to_max_units() {
    assert!(!is_id("", 3));
    assert!(is_id("abc", 3));
    assert!(!is_id("abcd", 3));
    assert!(!is_id("a😀b", 3));
}

#[test]
fn truncation_keeps_whole_code_points() {
    assert_eq!(truncate_utf16("abcdef", 3), "abc");
    assert_eq!(truncate_utf16("ab😀", 3), "ab");
    assert_eq!(truncate_utf16("ab😀", 4), "ab😀");
    assert_eq!(truncate_utf16("", 0), "");
}

#[test]
fn json_length_is_compact_stringify_in_utf16_units() {
    assert_eq!(
        json_len(&json!({"a": [1, true, null]})),
        r#"{"a":[1,true,null]}"#.len()
    );
    assert_eq!(json_len(&json!("é😀")), 2 + 1 + 2);
    assert_eq!(json_len(&json!("\n\"")), 6);
    assert_eq!(json_len(&json!("\u{1}")), 8);
}

#[test]
fn numbers_print_like_javascript_string() {
    assert_eq!(scalar_text(&json!(2.0)).unwrap(), "2");
    assert_eq!(scalar_text(&json!(2.5)).unwrap(), "2.5");
    assert_eq!(scalar_text(&json!(-7)).unwrap(), "-7");
    assert_eq!(scalar_text(&json!(true)).unwrap(), "true");
    assert_eq!(scalar_text(&json!(null)), None);
    assert_eq!(scalar_text(&json!([1])), None);
}
