//! Property tests for the A2UI module: arbitrary and hostile envelopes never panic, renders
//! terminate on any component graph, strings stay plain text and no non-inline media URL ever
//! reaches the render model.

use std::collections::BTreeMap;

use proptest::prelude::*;
use serde_json::{Map, Value, json};

use super::test_support::{components, create, data, fold};
use super::*;

const HOSTILE: [&str; 8] = [
    "<script>alert(1)</script>",
    "javascript:alert(1)",
    "https://evil.example/x.png",
    "__proto__",
    "constructor",
    "/__proto__/x",
    "data:text/html,<script>alert(1)</script>",
    "\u{202e}\u{0000}~1~0~",
];

const KEYS: [&str; 24] = [
    "version",
    "createSurface",
    "updateComponents",
    "updateDataModel",
    "deleteSurface",
    "surfaceId",
    "catalogId",
    "components",
    "id",
    "component",
    "path",
    "value",
    "children",
    "child",
    "action",
    "event",
    "name",
    "context",
    "surfaceUpdate",
    "dataModelUpdate",
    "beginRendering",
    "root",
    "contents",
    "key",
];

fn arb_string() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z/~0-9]{0,12}",
        prop::sample::select(HOSTILE.to_vec()).prop_map(str::to_string),
        prop::sample::select(vec![
            "v0.9", "/", "", "root", "s", "Text", "Row", "Button", "Image"
        ])
        .prop_map(str::to_string),
    ]
}

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| json!(f)),
        arb_string().prop_map(Value::String),
    ];
    leaf.prop_recursive(6, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((prop::sample::select(KEYS.to_vec()), inner), 0..6).prop_map(|pairs| {
                Value::Object(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
            }),
        ]
    })
}

/// A component graph over ids `root`, `c0`..`c5` with random children (cycles included).
fn arb_component() -> impl Strategy<Value = Value> {
    let id = prop::sample::select(vec!["root", "c0", "c1", "c2", "c3", "c4", "c5"]);
    let name = prop::sample::select(vec![
        "Row",
        "Column",
        "List",
        "Card",
        "Tabs",
        "Button",
        "Text",
        "TextField",
        "CheckBox",
        "ChoicePicker",
        "Slider",
        "DateTimeInput",
        "Image",
        "Video",
        "AudioPlayer",
        "Divider",
        "Modal",
    ]);
    let refs = prop::collection::vec(
        prop::sample::select(vec!["root", "c0", "c1", "c2", "c3", "c4", "c5"]),
        0..4,
    );
    (id, name, refs.clone(), arb_json(), arb_json()).prop_map(|(id, name, refs, value, extra)| {
        let tabs: Vec<Value> = refs.iter().map(|r| json!({"title": r, "child": r})).collect();
        json!({"id": id, "component": name, "children": refs, "child": refs.first(), "tabs": tabs,
               "value": value, "text": extra.clone(), "url": extra, "action": {"event": {"name": "go"}}})
    })
}

/// Every value of a `url` key anywhere in `node`.
fn all_urls(node: &Value, out: &mut Vec<Value>) {
    match node {
        Value::Array(items) => items.iter().for_each(|i| all_urls(i, out)),
        Value::Object(map) => {
            out.extend(map.get("url").cloned());
            map.values().for_each(|v| all_urls(v, out));
        }
        _ => {}
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn arbitrary_parts_never_panic(data_value in arb_json(), media in prop::option::of(arb_string())) {
        let version = is_a2ui_part(media.as_deref(), Some("application/a2ui+json"), &data_value);
        let mut state = A2uiState::default();
        for v in [A2uiVersion::V09, A2uiVersion::V08] {
            state.apply_part(v, &data_value);
        }
        if let Some(v) = version {
            state.apply_part(v, &data_value);
        }
        for surface in &state.surfaces {
            let _ = surface.render();
        }
        prop_assert!(state.surfaces.len() <= MAX_SURFACES);
    }

    #[test]
    fn arbitrary_envelope_bodies_never_panic(kind in prop::sample::select(KEYS.to_vec()), body in arb_json()) {
        let mut state = fold(vec![create("s")]);
        state.apply_part(A2uiVersion::V09, &json!([{ "version": "v0.9", kind: body.clone() }]));
        state.apply_part(A2uiVersion::V08, &json!({ kind: body }));
        prop_assert!(state.rejected <= 2);
    }

    #[test]
    fn random_component_graphs_render_and_terminate(list in prop::collection::vec(arb_component(), 1..12),
                                                    model in arb_json(), finished in any::<bool>()) {
        let mut state = fold(vec![create("s"), components("s", Value::Array(list))]);
        if model.is_object() {
            state.apply_part(A2uiVersion::V09, &json!([data("s", None, Some(model))]));
        }
        if let Some(surface) = state.surfaces.first() {
            let mut edits = BTreeMap::new();
            set_edit(&mut edits, "/x", json!("<script>"));
            let node = surface.render_with(&edits, finished);
            let mut urls = Vec::new();
            all_urls(&serde_json::to_value(&node).unwrap(), &mut urls);
            for url in urls {
                let url = url.as_str().unwrap_or_default().to_ascii_lowercase();
                prop_assert!(url.starts_with("data:"), "non-inline URL in the render model: {url}");
            }
        }
    }

    #[test]
    fn hostile_text_stays_plain(text in prop::sample::select(HOSTILE.to_vec()), suffix in "[<>&\"' a-z]{0,20}") {
        let input = format!("{text}{suffix}");
        let state = fold(vec![create("s"), components("s", json!([{"id": "root", "component": "Text", "text": input}]))]);
        let node = state.surfaces[0].render();
        prop_assert_eq!(node, RenderNode::Text { id: "root".into(), text: input, variant: TextVariant::Body });
    }

    #[test]
    fn media_urls_other_than_inline_data_never_render(scheme in prop::sample::select(vec!["javascript:", "https:", "http:", "JaVaScRiPt:", " data:", "blob:", "file:"]),
                                                      rest in "[a-z/:.,;=()0-9]{0,20}",
                                                      kind in prop::sample::select(vec!["Image", "Video", "AudioPlayer"])) {
        let url = format!("{scheme}{rest}");
        let state = fold(vec![create("s"), components("s", json!([{"id": "root", "component": kind, "url": url}]))]);
        let text = serde_json::to_string(&state.surfaces[0].render()).unwrap();
        prop_assert!(!text.contains(&url) || url.is_empty());
        prop_assert!(text.contains("mediaNotInline"));
    }

    #[test]
    fn resolve_and_pointers_never_panic(value in arb_json(), model in arb_json(), pointer in arb_string()) {
        let mut edits = BTreeMap::new();
        set_edit(&mut edits, &pointer, value.clone());
        let _ = resolve(&value, &model, &edits);
        let _ = resolve(&json!({"path": pointer}), &model, &edits);
        if let Some(segments) = parse_pointer(&pointer) {
            prop_assert!(segments.iter().all(|s| !FORBIDDEN_SEGMENTS.contains(&s.as_str())));
        }
    }
}

#[test]
fn deeply_nested_values_are_handled() {
    let mut deep = json!("leaf");
    for _ in 0..100 {
        deep = json!({"path": [deep]});
    }
    let state = fold(vec![
        create("s"),
        data("s", Some("/deep"), Some(deep.clone())),
        components("s", json!([{"id": "root", "component": "Text", "text": deep}])),
    ]);
    assert_eq!(state.rejected, 0);
    assert!(matches!(state.surfaces[0].render(), RenderNode::Text { ref text, .. } if text.is_empty()));
}

#[test]
fn huge_strings_are_handled() {
    let huge = "<".repeat(1_000_000);
    let state = fold(vec![
        create("s"),
        components("s", json!([{"id": "root", "component": "Text", "text": huge}])),
        data("s", Some("/h"), Some(json!(huge))),
    ]);
    assert_eq!(state.rejected, 1, "the model update is over 64 KiB");
    let RenderNode::Text { text, .. } = state.surfaces[0].render() else {
        panic!()
    };
    assert_eq!(text.len(), MAX_TEXT_CHARS);
}

#[test]
fn proto_keys_in_values_stay_plain_data() {
    let model: Map<String, Value> = [("__proto__".to_string(), json!({"polluted": true}))]
        .into_iter()
        .collect();
    let state = fold(vec![create("s"), data("s", None, Some(Value::Object(model)))]);
    assert_eq!(state.rejected, 0);
    assert_eq!(
        resolve(
            &json!({"path": "/__proto__/polluted"}),
            &state.surfaces[0].model,
            &BTreeMap::new()
        ),
        None
    );
}
