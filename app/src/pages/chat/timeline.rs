//! The conversation timeline: per task (oldest first) its message bubbles in sequence order
//! (an open prompt's structured form right after its bubble), its A2UI surfaces, its artifacts
//! growing while they stream, quick replies and a task card with its steps; then the sends
//! that have not settled yet.

use leptos::prelude::*;

use super::approval_card::ApprovalCards;
use super::prompt_form::{PromptForm, TimelineMessage, prompt_quick_replies, timeline_messages};
use super::state::ChatState;
use crate::a2a::{Role, TaskState};
use crate::api::tasks::{CommandAction, CommandStatus, CommandView, SendInput};
use crate::components::a2ui_surface::{A2uiSurfaces, has_a2ui_parts};
use crate::components::artifact::ArtifactCard;
use crate::components::cancel_task::CancelTaskControl;
use crate::components::state_chip::StateChip;
use crate::content::PartsView;
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
    view! {
        <div class="timeline" aria-live="polite" aria-label="Conversation">
            <Show when=empty>
                <div class="timeline-empty">
                    <p><strong>"Messages are how you talk to the agent; tasks are what it runs."</strong></p>
                    <p class="muted">"Each send starts a task or continues one. Its progress, questions and results appear here as they happen."</p>
                </div>
            </Show>
            <For each=task_ids key=|id| id.clone() children=move |id| view! { <TaskBlock state id/> }/>
            <PendingCommands state/>
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
    let messages = move || {
        let (forms, a2ui) = (forms(), a2ui());
        task.with(|t| timeline_messages(t, forms, a2ui))
    };
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
                key=|m| (m.message.message_id.clone(), m.message.sequence, m.hidden, m.form.is_some())
                children=move |item| view! { <TimelineEntry state task item/> }
            />
            <Show when=move || a2ui() && task.with(has_a2ui_parts)>
                {a2ui_surfaces(state, task)}
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

/// The task's A2UI surfaces; an action is sent on the same task.
fn a2ui_surfaces(state: ChatState, task: Memo<TaskView>) -> AnyView {
    let version = Signal::derive(move || state.extensions.with(|e| e.as_ref().and_then(|e| e.a2ui)));
    let key = crate::api::idempotency::DraftKey::new();
    let on_action = Callback::new(move |parts: Vec<serde_json::Value>| {
        let input = task.with_untracked(|t| SendInput::on_task(t, parts));
        state.send(input, key, || {});
    });
    let busy = Signal::derive(move || state.sending.get());
    view! { <A2uiSurfaces task version on_action busy/> }.into_any()
}

/// One message: its bubble (unless all its parts render elsewhere), then the prompt's form.
#[component]
fn TimelineEntry(state: ChatState, task: Memo<TaskView>, item: TimelineMessage) -> impl IntoView {
    let bubble = item.shows_bubble();
    let TimelineMessage { message, form, .. } = item;
    view! {
        {bubble.then(|| view! { <Bubble message/> })}
        {form.map(|form| view! { <PromptForm state task form/> })}
    }
}

/// A message bubble; agent prompts that pause the task are marked.
#[component]
fn Bubble(message: MessageView) -> impl IntoView {
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
            {pause.map(|(_, label)| view! { <p class="bubble-label">{label}</p> })}
            <PartsView parts=message.parts/>
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

/// Sends and cancels not settled yet: "Sending…" while in flight, the error once failed or
/// uncertain (the server's text says to check the task before resending). A handful at most,
/// drawn again when they change.
#[component]
fn PendingCommands(state: ChatState) -> impl IntoView {
    let commands = Memo::new(move |_| state.conversation.with(|c| c.commands.clone()));
    move || {
        commands
            .get()
            .into_iter()
            .map(|command| view! { <PendingBubble command/> })
            .collect_view()
    }
}

/// One unsettled command.
#[component]
fn PendingBubble(command: CommandView) -> impl IntoView {
    let cancel = command.action == CommandAction::CancelTask;
    let (class, note) = if command.in_flight() {
        let note = if cancel { "Canceling…" } else { "Sending…" };
        ("bubble user pending", note.to_owned())
    } else {
        let fallback = if command.status == CommandStatus::Uncertain {
            "Remote outcome is uncertain; check the task before sending again."
        } else {
            "The agent did not accept this."
        };
        (
            "bubble user failed",
            command.error.clone().unwrap_or_else(|| fallback.to_owned()),
        )
    };
    let text = if cancel {
        "Cancel task".to_owned()
    } else {
        command.text.clone()
    };
    view! {
        <article class=class data-testid="pending-command" data-status=command.status.as_str()>
            {(!text.is_empty()).then(|| view! { <p class="bubble-text">{text}</p> })}
            <p class="bubble-note" role=if command.in_flight() { "status" } else { "alert" }>{note}</p>
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

    fn command(status: CommandStatus, error: Option<&str>) -> CommandView {
        CommandView {
            id: "k".into(),
            agent_id: "a".into(),
            action: CommandAction::Send,
            message_id: "m".into(),
            status,
            error: error.map(str::to_owned),
            task_id: None,
            conversation_id: Some("c".into()),
            text: "Deploy it".into(),
            created_at: "2026-01-01T00:00:00Z".into(),
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
    fn unsettled_commands_show_sending_or_the_error() {
        let html =
            render(|| view! { <PendingBubble command=command(CommandStatus::Pending, None)/> }.into_any());
        assert!(
            html.contains(r#"data-testid="pending-command""#) && html.contains("Sending…"),
            "{html}"
        );
        assert!(html.contains("Deploy it"));
        let uncertain = "Remote outcome is uncertain; check the task before resending.";
        let html = render(|| {
            view! { <PendingBubble command=command(CommandStatus::Uncertain, Some(uncertain))/> }.into_any()
        });
        assert!(html.contains("failed") && html.contains(uncertain), "{html}");
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
