//! [`A2uiSurfaces`]: the A2UI surfaces of one task (`shared/spec/reference.md` §1.4,
//! `shared/spec/a2a-and-a2ui.md` §B), folded by [`crate::ext::a2ui`] from the task's agent
//! messages and drawn from its [`RenderNode`] tree. Agent strings are text, media only inline
//! `data:` URLs, and nothing is sent except a button's action. [`TaskInterface`] is the task
//! page's "Interface" section around it.
//!
//! - `shape`: the pure parts (the tree's structure, node addresses, stable DOM ids);
//! - `nodes`: containers, text, buttons, tabs, media and placeholders;
//! - `inputs`: the editable components, which write into the surface's edit overlay.

use std::collections::BTreeMap;

use leptos::prelude::*;
use serde_json::Value;

use crate::a2a::{Part, PartContent, Role};
use crate::ext::a2ui::{
    A2uiState, A2uiVersion, PlaceholderReason, RenderNode, WAITING_TEXT, is_a2ui_part, rejected_notice,
};
use crate::projection::TaskView;

mod inputs;
mod nodes;
mod shape;
mod task_interface;

#[cfg(all(test, feature = "ssr"))]
mod tests;

pub use shape::{dom_token, node_at, shape_of};
pub use task_interface::TaskInterface;

use nodes::{Ctx, render_node};

/// The A2UI version of a part, when it is an A2UI data part (§1.4 "Part detection").
pub fn a2ui_part_version(part: &Part) -> Option<A2uiVersion> {
    let PartContent::Data(data) = &part.content else {
        return None;
    };
    let metadata_mime = part
        .metadata
        .as_ref()
        .and_then(|m| m.get("mimeType"))
        .and_then(Value::as_str);
    is_a2ui_part(part.media_type.as_deref(), metadata_mime, data)
}

/// Every A2UI part of the task's agent messages folded, oldest first (§1.4 "Folding").
pub fn fold_task(task: &TaskView) -> A2uiState {
    let mut messages: Vec<_> = task.messages.iter().filter(|m| m.role == Role::Agent).collect();
    messages.sort_by_key(|m| m.sequence);
    let mut state = A2uiState::default();
    for part in messages.iter().flat_map(|m| m.parts.iter()) {
        if let (Some(version), PartContent::Data(data)) = (a2ui_part_version(part), &part.content) {
            state.apply_part(version, data);
        }
    }
    state
}

/// For each agent message that creates surfaces, its id and the ids of the surfaces it creates,
/// oldest first: the chat draws each surface right after the message that created it, so an
/// agent's answer to an action comes after the surface, in event order (issue #32).
pub fn surface_anchors(task: &TaskView) -> Vec<(String, Vec<String>)> {
    let mut messages: Vec<_> = task.messages.iter().filter(|m| m.role == Role::Agent).collect();
    messages.sort_by_key(|m| m.sequence);
    let mut state = A2uiState::default();
    let mut seen = std::collections::HashSet::new();
    let mut anchors = Vec::new();
    for message in messages {
        let mut applied = false;
        for part in &message.parts {
            if let (Some(version), PartContent::Data(data)) = (a2ui_part_version(part), &part.content) {
                state.apply_part(version, data);
                applied = true;
            }
        }
        let created: Vec<String> = state
            .surfaces
            .iter()
            .filter(|s| applied && seen.insert(s.id.clone()))
            .map(|s| s.id.clone())
            .collect();
        if !created.is_empty() {
            anchors.push((message.message_id.clone(), created));
        }
    }
    anchors
}

/// The task's user messages as the console shows them: values typed into the task's obscured
/// A2UI fields are masked (issue #26, "Secrets in forms"), as in the Wire panel; the agent got
/// them as typed.
pub fn mask_user_secrets(messages: &mut [crate::projection::MessageView], task: &TaskView) {
    if !has_a2ui_parts(task) {
        return;
    }
    let state = fold_task(task);
    for message in messages.iter_mut().filter(|m| m.role == Role::User) {
        let Ok(mut parts) = serde_json::to_value(&message.parts) else {
            continue;
        };
        if crate::ext::a2ui::mask_secret_action_values(&mut parts, &state) > 0
            && let Ok(masked) = serde_json::from_value(parts)
        {
            message.parts = masked;
        }
    }
}

/// Whether the task's agent messages carry any A2UI part.
pub fn has_a2ui_parts(task: &TaskView) -> bool {
    task.messages
        .iter()
        .filter(|m| m.role == Role::Agent)
        .flat_map(|m| m.parts.iter())
        .any(|p| a2ui_part_version(p).is_some())
}

/// The current time as ISO 8601 (`2026-01-02T03:04:05.678Z`), the timestamp of an action.
#[cfg(feature = "hydrate")]
pub fn now_iso() -> String {
    web_sys::js_sys::Date::new_0().to_iso_string().into()
}

/// The server never clicks a button; a fixed epoch keeps the signature.
#[cfg(not(feature = "hydrate"))]
pub fn now_iso() -> String {
    "1970-01-01T00:00:00.000Z".to_owned()
}

/// The surfaces of `task`, when `version` is set (the agent advertises A2UI): each surface, the
/// rejected-update counter, and inputs that edit a local overlay. A click on an enabled button
/// hands the action message's parts to `on_action`; buttons are off while `busy`.
///
/// Callers show it only for a task with A2UI parts ([`has_a2ui_parts`]).
#[component]
pub fn A2uiSurfaces(
    #[prop(into)] task: Signal<TaskView>,
    #[prop(into)] version: Signal<Option<A2uiVersion>>,
    on_action: Callback<Vec<Value>>,
    /// A send is in flight: buttons wait.
    #[prop(optional, into)]
    busy: Signal<bool>,
    /// Only these surfaces, without the rejected-update notice (the chat places each group
    /// after the message that created it and the notice once, see [`A2uiRejected`]).
    #[prop(optional, into)]
    only: Option<Signal<Vec<String>>>,
    /// The level the surfaces' headings start at: one below the section they sit in.
    #[prop(default = 2)]
    heading_level: u8,
) -> impl IntoView {
    let folded = Memo::new(move |_| version.get().map(|_| task.with(fold_task)));
    let finished = Memo::new(move |_| task.with(|t| t.state.is_terminal()));
    let prefix = task.with_untracked(|t| format!("a2ui-{}", dom_token(&t.local_id)));
    let shown = move || {
        folded.with(|s| {
            s.as_ref()
                .is_some_and(|s| !s.surfaces.is_empty() || s.rejected > 0)
        })
    };
    let surface_ids = move || {
        let mut ids = folded.with(|s| {
            s.iter()
                .flat_map(|s| s.surfaces.iter().map(|x| x.id.clone()))
                .collect::<Vec<_>>()
        });
        if let Some(only) = only {
            only.with(|only| ids.retain(|id| only.contains(id)));
        }
        ids
    };
    let rejected = move || {
        if only.is_some() {
            return None;
        }
        folded.with(|s| s.as_ref().and_then(|s| rejected_notice(s.rejected)))
    };
    view! {
        <Show when=shown>
            <div class="a2ui-surfaces">
                {move || rejected().map(|text| view! { <p class="a2ui-rejected" data-testid="a2ui-rejected" role="status">{text}</p> })}
                <For
                    each=surface_ids
                    key=|id| id.clone()
                    children={
                        let prefix = prefix.clone();
                        move |id| {
                            let prefix = format!("{prefix}-{}", dom_token(&id));
                            view! { <SurfaceView id prefix folded finished on_action busy heading_level/> }
                        }
                    }
                />
            </div>
        </Show>
    }
    .into_any()
}

/// How many A2UI updates of the task were rejected, when any were (the chat's one notice per
/// task; [`A2uiSurfaces`] shows it itself unless given `only`).
#[component]
pub fn A2uiRejected(#[prop(into)] task: Signal<TaskView>) -> impl IntoView {
    let notice = Memo::new(move |_| task.with(|t| rejected_notice(fold_task(t).rejected)));
    move || {
        notice.get().map(
            |text| view! { <p class="a2ui-rejected" data-testid="a2ui-rejected" role="status">{text}</p> },
        )
    }
}

/// One surface: its own edit overlay, the live tree, and the DOM built from the tree's shape
/// (rebuilt only when the structure changes, so typing keeps focus).
#[component]
fn SurfaceView(
    id: String,
    prefix: String,
    folded: Memo<Option<A2uiState>>,
    finished: Memo<bool>,
    on_action: Callback<Vec<Value>>,
    busy: Signal<bool>,
    heading_level: u8,
) -> impl IntoView {
    let edits = RwSignal::new(BTreeMap::<String, Value>::new());
    let surface_id = StoredValue::new(id.clone());
    let tree = Memo::new(move |_| {
        let finished = finished.get();
        folded
            .with(|s| {
                surface_id.with_value(|id| {
                    s.as_ref()
                        .and_then(|s| s.surface(id))
                        .map(|surface| edits.with(|e| surface.render_with(e, finished)))
                })
            })
            .unwrap_or_else(|| RenderNode::Placeholder {
                reason: PlaceholderReason::Waiting,
                text: WAITING_TEXT.to_owned(),
            })
    });
    let shape = Memo::new(move |_| tree.with(shape_of));
    let headings = Memo::new(move |_| shape.with(|s| shape::heading_levels(s, heading_level)));
    let ctx = Ctx {
        headings,
        tree,
        edits,
        folded,
        surface_id,
        prefix: StoredValue::new(prefix),
        on_action,
        busy,
    };
    view! {
        <section class="a2ui-surface" data-testid="a2ui-surface" data-surface-id=id aria-label="Agent interface">
            {move || shape.with(|s| render_node(ctx, s, Vec::new(), false))}
        </section>
    }
    .into_any()
}
