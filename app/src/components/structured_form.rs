//! [`StructuredForm`]: a structured-form definition (`shared/spec/reference.md` §1.1) as a
//! keyboard-usable HTML form: labelled fields in display order, descriptions, inline errors with
//! the exact messages, validated and coerced in the browser by [`crate::ext::form`] before the
//! submission is handed on. Used for agent prompts in chat, start forms and approval edits.
//! Agent strings are text, never markup; `pattern` and other formats are never evaluated.

use leptos::prelude::*;
use serde_json::{Map, Value};

use crate::ext::canonical::js_number_string;
use crate::ext::form::{FieldError, FieldKind, FormDefinition, FormField, initial_values, validate_form};

/// The form; `on_submit` receives the validated submission (declared keys only, coerced).
/// `id_prefix` keeps element ids unique and stable between the server render and hydration.
#[component]
pub fn StructuredForm(
    form: FormDefinition,
    /// Values to start from (over the form's defaults).
    #[prop(optional)]
    initial: Map<String, Value>,
    /// The submit button's label; the form's own label when empty.
    #[prop(optional, into)]
    submit_label: String,
    #[prop(optional, into)] id_prefix: String,
    #[prop(optional, into)] disabled: Signal<bool>,
    /// The title's heading level: one below the section the form sits in (3 by default).
    #[prop(default = 3)]
    heading_level: u8,
    on_submit: Callback<Map<String, Value>>,
) -> impl IntoView {
    let mut start = initial_values(&form);
    start.extend(initial);
    let values = RwSignal::new(start);
    let errors = RwSignal::new(Vec::<FieldError>::new());
    let prefix = if id_prefix.is_empty() {
        "form".to_owned()
    } else {
        id_prefix
    };
    let label = if submit_label.is_empty() {
        form.submit_label.clone()
    } else {
        submit_label
    };
    let definition = StoredValue::new(form.clone());
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let result = definition.with_value(|form| values.with_untracked(|v| validate_form(form, v)));
        match result {
            Ok(submission) => {
                errors.set(Vec::new());
                on_submit.run(submission);
            }
            Err(found) => errors.set(found),
        }
    };
    let heading_id = format!("{prefix}-title");
    let labelled_by = heading_id.clone();
    view! {
        <form class="structured-form" data-testid="structured-form" aria-labelledby=labelled_by novalidate on:submit=submit>
            {crate::components::heading::heading(heading_level, "form-title", Some(heading_id), form.title.clone())}
            {form.description.clone().map(|d| view! { <p class="form-description">{d}</p> })}
            {form
                .fields
                .into_iter()
                .map(|field| view! { <Field field prefix=prefix.clone() values errors/> })
                .collect_view()}
            <button type="submit" class="button primary" disabled=move || disabled.get()>{label}</button>
        </form>
    }
}

/// The text a value shows in a text or number input.
fn input_text(value: Option<&Value>) -> String {
    match value {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.as_f64().map(js_number_string).unwrap_or_default(),
        _ => String::new(),
    }
}

/// One labelled field with its description and error.
#[component]
fn Field(
    field: FormField,
    prefix: String,
    values: RwSignal<Map<String, Value>>,
    errors: RwSignal<Vec<FieldError>>,
) -> impl IntoView {
    let id = format!("{prefix}-{}", field.key);
    let help_id = format!("{id}-help");
    let error_id = format!("{id}-error");
    let key = StoredValue::new(field.key.clone());
    let error = move || {
        key.with_value(|k| errors.with(|e| e.iter().find(|e| &e.key == k).map(|e| e.message.clone())))
    };
    let described = {
        let mut ids = Vec::new();
        if field.description.is_some() {
            ids.push(help_id.clone());
        }
        ids.push(error_id.clone());
        ids.join(" ")
    };
    let set = move |value: Value| {
        key.with_value(|k| {
            values.update(|v| {
                v.insert(k.clone(), value);
            })
        });
    };
    let current = move || key.with_value(|k| values.with(|v| v.get(k).cloned()));
    let invalid = move || error().is_some().then_some("true");
    let control = match field.kind.clone() {
        FieldKind::Boolean { .. } => view! {
            <input
                type="checkbox"
                id=id.clone()
                aria-describedby=described.clone()
                prop:checked=move || current() == Some(Value::Bool(true))
                on:change=move |ev| set(Value::Bool(event_target_checked(&ev)))
            />
        }
        .into_any(),
        FieldKind::Choice { options, .. } => view! {
            <select
                id=id.clone()
                aria-describedby=described.clone()
                aria-invalid=invalid
                aria-required=field.required.then_some("true")
                prop:value=move || input_text(current().as_ref())
                on:change=move |ev| set(Value::String(event_target_value(&ev)))
            >
                <option value="">"Choose…"</option>
                {options
                    .into_iter()
                    .map(|o| view! { <option value=o.value.clone()>{o.label}</option> })
                    .collect_view()}
            </select>
        }
        .into_any(),
        FieldKind::Number {
            integer,
            minimum,
            maximum,
            ..
        } => view! {
            <input
                type="number"
                id=id.clone()
                inputmode=if integer { "numeric" } else { "decimal" }
                step=if integer { "1" } else { "any" }
                min=minimum.map(js_number_string)
                max=maximum.map(js_number_string)
                aria-describedby=described.clone()
                aria-invalid=invalid
                aria-required=field.required.then_some("true")
                prop:value=move || input_text(current().as_ref())
                on:input=move |ev| set(Value::String(event_target_value(&ev)))
            />
        }
        .into_any(),
        FieldKind::Text {
            multiline: true,
            max_length,
            ..
        } => view! {
            <textarea
                id=id.clone()
                maxlength=max_length.map(|n| n.to_string())
                aria-describedby=described.clone()
                aria-invalid=invalid
                aria-required=field.required.then_some("true")
                prop:value=move || input_text(current().as_ref())
                on:input=move |ev| set(Value::String(event_target_value(&ev)))
            ></textarea>
        }
        .into_any(),
        FieldKind::Text { max_length, .. } => view! {
            <input
                type="text"
                id=id.clone()
                maxlength=max_length.map(|n| n.to_string())
                aria-describedby=described.clone()
                aria-invalid=invalid
                aria-required=field.required.then_some("true")
                prop:value=move || input_text(current().as_ref())
                on:input=move |ev| set(Value::String(event_target_value(&ev)))
            />
        }
        .into_any(),
    };
    let boolean = matches!(field.kind, FieldKind::Boolean { .. });
    view! {
        <div class="form-field" class:checkbox=boolean data-field=field.key.clone()>
            <label for=id>{field.label.clone()}{field.required.then_some(view! { <span class="required" aria-hidden="true">" *"</span> })}</label>
            {control}
            {field.description.clone().map(|d| view! { <p class="field-help" id=help_id>{d}</p> })}
            <p class="field-error" id=error_id role="alert">{error}</p>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn inputs_show_numbers_as_javascript_prints_them() {
        assert_eq!(input_text(Some(&json!(3))), "3");
        assert_eq!(input_text(Some(&json!(2.5))), "2.5");
        assert_eq!(input_text(Some(&json!("x"))), "x");
        assert_eq!(input_text(None), "");
        assert_eq!(input_text(Some(&json!(true))), "");
    }

    // Rendering to HTML needs the `ssr` feature (tachys renders attributes only there).
    #[cfg(feature = "ssr")]
    #[test]
    fn agent_strings_render_as_text() {
        let form = crate::ext::form::parse_form(&json!({
            "title": "<script>alert(1)</script>",
            "schema": {"type": "object", "properties": {"name": {"type": "string", "title": "<b>Name</b>"}}}
        }))
        .expect("valid form");
        let owner = Owner::new();
        let html = owner.with(|| view! { <StructuredForm form on_submit=Callback::new(|_| {})/> }.to_html());
        assert!(!html.contains("<script>"), "{html}");
        assert!(html.contains("&lt;script&gt;"), "{html}");
        assert!(html.contains("&lt;b&gt;Name&lt;/b&gt;"), "{html}");
    }
}
