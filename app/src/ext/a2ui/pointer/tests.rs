//! Tests for JSON Pointer parsing and writes (§1.4 `updateDataModel`).

use serde_json::json;

use super::*;

fn segs(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

#[test]
fn empty_and_slash_are_root() {
    assert_eq!(parse_pointer(""), Some(vec![]));
    assert_eq!(parse_pointer("/"), Some(vec![]));
}

#[test]
fn pointer_must_be_absolute() {
    assert_eq!(parse_pointer("a"), None);
    assert_eq!(parse_pointer("./a"), None);
}

#[test]
fn pointer_of_512_chars_is_the_limit() {
    assert!(parse_pointer(&format!("/{}", "a".repeat(511))).is_some());
    assert!(parse_pointer(&format!("/{}", "a".repeat(512))).is_none());
}

#[test]
fn tilde_one_then_tilde_zero_unescape() {
    assert_eq!(parse_pointer("/a~1b/~0/~01"), Some(segs(&["a/b", "~", "~1"])));
}

#[test]
fn stray_tilde_is_not_rfc_6901() {
    assert_eq!(parse_pointer("/a~2"), None);
    assert_eq!(parse_pointer("/a~"), None);
}

#[test]
fn forbidden_segments_are_invalid_even_when_escaped_into_shape() {
    for segment in FORBIDDEN_SEGMENTS {
        assert_eq!(parse_pointer(&format!("/x/{segment}")), None);
    }
    assert!(parse_pointer("/__proto__x").is_some());
    assert!(parse_pointer("/Prototype").is_some());
}

#[test]
fn trailing_slash_is_an_empty_key() {
    assert_eq!(parse_pointer("/a/"), Some(segs(&["a", ""])));
}

#[test]
fn array_indices_are_canonical_decimal() {
    assert_eq!(array_index("0"), Some(0));
    assert_eq!(array_index("12"), Some(12));
    assert_eq!(array_index("01"), None);
    assert_eq!(array_index("-"), None);
    assert_eq!(array_index("+1"), None);
    assert_eq!(array_index(""), None);
    assert_eq!(array_index("99999999999999999999999"), None);
}

#[test]
fn get_walks_objects_and_arrays() {
    let model = json!({"a": [{"b": 1}]});
    assert_eq!(get(&model, &segs(&["a", "0", "b"])), Some(&json!(1)));
    assert_eq!(get(&model, &segs(&["a", "1"])), None);
    assert_eq!(get(&model, &segs(&["a", "0", "b", "c"])), None);
    assert_eq!(get(&model, &[]), Some(&model));
}

#[test]
fn write_past_array_end_pads_with_null() {
    let mut model = json!({"a": [1]});
    write(&mut model, &segs(&["a", "3"]), Some(json!(4))).unwrap();
    assert_eq!(model, json!({"a": [1, null, null, 4]}));
}

#[test]
fn write_far_past_array_end_is_a_conflict() {
    let mut model = json!({"a": []});
    assert_eq!(
        write(&mut model, &segs(&["a", "1000000"]), Some(json!(1))),
        Err(Conflict)
    );
    assert_eq!(model, json!({"a": []}));
}

#[test]
fn delete_removes_array_element() {
    let mut model = json!({"a": [1, 2, 3]});
    write(&mut model, &segs(&["a", "1"]), None).unwrap();
    assert_eq!(model, json!({"a": [1, 3]}));
}

#[test]
fn delete_under_missing_intermediate_is_a_no_op() {
    let mut model = json!({"a": 1});
    write(&mut model, &segs(&["x", "y"]), None).unwrap();
    assert_eq!(model, json!({"a": 1}));
}

#[test]
fn delete_under_scalar_is_a_conflict() {
    let mut model = json!({"a": 1});
    assert_eq!(write(&mut model, &segs(&["a", "y"]), None), Err(Conflict));
}

#[test]
fn write_to_root_segments_is_a_conflict() {
    let mut model = json!({});
    assert_eq!(write(&mut model, &[], Some(json!(1))), Err(Conflict));
}
