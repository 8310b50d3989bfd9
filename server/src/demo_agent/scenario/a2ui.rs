//! The A2UI "deploy" surface (`reference.md` §1.4, product.md §6) in v0.9 and in v0.8
//! (`a2a-and-a2ui.md` §B.3), and its action reply. The surface deliberately carries hostile
//! content the console must neutralise.

use app::a2a::TaskState;
use serde_json::{Value, json};

use crate::demo_agent::extension::{
    A2UI_BASIC_CATALOG, A2UI_LEGACY_MEDIA_TYPE, A2UI_MEDIA_TYPE, A2UI_V08_CATALOG,
};
use crate::demo_agent::wire::{Update, data_part, text_part};

/// The surface id.
const SURFACE: &str = "deploy";

/// The A2UI envelopes (a v0.9 list) of the deploy surface.
pub(crate) fn surface() -> Value {
    let text = |id: &str, text: Value| json!({"id": id, "component": "Text", "text": text});
    json!([
        {"version": "v0.9", "createSurface": {"surfaceId": SURFACE, "catalogId": A2UI_BASIC_CATALOG}},
        {"version": "v0.9", "updateComponents": {"surfaceId": SURFACE, "components": [
            {"id": "root", "component": "Card", "child": "body"},
            {"id": "body", "component": "Column", "children": [
                "title", "service", "caption", "reason", "env", "notify", "divider", "confirm", "phish", "image"
            ]},
            {"id": "title", "component": "Text", "text": "Confirm deployment", "variant": "h3"},
            text("service", json!({"path": "/service"})),
            {"id": "caption", "component": "Text", "variant": "caption",
             "text": "<b>Release notes</b><img src=x onerror=alert(document.cookie)>"},
            {"id": "reason", "component": "TextField", "label": "Reason", "value": {"path": "/reason"}},
            {"id": "env", "component": "ChoicePicker", "label": "Environment", "value": {"path": "/env"},
             "options": [{"value": "staging", "label": "Staging"}, {"value": "production", "label": "Production"}]},
            {"id": "notify", "component": "CheckBox", "label": "Notify the team", "value": {"path": "/notify"}},
            {"id": "divider", "component": "Divider"},
            text("confirm-label", json!("Confirm")),
            {"id": "confirm", "component": "Button", "child": "confirm-label", "variant": "primary",
             "action": {"event": {"name": "confirm_deploy", "context": {
                 "service": {"path": "/service"}, "reason": {"path": "/reason"},
                 "env": {"path": "/env"}, "notify": {"path": "/notify"}}}}},
            text("phish-label", json!("Verify your account")),
            {"id": "phish", "component": "Button", "child": "phish-label",
             "action": {"functionCall": {"call": "openUrl",
                                         "args": {"url": "https://login.example-phish.test/verify"}}}},
            {"id": "image", "component": "Image", "url": "https://tracker.example.test/pixel.png",
             "description": "Deployment diagram"},
        ]}},
        {"version": "v0.9", "updateDataModel": {"surfaceId": SURFACE, "path": "/",
            "value": {"service": "billing-api", "env": ["staging"], "notify": false}}},
    ])
}

/// The same surface as v0.8 messages (one object each; rendering starts at `beginRendering`).
pub(crate) fn surface_v08() -> Value {
    let text = |id: &str, text: Value| json!({"id": id, "component": {"Text": {"text": text}}});
    let literal = |s: &str| json!({"literalString": s});
    json!([
        {"surfaceUpdate": {"surfaceId": SURFACE, "components": [
            {"id": "root", "component": {"Card": {"child": "body"}}},
            {"id": "body", "component": {"Column": {"children": {"explicitList": [
                "title", "service", "caption", "reason", "env", "notify", "confirm"
            ]}}}},
            {"id": "title", "component": {"Text": {"text": literal("Confirm deployment (v0.8)"), "usageHint": "h3"}}},
            text("service", json!({"path": "/service"})),
            {"id": "caption", "component": {"Text": {"usageHint": "caption",
             "text": literal("<b>Release notes</b><img src=x onerror=alert(document.cookie)>")}}},
            {"id": "reason", "component": {"TextField": {"label": literal("Reason"), "text": {"path": "/reason"}}}},
            {"id": "env", "component": {"MultipleChoice": {"selections": {"path": "/env"}, "maxAllowedSelections": 1,
             "options": [{"label": literal("Staging"), "value": "staging"},
                         {"label": literal("Production"), "value": "production"}]}}},
            {"id": "notify", "component": {"CheckBox": {"label": literal("Notify the team"), "value": {"path": "/notify"}}}},
            text("confirm-label", literal("Confirm")),
            {"id": "confirm", "component": {"Button": {"child": "confirm-label", "primary": true,
             "action": {"name": "confirm_deploy", "context": [
                 {"key": "service", "value": {"path": "/service"}}, {"key": "reason", "value": {"path": "/reason"}},
                 {"key": "env", "value": {"path": "/env"}}, {"key": "notify", "value": {"path": "/notify"}}]}}}},
        ]}},
        {"dataModelUpdate": {"surfaceId": SURFACE, "contents": [
            {"key": "service", "valueString": "billing-api"},
            {"key": "notify", "valueBoolean": false},
        ]}},
        {"beginRendering": {"surfaceId": SURFACE, "root": "root", "catalogId": A2UI_V08_CATALOG}},
    ])
}

/// INPUT_REQUIRED with the v0.8 surface, one part per message as the v0.8 SDKs send it.
pub(crate) fn prompt_v08() -> Update {
    let mut parts = vec![text_part("Please confirm the deployment.")];
    if let Value::Array(messages) = surface_v08() {
        parts.extend(messages.into_iter().map(|m| data_part(m, A2UI_LEGACY_MEDIA_TYPE)));
    }
    Update::parts(TaskState::InputRequired, parts)
}

/// INPUT_REQUIRED "Please confirm the deployment." with the surface.
pub(crate) fn prompt() -> Update {
    Update::parts(
        TaskState::InputRequired,
        vec![
            text_part("Please confirm the deployment."),
            data_part(surface(), A2UI_MEDIA_TYPE),
        ],
    )
}

/// An action → COMPLETED "Deploy confirmed: <reason> (<env>) notify=<bool>".
pub(crate) fn reply(action: &Value) -> Update {
    let context = &action["context"];
    let reason = context["reason"].as_str().unwrap_or("");
    let env = match &context["env"] {
        Value::Array(items) => items
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(", "),
        Value::String(s) => s.clone(),
        _ => String::new(),
    };
    let notify = context["notify"].as_bool().unwrap_or(false);
    Update::say(
        TaskState::Completed,
        format!("Deploy confirmed: {reason} ({env}) notify={notify}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_surface_has_a_root_and_the_action_reply_reads_the_context() {
        let surface = surface();
        let components = surface[1]["updateComponents"]["components"].as_array().unwrap();
        assert!(components.iter().any(|c| c["id"] == "root"));
        let action = json!({"name": "confirm_deploy", "context": {"reason": "hotfix", "env": ["staging"], "notify": true}});
        match reply(&action) {
            Update::Status { parts, .. } => {
                assert_eq!(parts[0]["text"], "Deploy confirmed: hotfix (staging) notify=true");
            }
            other => panic!("{other:?}"),
        }
    }
}
