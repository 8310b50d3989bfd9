//! What the viewer typed into obscured fields stays out of view (issue #26, "Secrets in forms"):
//! an action's context value that carries an obscured `TextField`'s value is sent to the agent
//! as typed, and shown as [`MASK`] wherever the console displays the exchange (the Wire panel).
//!
//! A context value carries a secret when it is a `{path}` binding at, above or below the pointer
//! an obscured field writes to. An obscured field whose binding is not an absolute pointer (one
//! inside a list template) could write anywhere: then every bound context value is masked.

use serde_json::Value;

use super::action::binding;
use super::model::{A2uiState, Component, Surface};
use super::pointer::parse_pointer;

/// What a secret value is shown as.
pub const MASK: &str = "••••••";

/// Where obscured fields write: `None` for one whose pointer is not known.
fn obscured_pointers(surface: &Surface) -> Vec<Option<Vec<String>>> {
    surface
        .components
        .values()
        .filter(|c| c.component == "TextField")
        .filter(|c| c.props.get("variant").and_then(Value::as_str) == Some("obscured"))
        .map(|c| {
            let value = c.props.get("value")?;
            binding(value).and_then(parse_pointer)
        })
        .collect()
}

/// The context keys of `component`'s action whose values come from an obscured `TextField` of
/// `surface`.
pub fn secret_context_keys(component: &Component, surface: &Surface) -> Vec<String> {
    let Some(context) = component
        .props
        .get("action")
        .and_then(|a| a.get("event"))
        .and_then(|e| e.get("context"))
        .and_then(Value::as_object)
    else {
        return Vec::new();
    };
    let obscured = obscured_pointers(surface);
    if obscured.is_empty() {
        return Vec::new();
    }
    context
        .iter()
        .filter(|(_, value)| {
            let Some(bound) = binding(value).and_then(parse_pointer) else {
                return false;
            };
            obscured.iter().any(|secret| match secret {
                Some(secret) => secret.starts_with(&bound) || bound.starts_with(secret),
                None => true,
            })
        })
        .map(|(key, _)| key.clone())
        .collect()
}

/// Masks, anywhere in `value` (a send's body, a stored A2A event), the context values of each
/// A2UI action (`{surfaceId, sourceComponentId, context}`) that carry an obscured field of the
/// surfaces in `state`. Returns how many values were masked.
pub fn mask_secret_action_values(value: &mut Value, state: &A2uiState) -> usize {
    match value {
        Value::Array(items) => items
            .iter_mut()
            .map(|v| mask_secret_action_values(v, state))
            .sum(),
        Value::Object(object) => {
            let source = (
                object.get("surfaceId").and_then(Value::as_str),
                object.get("sourceComponentId").and_then(Value::as_str),
            );
            let keys = match source {
                (Some(surface), Some(component)) => state
                    .surface(surface)
                    .and_then(|s| Some(secret_context_keys(s.components.get(component)?, s)))
                    .unwrap_or_default(),
                _ => Vec::new(),
            };
            let mut masked = 0;
            if let Some(Value::Object(context)) = object.get_mut("context") {
                for key in keys {
                    if let Some(v) = context.get_mut(&key) {
                        *v = Value::String(MASK.to_owned());
                        masked += 1;
                    }
                }
            }
            masked
                + object
                    .values_mut()
                    .map(|v| mask_secret_action_values(v, state))
                    .sum::<usize>()
        }
        _ => 0,
    }
}

/// An A2UI v0.9 sign-in surface `s` whose password field is obscured, as the messages an agent
/// sends; the tests of every place that masks use it.
#[cfg(test)]
pub fn sign_in_messages() -> Value {
    serde_json::json!([
        {"version": "v0.9", "createSurface": {"surfaceId": "s", "catalogId": super::A2UI_BASIC_CATALOG}},
        {"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": [
            {"id": "root", "component": "Column", "children": ["user", "pass", "go"]},
            {"id": "user", "component": "TextField", "label": "User", "value": {"path": "/user"}},
            {"id": "pass", "component": "TextField", "label": "Password", "variant": "obscured",
             "value": {"path": "/password"}},
            {"id": "go", "component": "Button", "child": "l", "action": {"event": {"name": "signIn",
             "context": {"user": {"path": "/user"}, "password": {"path": "/password"}}}}},
            {"id": "l", "component": "Text", "text": "Sign in"}
        ]}}
    ])
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::test_support::{components, create, data, fold};
    use super::*;

    /// A login form: a user name, an obscured password, and a button sending both, the whole
    /// form object and a literal.
    fn login() -> A2uiState {
        fold(vec![
            create("s"),
            components(
                "s",
                json!([
                    {"id": "root", "component": "Column", "children": ["user", "pass", "go"]},
                    {"id": "user", "component": "TextField", "label": "User", "value": {"path": "/login/user"}},
                    {"id": "pass", "component": "TextField", "label": "Password", "variant": "obscured",
                     "value": {"path": "/login/password"}},
                    {"id": "go", "component": "Button", "child": "l", "action": {"event": {"name": "signIn",
                     "context": {"user": {"path": "/login/user"}, "password": {"path": "/login/password"},
                                 "form": {"path": "/login"}, "mode": "fast"}}}},
                    {"id": "l", "component": "Text", "text": "Sign in"}
                ]),
            ),
            data("s", None, Some(json!({"login": {"user": "", "password": ""}}))),
        ])
    }

    #[test]
    fn the_obscured_value_and_what_contains_it_are_secret() {
        let state = login();
        let surface = state.surface("s").unwrap();
        let mut keys = secret_context_keys(&surface.components["go"], surface);
        keys.sort();
        assert_eq!(keys, ["form", "password"]);
    }

    #[test]
    fn an_obscured_field_without_a_known_pointer_masks_every_bound_value() {
        let state = fold(vec![
            create("s"),
            components(
                "s",
                json!([
                    {"id": "root", "component": "Column", "children": ["pass", "go"]},
                    {"id": "pass", "component": "TextField", "label": "P", "variant": "obscured",
                     "value": {"path": "secret"}},
                    {"id": "go", "component": "Button", "child": "l", "action": {"event": {"name": "x",
                     "context": {"a": {"path": "/elsewhere"}, "b": "literal"}}}},
                    {"id": "l", "component": "Text", "text": "Go"}
                ]),
            ),
        ]);
        let surface = state.surface("s").unwrap();
        assert_eq!(secret_context_keys(&surface.components["go"], surface), ["a"]);
    }

    #[test]
    fn masking_reaches_actions_anywhere_and_leaves_the_rest() {
        let state = login();
        let action = json!({"name": "signIn", "surfaceId": "s", "sourceComponentId": "go",
            "timestamp": "t", "context": {"user": "ada", "password": "hunter2",
            "form": {"user": "ada", "password": "hunter2"}, "mode": "fast"}});
        let mut sent =
            json!({"taskId": "t1", "parts": [{"data": {"version": "v0.9", "action": action.clone()}}]});
        assert_eq!(mask_secret_action_values(&mut sent, &state), 2);
        let context = &sent["parts"][0]["data"]["action"]["context"];
        assert_eq!(
            context,
            &json!({"user": "ada", "password": MASK, "form": MASK, "mode": "fast"})
        );
        assert!(!sent.to_string().contains("hunter2"));
        // Another surface or component: nothing known, nothing changed.
        let mut other = json!({"userAction": {"surfaceId": "t", "sourceComponentId": "go",
            "context": {"password": "x"}}});
        assert_eq!(mask_secret_action_values(&mut other, &state), 0);
    }
}
