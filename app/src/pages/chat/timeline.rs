//! The conversation timeline: per task (oldest first) its message bubbles in sequence order
//! (an open prompt's structured form right after its bubble, each A2UI surface right after the
//! message that created it), its artifacts
//! growing while they stream, quick replies and a task card with its steps; then the sends
//! that have not settled yet.

use leptos::prelude::*;

use super::approval_card::ApprovalCards;
use super::prompt_form::{PromptForm, TimelineMessage, prompt_quick_replies, timeline_messages};
use super::state::ChatState;
use super::summary::Renders;
use crate::a2a::{Role, TaskState};
use crate::api::tasks::SendInput;
use crate::components::a2ui_surface::{A2uiRejected, A2uiSurfaces, has_a2ui_parts, surface_anchors};
use crate::components::artifact::ArtifactCard;
use crate::components::cancel_task::CancelTaskControl;
use crate::components::state_chip::StateChip;
use crate::components::when::When;
use crate::content::PartView;
use crate::pages::task_detail::display_title;
use crate::projection::{MessageView, TaskKind, TaskView};

/// The bubbles, cards and pending sends of the conversation.
#[component]
pub fn Timeline(state: ChatState) -> impl IntoView {
    let task_ids = move || {
        state
            .conversation
            .with(|c| c.tasks.iter().map(|t| t.local_id.clone()).collect::<Vec<_>>())
    };
    let empty = move || {
        state
            .conversation
            .with(|c| c.tasks.is_empty() && c.commands.is_empty())
    };
    let element = NodeRef::new();
    state.follow.watch(element);
    view! {
        <div class="timeline" aria-live="polite" aria-label="Conversation" node_ref=element>
            <Show when=empty>
                <div class="timeline-empty">
                    <p><strong>"Messages are how you talk to the agent; tasks are what it runs."</strong></p>
                    <p class="muted">"Each send starts a task or continues one. Its progress, questions and results appear here as they happen."</p>
                    <super::starters::Starters state/>
                </div>
            </Show>
            <For each=task_ids key=|id| id.clone() children=move |id| view! { <TaskBlock state id/> }/>
            <super::pending::PendingCommands state/>
        </div>
    }
    .into_any()
}

/// One task: bubbles (and a prompt's form), A2UI surfaces, artifacts, quick replies and its card.
#[component]
fn TaskBlock(state: ChatState, id: String) -> impl IntoView {
    let task = Memo::new(move |_| {
        state
            .conversation
            .with(|c| c.tasks.iter().find(|t| t.local_id == id).cloned())
            .unwrap_or_default()
    });
    let forms = move || state.extensions.with(|e| e.as_ref().is_some_and(|e| e.forms));
    let a2ui = move || {
        state
            .extensions
            .with(|e| e.as_ref().is_some_and(|e| e.a2ui.is_some()))
    };
    let approvals = move || state.extensions.with(|e| e.as_ref().is_some_and(|e| e.approvals));
    let messages = move || {
        let renders = Renders {
            forms: forms(),
            a2ui: a2ui(),
            approvals: approvals(),
        };
        task.with(|t| timeline_messages(t, renders))
    };
    // Where each A2UI surface goes: right after the message that created it.
    let anchors = Memo::new(move |_| {
        if a2ui() {
            task.with(surface_anchors)
        } else {
            Vec::new()
        }
    });
    let artifacts = move || {
        task.with(|t| {
            let active = !t.state.is_terminal();
            t.artifacts
                .iter()
                .map(|a| (a.clone(), active && a.streaming))
                .collect::<Vec<_>>()
        })
    };
    view! {
        <section class="task-block" data-task-id=move || task.with(|t| t.local_id.clone())>
            <For
                each=messages
                // How many parts are hidden and how many summarised both change how the entry
                // draws (the agent's extensions arrive after the first render): either redraws it.
                key=|m| (
                    m.message.message_id.clone(),
                    m.message.sequence,
                    m.hidden * 1024 + m.summaries.iter().flatten().count(),
                    m.form.is_some(),
                )
                children=move |item| {
                    let id = item.message.message_id.clone();
                    let surfaces = Signal::derive(move || {
                        anchors.with(|a| a.iter().find(|(m, _)| *m == id).map(|(_, s)| s.clone()).unwrap_or_default())
                    });
                    view! { <TimelineEntry state task item surfaces/> }
                }
            />
            <Show when=move || a2ui() && task.with(has_a2ui_parts)>
                <A2uiRejected task/>
            </Show>
            <ApprovalCards state task/>
            <For
                each=artifacts
                // The messages' key type: one keyed diff's code serves both lists.
                key=|(a, streaming)| (a.artifact_id.clone(), a.sequence, 0_usize, *streaming)
                children=|(artifact, streaming)| view! { <ArtifactCard artifact streaming/> }
            />
            <QuickReplies state task/>
            <Show when=move || task.with(|t| t.kind == TaskKind::Task)>
                <TaskCard state task/>
            </Show>
        </section>
    }
    .into_any()
}

/// The task's A2UI surfaces named by `only`; an action is sent on the same task.
fn a2ui_surfaces(state: ChatState, task: Memo<TaskView>, only: Signal<Vec<String>>) -> AnyView {
    let version = Signal::derive(move || state.extensions.with(|e| e.as_ref().and_then(|e| e.a2ui)));
    let key = crate::api::idempotency::DraftKey::new();
    let on_action = Callback::new(move |parts: Vec<serde_json::Value>| {
        let input = task.with_untracked(|t| SendInput::on_task(t, parts));
        state.send(input, key, || {});
    });
    let busy = Signal::derive(move || state.sending.get());
    view! { <A2uiSurfaces task version on_action busy only/> }.into_any()
}

/// One message: its bubble (unless all its parts render elsewhere), then the prompt's form
/// and the A2UI surfaces it created.
#[component]
fn TimelineEntry(
    state: ChatState,
    task: Memo<TaskView>,
    item: TimelineMessage,
    surfaces: Signal<Vec<String>>,
) -> impl IntoView {
    let bubble = item.shows_bubble();
    let TimelineMessage {
        message,
        summaries,
        form,
        ..
    } = item;
    let who = if message.role == Role::User {
        "You".to_owned()
    } else {
        state
            .conversation
            .with_untracked(|c| c.agent_name.clone().unwrap_or_else(|| c.agent_id.clone()))
    };
    view! {
        {bubble.then(|| view! { <Bubble message summaries who/> })}
        {form.map(|form| view! { <PromptForm state task form/> })}
        <Show when=move || surfaces.with(|s| !s.is_empty())>
            {a2ui_surfaces(state, task, surfaces)}
        </Show>
    }
}

/// A message bubble: who wrote it and when, then its parts; agent prompts that pause the task
/// are marked. A part with a summary is shown as that line (its JSON behind Raw).
#[component]
fn Bubble(
    message: MessageView,
    #[prop(optional)] summaries: Vec<Option<String>>,
    #[prop(optional, into)] who: String,
) -> impl IntoView {
    let role = if message.role == Role::User {
        "user"
    } else {
        "agent"
    };
    let pause = match message.state {
        Some(TaskState::InputRequired) if message.role == Role::Agent => Some(("needs-input", "Needs input")),
        Some(TaskState::AuthRequired) if message.role == Role::Agent => {
            Some(("needs-auth", "Needs authorization"))
        }
        _ => None,
    };
    let class = match pause {
        Some((tone, _)) => format!("bubble {role} {tone}"),
        None => format!("bubble {role}"),
    };
    view! {
        <article class=class data-testid="message-bubble" data-role=role>
            <p class="bubble-meta">
                <span class="bubble-who">{who}</span>
                {message.timestamp.clone().map(|at| view! { " · " <When at clock=true/> })}
                {pause.map(|(_, label)| view! { " · " <span class="bubble-label">{label}</span> })}
            </p>
            <div class="content-parts">
                {message
                    .parts
                    .into_iter()
                    .zip(summaries.into_iter().chain(std::iter::repeat(None)))
                    .map(|(part, summary)| view! { <PartView part summary/> })
                    .collect_view()}
            </div>
        </article>
    }
    .into_any()
}

/// Buttons for the answers an input-required prompt offers; each sends its text as a reply.
#[component]
fn QuickReplies(state: ChatState, task: Memo<TaskView>) -> impl IntoView {
    view! {
        <Show when=move || task.with(|t| !prompt_quick_replies(t).is_empty())>
            {quick_replies(state, task)}
        </Show>
    }
}

fn quick_replies(state: ChatState, task: Memo<TaskView>) -> AnyView {
    let replies = move || task.with(prompt_quick_replies);
    let key = crate::api::idempotency::DraftKey::new();
    let reply = move |text: String| {
        let input = SendInput {
            text,
            ..task.with_untracked(|t| SendInput::on_task(t, Vec::new()))
        };
        state.send(input, key, || {});
    };
    view! {
        <div class="quick-replies" role="group" aria-label="Quick replies">
            <For
                each=replies
                key=|r| r.clone()
                children=move |text| {
                    let label = text.clone();
                    view! {
                        <button
                            type="button"
                            class="button quick-reply"
                            data-testid="quick-reply"
                            disabled=move || state.sending.get()
                            on:click=move |_| reply(text.clone())
                        >
                            {label}
                        </button>
                    }
                }
            />
        </div>
    }
    .into_any()
}

/// The task card: title, state, the steps so far, a link to the detail and Cancel while active.
#[component]
fn TaskCard(state: ChatState, task: Memo<TaskView>) -> impl IntoView {
    let local_id = task.with_untracked(|t| t.local_id.clone());
    let active = move || task.with(|t| !t.state.is_terminal());
    let on_sent = Callback::new(move |command| state.cancelled(command));
    view! {
        <article class="task-card" data-testid="task-card" data-state=move || task.with(|t| t.state.as_v1_str().to_owned())>
            <header class="task-card-head">
                <a href=format!("/tasks/{local_id}") class="task-card-title">{move || task.with(|t| display_title(&t.title))}</a>
                {move || task.with(|t| view! { <StateChip state=t.state.clone()/> })}
            </header>
            <ol class="steps" aria-label="Steps">
                {move || task.with(|t| {
                    t.transitions
                        .iter()
                        .map(|step| view! { <li class="step"><StateChip state=step.state.clone()/></li> })
                        .collect_view()
                })}
                <Show when=active>
                    <li class="step pending" aria-label="More to come">"…"</li>
                </Show>
            </ol>
            <Show when=active>
                <CancelTaskControl task_id=local_id.clone() on_sent/>
            </Show>
        </article>
    }
    .into_any()
}

#[cfg(all(test, feature = "ssr"))]
mod tests {
    use super::*;
    use crate::a2a::Part;

    fn render(view: impl FnOnce() -> AnyView) -> String {
        let owner = Owner::new();
        owner.with(|| view().to_html())
    }

    fn message(role: Role, state: Option<TaskState>) -> MessageView {
        MessageView {
            message_id: "m".into(),
            role,
            parts: vec![Part::text("Which region?")],
            from_status: state.is_some(),
            state,
            timestamp: None,
            metadata: None,
            extensions: Vec::new(),
            reference_task_ids: Vec::new(),
            sequence: 1,
        }
    }

    #[test]
    fn prompts_that_pause_a_task_are_marked() {
        let html = render(|| {
            let message = message(Role::Agent, Some(TaskState::InputRequired));
            view! { <Bubble message/> }.into_any()
        });
        assert!(html.contains(r#"data-testid="message-bubble""#), "{html}");
        assert!(html.contains(r#"data-role="agent""#));
        assert!(html.contains("needs-input") && html.contains("Needs input"));
        let html = render(|| {
            let message = message(Role::Agent, Some(TaskState::AuthRequired));
            view! { <Bubble message/> }.into_any()
        });
        assert!(html.contains("needs-auth") && html.contains("Needs authorization"));
        let html = render(|| {
            let message = message(Role::User, None);
            view! { <Bubble message/> }.into_any()
        });
        assert!(html.contains(r#"data-role="user""#) && !html.contains("bubble-label"));
    }

    #[test]
    fn streaming_artifacts_are_flagged() {
        let html = render(|| {
            let artifact = crate::projection::ArtifactView {
                artifact_id: "a1".into(),
                name: Some("report.txt".into()),
                description: None,
                parts: vec![Part::text("Chunk 1.")],
                metadata: None,
                extensions: Vec::new(),
                streaming: true,
                chunks: 1,
                sequence: 3,
            };
            view! { <ArtifactCard artifact streaming=true/> }.into_any()
        });
        assert!(
            html.contains(r#"data-testid="artifact""#) && html.contains(r#"data-streaming="true""#),
            "{html}"
        );
        assert!(html.contains("report.txt") && html.contains("Chunk 1."));
    }
}
