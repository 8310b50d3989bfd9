//! Test-only proptest strategies: arbitrary JSON values biased towards the member names the
//! A2A decoders look for, so that property tests reach deep into the decoders.

use proptest::prelude::*;
use serde_json::Value;

/// Arbitrary JSON whose object keys are mostly drawn from `keys`.
pub(crate) fn arb_json(keys: &'static [&'static str]) -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        (-40_000i64..40_000).prop_map(|n| Value::from(n as f64)),
        prop::sample::select(keys).prop_map(|k| Value::String(k.to_owned())),
        ".{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(5, 64, 8, move |inner| {
        let key = prop_oneof![3 => prop::sample::select(keys).prop_map(str::to_owned), 1 => "[a-zA-Z]{0,6}"];
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(key, inner, 0..8)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}
