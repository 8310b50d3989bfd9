//! Server-side rendering checks of A2UI surfaces: agent strings stay text, disabled buttons say
//! why, non-inline media is an inert placeholder, and only agent messages are folded.

use leptos::prelude::*;
use serde_json::{Value, json};

use super::*;
use crate::a2a::{Part, TaskState};
use crate::ext::a2ui::{
    A2UI_BASIC_CATALOG, ACTION_NOT_SUPPORTED_REASON, MEDIA_NOT_INLINE_TEXT, TASK_FINISHED_REASON,
    UNSUPPORTED_CATALOG_NOTICE,
};
use crate::projection::MessageView;

fn message(role: Role, sequence: i64, parts: Vec<Part>) -> MessageView {
    MessageView {
        message_id: format!("m{sequence}"),
        role,
        parts,
        from_status: role == Role::Agent,
        state: Some(TaskState::InputRequired),
        timestamp: None,
        metadata: None,
        extensions: Vec::new(),
        reference_task_ids: Vec::new(),
        sequence,
    }
}

fn a2ui(data: Value) -> Part {
    Part::data(data, Some("application/a2ui+json".into()))
}

/// The demo agent's deploy surface, hostile content included.
fn deploy_surface() -> Value {
    json!([
        {"version": "v0.9", "createSurface": {"surfaceId": "deploy", "catalogId": A2UI_BASIC_CATALOG}},
        {"version": "v0.9", "updateComponents": {"surfaceId": "deploy", "components": [
            {"id": "root", "component": "Card", "child": "body"},
            {"id": "body", "component": "Column", "justify": "spaceBetween", "children": [
                "title", "service", "caption", "reason", "env", "notify", "confirm", "phish", "image"]},
            {"id": "title", "component": "Text", "text": "Confirm deployment", "variant": "h3"},
            {"id": "service", "component": "Text", "text": {"path": "/service"}},
            {"id": "caption", "component": "Text", "variant": "caption",
             "text": "<b>Release notes</b><img src=x onerror=alert(document.cookie)>"},
            {"id": "reason", "component": "TextField", "label": "Reason", "value": {"path": "/reason"}},
            {"id": "env", "component": "ChoicePicker", "label": "Environment", "value": {"path": "/env"},
             "options": [{"value": "staging", "label": "Staging"}, {"value": "production", "label": "Production"}]},
            {"id": "notify", "component": "CheckBox", "label": "Notify the team", "value": {"path": "/notify"}},
            {"id": "confirm-label", "component": "Text", "text": "Confirm"},
            {"id": "confirm", "component": "Button", "child": "confirm-label", "variant": "primary",
             "action": {"event": {"name": "confirm_deploy", "context": {"reason": {"path": "/reason"}}}}},
            {"id": "phish-label", "component": "Text", "text": "Verify your account"},
            {"id": "phish", "component": "Button", "child": "phish-label",
             "action": {"functionCall": {"call": "openUrl", "args": {"url": "https://login.example-phish.test/verify"}}}},
            {"id": "image", "component": "Image", "url": "https://tracker.example.test/pixel.png",
             "description": "Deployment diagram"},
        ]}},
        {"version": "v0.9", "updateDataModel": {"surfaceId": "deploy", "path": "/",
            "value": {"service": "billing-api", "env": ["staging"], "notify": false}}},
    ])
}

fn task(state: TaskState, messages: Vec<MessageView>) -> TaskView {
    TaskView {
        local_id: "t-1".into(),
        state,
        messages,
        ..TaskView::default()
    }
}

fn render(task: TaskView, version: Option<A2uiVersion>) -> String {
    let owner = Owner::new();
    owner.with(|| {
        let task = Signal::stored(task);
        let version = Signal::stored(version);
        view! { <A2uiSurfaces task version on_action=Callback::new(|_| {})/> }.to_html()
    })
}

fn deploy_task(state: TaskState) -> TaskView {
    task(
        state,
        vec![message(
            Role::Agent,
            1,
            vec![Part::text("Please confirm."), a2ui(deploy_surface())],
        )],
    )
}

#[test]
fn hostile_text_stays_text() {
    let html = render(deploy_task(TaskState::InputRequired), Some(A2uiVersion::V09));
    assert!(html.contains(r#"data-testid="a2ui-surface""#), "{html}");
    assert!(html.contains("&lt;b&gt;Release notes&lt;/b&gt;&lt;img"), "{html}");
    assert!(!html.contains("<img src=x") && !html.contains("<b>"), "{html}");
    assert!(
        html.contains(r#"<h2 class="a2ui-text a2ui-h3""#) && html.contains("Confirm deployment"),
        "{html}"
    );
    assert!(html.contains("billing-api"), "{html}");
    assert!(html.contains("a2ui-justify-between"), "{html}");
    assert!(
        html.contains("Notify the team") && html.contains(r#"type="radio""#),
        "{html}"
    );
}

#[test]
fn a_disabled_button_says_why_and_an_enabled_one_is_live() {
    let html = render(deploy_task(TaskState::InputRequired), Some(A2uiVersion::V09));
    let phish = html
        .split(r#"data-component-id="phish""#)
        .nth(1)
        .and_then(|rest| rest.split("</button>").next())
        .expect("the phish button");
    assert!(phish.contains("disabled"), "{phish}");
    assert!(
        phish.contains(&format!(r#"title="{ACTION_NOT_SUPPORTED_REASON}""#)),
        "{phish}"
    );
    assert!(
        phish.contains("visually-hidden") && phish.contains(ACTION_NOT_SUPPORTED_REASON),
        "{phish}"
    );
    assert!(!html.contains("example-phish"), "{html}");
    let confirm = html
        .split(r#"data-component-id="confirm""#)
        .nth(1)
        .and_then(|rest| rest.split('>').next())
        .expect("the confirm button");
    assert!(!confirm.contains("disabled"), "{confirm}");
    let html = render(deploy_task(TaskState::Completed), Some(A2uiVersion::V09));
    assert!(html.contains(TASK_FINISHED_REASON), "{html}");
}

#[test]
fn a_placeholder_has_no_url() {
    let html = render(deploy_task(TaskState::InputRequired), Some(A2uiVersion::V09));
    assert!(html.contains(r#"data-testid="a2ui-placeholder""#), "{html}");
    assert!(html.contains(MEDIA_NOT_INLINE_TEXT), "{html}");
    assert!(!html.contains("tracker.example"), "{html}");
}

#[test]
fn nothing_renders_unless_advertised_and_user_parts_are_not_folded() {
    assert!(!render(deploy_task(TaskState::InputRequired), None).contains("a2ui-surface"));
    let from_user = task(
        TaskState::Working,
        vec![message(Role::User, 1, vec![a2ui(deploy_surface())])],
    );
    assert!(!render(from_user, Some(A2uiVersion::V09)).contains("a2ui-surface"));
}

#[test]
fn notices_waiting_and_the_rejected_counter() {
    let parts = json!([
        {"version": "v0.9", "createSurface": {"surfaceId": "other", "catalogId": "https://evil.example/catalog"}},
        {"version": "v0.9", "createSurface": {"surfaceId": "empty", "catalogId": A2UI_BASIC_CATALOG}},
        {"version": "v0.9", "wipe": {"surfaceId": "empty"}},
    ]);
    let html = render(
        task(
            TaskState::Working,
            vec![message(Role::Agent, 1, vec![a2ui(parts)])],
        ),
        Some(A2uiVersion::V09),
    );
    assert!(html.contains(r#"data-testid="a2ui-notice""#), "{html}");
    assert!(html.contains(UNSUPPORTED_CATALOG_NOTICE), "{html}");
    assert!(html.contains(WAITING_TEXT), "{html}");
    assert!(html.contains(r#"data-testid="a2ui-rejected""#), "{html}");
    assert!(html.contains("1 invalid interface update(s) ignored."), "{html}");
    assert!(!html.contains("evil.example"), "{html}");
}

#[test]
fn tabs_are_a_tablist_and_inline_media_is_shown() {
    let pixel = "data:image/png;base64,iVBORw0KGgo=";
    let parts = json!([
        {"version": "v0.9", "createSurface": {"surfaceId": "s", "catalogId": A2UI_BASIC_CATALOG}},
        {"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": [
            {"id": "root", "component": "Tabs", "tabs": [
                {"title": "One", "child": "a"}, {"title": "Two", "child": "b"}]},
            {"id": "a", "component": "Image", "url": pixel, "description": "A pixel"},
            {"id": "b", "component": "Slider", "label": "Replicas", "min": 1, "max": 5, "value": 3},
        ]}},
    ]);
    let html = render(
        task(
            TaskState::Working,
            vec![message(Role::Agent, 1, vec![a2ui(parts)])],
        ),
        Some(A2uiVersion::V09),
    );
    assert!(
        html.contains(r#"role="tablist""#) && html.contains(r#"role="tab""#),
        "{html}"
    );
    assert!(
        html.contains(r#"aria-selected="true""#) && html.contains(r#"aria-selected="false""#),
        "{html}"
    );
    assert!(
        html.contains(&format!(r#"src="{pixel}""#)) && html.contains(r#"alt="A pixel""#),
        "{html}"
    );
    assert!(
        html.contains(r#"type="range""#) && html.contains("Replicas"),
        "{html}"
    );
}

#[test]
fn folding_reads_agent_messages_in_sequence_order() {
    let later = json!([{"version": "v0.9", "deleteSurface": {"surfaceId": "deploy"}}]);
    // The delete has the higher sequence, so it applies after the creation.
    let t = task(
        TaskState::Working,
        vec![
            message(Role::Agent, 5, vec![a2ui(later)]),
            message(Role::Agent, 1, vec![a2ui(deploy_surface())]),
        ],
    );
    assert!(fold_task(&t).surfaces.is_empty());
    assert!(has_a2ui_parts(&t));
    let mut metadata = serde_json::Map::new();
    metadata.insert("mimeType".into(), json!("application/json+a2ui"));
    let mut part = Part::data(deploy_surface(), None);
    part.metadata = Some(metadata);
    assert_eq!(a2ui_part_version(&part), Some(A2uiVersion::V09));
    assert_eq!(a2ui_part_version(&Part::text("[]")), None);
}

/// Issue #32 (axe): the surface's `h3` title is the first heading under the chat's `h1`, so it
/// is drawn as an `h2` (an `h3` under the task page's "Interface" `h2`), with its look kept.
#[test]
fn surface_headings_start_one_below_the_section() {
    let html = render(deploy_task(TaskState::InputRequired), Some(A2uiVersion::V09));
    assert!(html.contains(r#"<h2 class="a2ui-text a2ui-h3""#), "{html}");
    assert!(!html.contains("<h3"), "{html}");
}

/// Issue #32 (axe): a choice group without a label still has a visible name.
#[test]
fn a_choice_group_without_a_label_says_what_to_do() {
    let mut surface = deploy_surface();
    surface[1]["updateComponents"]["components"][6]["label"] = json!("");
    let html = render(
        task(
            TaskState::InputRequired,
            vec![message(Role::Agent, 1, vec![a2ui(surface)])],
        ),
        Some(A2uiVersion::V09),
    );
    assert!(html.contains("<legend>Choose one</legend>"), "{html}");
}
