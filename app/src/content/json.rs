//! JSON parts (`application/json`, `*+json`, data parts): a non-empty array of objects is a
//! table, anything else a collapsible tree; a toggle shows the pretty-printed text instead.
//!
//! Keys and strings are only ever text nodes, so keys like `__proto__` are inert.

use leptos::prelude::*;
use serde_json::{Map, Value};

use super::csv::TableView;

/// Table rows shown at most; the rest are counted out in a note.
const MAX_TABLE_ROWS: usize = 1000;
/// Children of one object or array shown in the tree; the rest are counted out.
const MAX_TREE_CHILDREN: usize = 500;
/// Tree levels open on first render; deeper levels start collapsed.
const OPEN_DEPTH: usize = 2;
/// Tree depth rendered as nodes; deeper values are shown as compact JSON text.
const MAX_TREE_DEPTH: usize = 32;

/// A JSON array of objects as columns and text cells.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JsonTable {
    /// The union of the objects' keys, in first-seen order.
    pub columns: Vec<String>,
    /// One row per object; a missing key is an empty cell.
    pub rows: Vec<Vec<String>>,
}

/// The table of `value` if it is a non-empty array of objects (JSON rule), else `None`.
pub fn json_table(value: &Value) -> Option<JsonTable> {
    let items = value.as_array().filter(|a| !a.is_empty())?;
    let objects: Vec<&Map<String, Value>> = items.iter().map(Value::as_object).collect::<Option<_>>()?;
    let mut columns: Vec<String> = Vec::new();
    for object in &objects {
        for key in object.keys() {
            if !columns.contains(key) {
                columns.push(key.clone());
            }
        }
    }
    let rows = objects
        .iter()
        .map(|object| {
            columns
                .iter()
                .map(|c| object.get(c).map(cell_text).unwrap_or_default())
                .collect()
        })
        .collect();
    Some(JsonTable { columns, rows })
}

/// A string cell is its value; anything else is compact JSON.
fn cell_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A JSON value as a table or tree, with a Raw toggle to pretty-printed text: JSON and data
/// parts, and pages that show one outside a message part.
#[component]
pub fn JsonView(value: Value) -> impl IntoView {
    let raw = RwSignal::new(false);
    let pretty = serde_json::to_string_pretty(&value).unwrap_or_default();
    let body = match json_table(&value) {
        Some(table) => view! { <JsonTableView table=table/> }.into_any(),
        None => view! { <ul class="content-json-tree">{json_node(None, &value, 0)}</ul> }.into_any(),
    };
    view! {
        <div class="content-json">
            <button
                type="button"
                class="content-toggle"
                aria-pressed=move || raw.get().to_string()
                on:click=move |_| raw.update(|r| *r = !*r)
            >
                "Raw JSON"
            </button>
            <div hidden=move || raw.get()>{body}</div>
            {move || raw.get().then(|| view! { <pre class="content-code">{pretty.clone()}</pre> })}
        </div>
    }
}

#[component]
fn JsonTableView(table: JsonTable) -> impl IntoView {
    let JsonTable { columns, mut rows } = table;
    let hidden = rows.len().saturating_sub(MAX_TABLE_ROWS);
    rows.truncate(MAX_TABLE_ROWS);
    view! {
        <TableView header=columns rows=rows/>
        {(hidden > 0).then(|| view! {
            <p class="content-note">{format!("Showing first {MAX_TABLE_ROWS} rows; {hidden} more not shown.")}</p>
        })}
    }
}

/// One tree entry: a scalar on one line, or a `<details>` whose children are nested entries.
fn json_node(key: Option<String>, value: &Value, depth: usize) -> AnyView {
    let key_view = key.map(|k| view! { <span class="content-json-key">{k}</span>": " });
    let children: Vec<(String, &Value)> = match value {
        Value::Object(map) => map.iter().map(|(k, v)| (k.clone(), v)).collect(),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, v)| (i.to_string(), v))
            .collect(),
        scalar => {
            let class = format!("content-json-{}", type_name(scalar));
            return view! { <li>{key_view}<span class=class>{scalar.to_string()}</span></li> }.into_any();
        }
    };
    if depth >= MAX_TREE_DEPTH {
        return view! { <li>{key_view}<code>{value.to_string()}</code></li> }.into_any();
    }
    let summary = match value {
        Value::Array(_) => format!("[{}]", children.len()),
        _ => format!("{{{}}}", children.len()),
    };
    let more = children.len().saturating_sub(MAX_TREE_CHILDREN);
    let nodes: Vec<AnyView> = children
        .into_iter()
        .take(MAX_TREE_CHILDREN)
        .map(|(k, v)| json_node(Some(k), v, depth + 1))
        .collect();
    view! {
        <li>
            <details open={depth < OPEN_DEPTH}>
                <summary>{key_view}<span class="content-json-count">{summary}</span></summary>
                <ul class="content-json-tree">
                    {nodes}
                    {(more > 0).then(|| view! { <li class="content-note">{format!("… {more} more")}</li> })}
                </ul>
            </details>
        </li>
    }
    .into_any()
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn json_rule_array_of_objects_is_a_table_with_the_union_of_keys() {
        let table = json_table(&json!([
            {"b": 1, "a": "x"},
            {"c": null, "a": {"n": [1, 2]}},
        ]))
        .expect("table");
        // Columns in first-seen key order, as the agent wrote them.
        assert_eq!(table.columns, strings(&["b", "a", "c"]));
        assert_eq!(
            table.rows,
            vec![strings(&["1", "x", ""]), strings(&["", "{\"n\":[1,2]}", "null"])]
        );
    }

    #[test]
    fn json_rule_cells_are_string_values_or_compact_json() {
        let table = json_table(&json!([{"s": "a \"q\"", "t": true, "f": 1.5, "l": ["x"]}])).expect("table");
        assert_eq!(table.columns, strings(&["s", "t", "f", "l"]));
        assert_eq!(table.rows, vec![strings(&["a \"q\"", "true", "1.5", "[\"x\"]"])]);
    }

    #[test]
    fn json_rule_anything_else_is_a_tree() {
        for value in [
            json!([]),
            json!([{"a": 1}, 2]),
            json!([1, 2]),
            json!({"a": [{"b": 1}]}),
            json!("text"),
            json!(null),
            json!([[{"a": 1}]]),
        ] {
            assert_eq!(json_table(&value), None, "{value}");
        }
    }

    #[test]
    fn json_rule_empty_objects_make_a_table_without_columns() {
        let table = json_table(&json!([{}, {}])).expect("table");
        assert!(table.columns.is_empty());
        assert_eq!(table.rows.len(), 2);
    }

    #[test]
    fn json_rule_proto_keys_are_plain_columns() {
        let table = json_table(&json!([{"__proto__": {"admin": true}, "constructor": "x"}])).expect("table");
        assert_eq!(table.columns, strings(&["__proto__", "constructor"]));
        assert_eq!(table.rows, vec![strings(&["{\"admin\":true}", "x"])]);
    }
}
