//! The task detail page (`/tasks/:id`): one task's status timeline, history, artifacts and
//! identifiers, kept current by folding the task's live ledger stream into the loaded view.

use leptos::prelude::*;
use leptos_meta::Title;

mod ask_approval;

use crate::a2a::Role;
use crate::api::tasks::{SubscribeTask, get_task};
use crate::components::a2ui_surface::TaskInterface;
use crate::components::artifact::ArtifactCard;
use crate::components::cancel_task::CancelTaskControl;
use crate::components::copy_id::CopyId;
use crate::components::state_chip::StateChip;
use crate::components::trace::{TraceFeed, TraceHistory, TracePanel};
use crate::components::when::When;
use crate::content::PartsView;
use crate::live::{LiveFrame, fold_ledger_event, task_stream_url, use_live_stream};
use crate::projection::{MessageView, TaskView, Transition};

/// The title a task shows; untitled tasks say so.
pub fn display_title(title: &str) -> String {
    let title = title.trim();
    if title.is_empty() {
        "(untitled)".into()
    } else {
        title.to_owned()
    }
}

/// Reads the task id from the route; an unknown id is a 404 during SSR.
#[component]
pub fn TaskDetailPage() -> impl IntoView {
    let page = crate::pages::route::page_id("/tasks/");
    let id = move || page.get();
    let (version, set_version) = signal(0_u64);
    // Blocking: the title and the HTTP status (404 for an unknown task) come from the data.
    let task = Resource::new_blocking(move || (id(), version.get()), |(id, _)| get_task(id));
    let refresh = Callback::new(move |()| set_version.update(|n| *n += 1));
    view! {
        <p><a href="/tasks">"← Tasks"</a></p>
        <Transition fallback=|| view! { <p class="muted" aria-busy="true">"Loading the task…"</p> }>
            <ErrorBoundary fallback=|errors| {
                view! {
                    <Title text="Task"/>
                    <h1>"Task"</h1>
                    <p role="alert" class="error">
                        {move || errors.get().into_iter().map(|(_, e)| e.to_string()).collect::<Vec<_>>().join(" ")}
                    </p>
                }
            }>
                {move || Suspend::new(async move { task.await.map(|initial| view! { <TaskDetail initial refresh/> }) })}
            </ErrorBoundary>
        </Transition>
    }
    .into_any()
}

/// The loaded task, folded forward by its live stream.
#[component]
fn TaskDetail(initial: TaskView, refresh: Callback<()>) -> impl IntoView {
    let url = task_stream_url(&initial.local_id, initial.last_sequence);
    let trace = TraceFeed::new();
    let history = TraceHistory {
        conversation_id: initial.conversation_id.clone(),
        task_id: Some(initial.local_id.clone()),
    };
    let task = RwSignal::new(initial);
    use_live_stream(Signal::derive(move || Some(url.clone())), move |frame| {
        if let LiveFrame::Ledger(event) = frame {
            // Only a visible change re-renders (an undecodable event changes nothing here; the
            // wire inspector in Chat shows it).
            let changed = task.try_update_untracked(|view| {
                view.local_id == event.task_id && fold_ledger_event(view, &event) == Ok(true)
            });
            if changed == Some(true) {
                task.notify();
            }
            if task.with_untracked(|view| view.local_id == event.task_id) {
                trace.push(event);
            }
        }
    });
    let task: Signal<TaskView> = task.into();
    let titles = Signal::derive(move || task.with(|t| vec![(t.local_id.clone(), t.title.clone())]));
    view! {
        <DetailHeader task refresh/>
        <div class="card-grid task-cards">
            <StatusCard task/>
            <IdentifiersCard task/>
        </div>
        <HistoryCard task/>
        <TaskInterface task/>
        <ArtifactsCard task/>
        <TracePanel feed=trace history titles/>
    }
    .into_any()
}

/// Title, state, remote ids and the actions.
#[component]
fn DetailHeader(task: Signal<TaskView>, refresh: Callback<()>) -> impl IntoView {
    let subscribe = ServerAction::<SubscribeTask>::new();
    let subscribing = subscribe.pending();
    // The last request's outcome, hidden while the next one runs.
    let subscribed = move || {
        if subscribing.get() {
            return None;
        }
        subscribe
            .value()
            .with(|v| v.as_ref().map(|r| r.clone().map_err(|e| e.to_string())))
    };
    let (local_id, conversation_id) =
        task.with_untracked(|t| (t.local_id.clone(), t.conversation_id.clone()));
    // `try_`: the page title keeps this closure and may run it while the page is being left.
    let title = move || task.try_with(|t| display_title(&t.title)).unwrap_or_default();
    let meta = move || {
        task.with(|t| {
            let mut parts = vec![
                t.remote_task_id
                    .clone()
                    .unwrap_or_else(|| "no remote task id".into()),
                t.remote_context_id
                    .clone()
                    .unwrap_or_else(|| "no context id".into()),
            ];
            parts.push(t.agent_name.clone().unwrap_or_else(|| t.agent_id.clone()));
            parts.join(" · ")
        })
    };
    let active = move || task.with(|t| !t.state.is_terminal() && t.kind == crate::projection::TaskKind::Task);
    let subscribe_id = local_id.clone();
    let ask_id = StoredValue::new(local_id.clone());
    let viewer = crate::api::identity::known_viewer();
    view! {
        <Title text=title/>
        <header class="page-header task-header">
            <h1>{title} " " {move || task.with(|t| view! { <StateChip state=t.state.clone() kind=t.kind/> })}</h1>
            <p class="agent-meta mono">{meta}</p>
        </header>
        <div class="toolbar task-actions">
            <button type="button" class="button" on:click=move |_| refresh.run(())>"Refresh"</button>
            <a class="button" href=format!("/chat/{conversation_id}")>"Open in chat"</a>
            <Show when=active>
                <button
                    type="button"
                    class="button"
                    disabled=move || subscribing.get()
                    on:click={
                        let task_id = subscribe_id.clone();
                        move |_| {
                            subscribe.dispatch(SubscribeTask { task_id: task_id.clone() });
                        }
                    }
                >
                    "Subscribe"
                </button>
                <CancelTaskControl task_id=local_id.clone()/>
                <Show when=move || !viewer.get()>
                    <ask_approval::AskApproval task_id=ask_id.get_value()/>
                </Show>
            </Show>
        </div>
        {move || subscribed().map(|result| match result {
            Ok(()) => view! { <p class="muted" role="status">"The console follows this task again."</p> }.into_any(),
            Err(error) => view! { <p class="error" role="alert">{error}</p> }.into_any(),
        })}
    }
    .into_any()
}

/// The state transitions in order.
#[component]
fn StatusCard(task: Signal<TaskView>) -> impl IntoView {
    view! {
        <section class="panel" aria-label="Status timeline">
            <h2>"Status timeline"</h2>
            {move || task.with(|t| {
                if t.transitions.is_empty() {
                    return view! { <p class="muted">"No status observed yet."</p> }.into_any();
                }
                let kind = t.kind;
                view! {
                    <ol class="steps">
                        {t.transitions.iter().cloned().map(|step: Transition| view! {
                            <li class="step">
                                <StateChip state=step.state kind/>
                                {step.timestamp.map(|at| view! { " " <When at/> })}
                            </li>
                        }).collect_view()}
                    </ol>
                }.into_any()
            })}
        </section>
    }
    .into_any()
}

/// An id with its copy button, or a dash when there is none.
fn copy_or_dash(id: Option<String>, what: &'static str) -> AnyView {
    match id {
        Some(id) => view! { <CopyId id what/> }.into_any(),
        None => "—".into_any(),
    }
}

/// Local and remote ids, tenant and counts.
#[component]
fn IdentifiersCard(task: Signal<TaskView>) -> impl IntoView {
    let none = || "—".to_owned();
    view! {
        <section class="panel" aria-label="Identifiers">
            <h2>"Identifiers"</h2>
            {move || task.with(|t| view! {
                <dl class="facts mono-values">
                    <dt>"Local id"</dt><dd><CopyId id=t.local_id.clone() what="local task id"/></dd>
                    <dt>"Remote task id"</dt><dd>{copy_or_dash(t.remote_task_id.clone(), "remote task id")}</dd>
                    <dt>"Tenant"</dt><dd>{if t.tenant.is_empty() { none() } else { t.tenant.clone() }}</dd>
                    <dt>"Context id"</dt><dd>{copy_or_dash(t.remote_context_id.clone(), "context id")}</dd>
                    <dt>"Messages"</dt><dd>{t.messages.len() as u64 + t.omitted.messages}</dd>
                    <dt>"Artifacts"</dt><dd>{t.artifacts.len() as u64 + t.omitted.artifacts}</dd>
                    <dt>"Created"</dt><dd><When at=t.created_at.clone()/></dd>
                    <dt>"Updated"</dt><dd><When at=t.updated_at.clone()/></dd>
                </dl>
            })}
        </section>
    }
    .into_any()
}

/// Every message, in the order it was observed.
#[component]
fn HistoryCard(task: Signal<TaskView>) -> impl IntoView {
    let messages = move || {
        task.with(|t| {
            let mut messages = t.messages.clone();
            messages.sort_by_key(|m| m.sequence);
            crate::components::a2ui_surface::mask_user_secrets(&mut messages, t);
            messages
        })
    };
    view! {
        <section class="panel" aria-label="History">
            <h2>"History"</h2>
            {move || task.with(|t| omitted_note(t.omitted.messages, "earlier message"))}
            <Show when=move || task.with(|t| t.messages.is_empty())>
                <p class="muted">"No messages yet."</p>
            </Show>
            <ol class="history" aria-live="polite">
                <For
                    each=messages
                    key=|m| (m.message_id.clone(), m.sequence)
                    children=|message| view! { <HistoryEntry message/> }
                />
            </ol>
        </section>
    }
    .into_any()
}

/// "N more … not shown": the server bounds a task's view (issue #26); the rest is in the
/// ledger and the JSON API.
fn omitted_note(count: u64, what: &str) -> Option<AnyView> {
    (count > 0).then(|| {
        let plural = if count == 1 { "" } else { "s" };
        view! { <p class="muted" role="note">{format!("{count} {what}{plural} not shown.")}</p> }.into_any()
    })
}

/// One message with its role label.
#[component]
fn HistoryEntry(message: MessageView) -> impl IntoView {
    let role = match message.role {
        Role::User => "You",
        Role::Agent => "Agent",
    };
    view! {
        <li class="history-entry" data-role=if message.role == Role::User { "user" } else { "agent" }>
            <p class="history-role">
                <strong>{role}</strong>
                {message.from_status.then_some(" · status message")}
                {message.timestamp.clone().map(|at| view! { " · " <When at/> })}
            </p>
            <PartsView parts=message.parts/>
        </li>
    }
    .into_any()
}

/// The artifacts, growing while they stream.
#[component]
fn ArtifactsCard(task: Signal<TaskView>) -> impl IntoView {
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
        <section class="panel" aria-label="Artifacts">
            <h2>"Artifacts"</h2>
            {move || task.with(|t| omitted_note(t.omitted.artifacts, "earlier artifact"))}
            {move || task.with(|t| omitted_note(t.omitted.chunks, "artifact chunk"))}
            <Show when=move || task.with(|t| t.artifacts.is_empty())>
                <p class="muted">"No artifacts yet."</p>
            </Show>
            <For
                each=artifacts
                key=|(a, streaming)| (a.artifact_id.clone(), a.sequence, *streaming)
                children=|(artifact, streaming)| view! { <ArtifactCard artifact streaming/> }
            />
        </section>
    }
    .into_any()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn untitled_tasks_say_so() {
        assert_eq!(display_title("  "), "(untitled)");
        assert_eq!(display_title(" Plan a trip "), "Plan a trip");
    }
}
