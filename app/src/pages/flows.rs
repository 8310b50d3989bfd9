//! The Orchestration screen (`/flows`): pick a conversation (one context) and see its agent,
//! the source tasks and the dependent tasks that reference others through A2A
//! `referenceTaskIds`. Re-queried on the app-wide freshness signal.

mod graph;

use leptos::Params;
use leptos::prelude::*;

use crate::components::copy_id::CopyId;
use leptos_meta::Title;
use leptos_router::hooks::use_query;
use leptos_router::params::Params;

pub use graph::{FlowReference, FlowTask, Flows, split_flows};

use crate::api::tasks::{ConversationSummary, ConversationView, get_conversation, list_conversations};
use crate::components::state_chip::StateChip;
use crate::error::AppError;
use crate::live::{FRESHNESS_URL, LiveFrame, encode_segment, use_live_stream};
use crate::pages::route::non_empty;
use crate::pages::task_detail::display_title;

/// The Orchestration URL of one conversation.
pub fn flows_href(conversation_id: &str) -> String {
    format!("/flows?conversation={}", encode_segment(conversation_id))
}

/// The chosen conversation, or the newest one; `None` when there is none yet.
async fn load_flow(chosen: Option<String>) -> Result<Option<ConversationView>, AppError> {
    let id = match chosen {
        Some(id) => id,
        None => match list_conversations().await?.into_iter().next() {
            Some(newest) => newest.conversation_id,
            None => return Ok(None),
        },
    };
    get_conversation(id).await.map(Some)
}

/// `?conversation=`: the conversation whose flow is shown.
#[derive(Params, Clone, Debug, PartialEq, Eq)]
struct FlowsQuery {
    conversation: Option<String>,
}

/// The conversation chooser and the chosen conversation's flow (`?conversation=`).
#[component]
pub fn FlowsPage() -> impl IntoView {
    let query = use_query::<FlowsQuery>();
    let chosen = Memo::new(move |_| query.with(|q| q.as_ref().ok().and_then(|q| non_empty(&q.conversation))));
    let (freshness, set_freshness) = signal(0_u64);
    let conversations = Resource::new(move || freshness.get(), |_| list_conversations());
    let flow = Resource::new(
        move || (chosen.get(), freshness.get()),
        |(chosen, _)| load_flow(chosen),
    );
    use_live_stream(Signal::derive(|| Some(FRESHNESS_URL.to_owned())), move |frame| {
        if frame == LiveFrame::Freshness {
            set_freshness.update(|n| *n += 1);
        }
    });
    view! {
        <Title text="Orchestration"/>
        <header class="page-header">
            <h1>"Orchestration"</h1>
            <p class="lede">"The tasks of one context and how they reference each other."</p>
        </header>
        <Transition fallback=|| view! { <p class="muted" aria-busy="true">"Loading conversations…"</p> }>
            <ErrorBoundary fallback=error_text>
                {move || Suspend::new(async move {
                    conversations.await.map(|list| view! { <Chooser list chosen/> })
                })}
            </ErrorBoundary>
        </Transition>
        <Transition fallback=|| view! { <p class="muted" aria-busy="true">"Loading the flow…"</p> }>
            <ErrorBoundary fallback=error_text>
                {move || Suspend::new(async move {
                    flow.await.map(|found| found.map(|conversation| view! { <FlowView conversation/> }))
                })}
            </ErrorBoundary>
        </Transition>
    }
}

/// The errors of a failed load, as an alert.
fn error_text(errors: ArcRwSignal<Errors>) -> impl IntoView {
    view! {
        <p role="alert" class="error">
            {move || errors.get().into_iter().map(|(_, e)| e.to_string()).collect::<Vec<_>>().join(" ")}
        </p>
    }
}

/// One chip per conversation (title, agent); the chosen one (or the newest) is current.
/// Empty state when there is none.
#[component]
fn Chooser(list: Vec<ConversationSummary>, chosen: Memo<Option<String>>) -> impl IntoView {
    let Some(newest) = list.first().map(|c| c.conversation_id.clone()) else {
        return view! {
            <section class="empty-state">
                <h2>"No conversations"</h2>
                <p>"No conversations yet. " <a href="/chat">"Start one in Chat."</a></p>
            </section>
        }
        .into_any();
    };
    let current = Memo::new(move |_| chosen.get().unwrap_or_else(|| newest.clone()));
    view! {
        <nav class="flows-chooser" aria-label="Conversations">
            {list.into_iter().map(|conversation| view! { <ConversationChip conversation current/> }).collect_view()}
        </nav>
    }
    .into_any()
}

/// A link choosing one conversation.
#[component]
fn ConversationChip(conversation: ConversationSummary, current: Memo<String>) -> impl IntoView {
    let agent = conversation
        .agent_name
        .clone()
        .unwrap_or_else(|| conversation.agent_id.clone());
    let id = conversation.conversation_id.clone();
    let is_current = move || current.with(|c| *c == id);
    view! {
        <a
            class="flows-chip"
            data-testid="flow-conversation"
            href=flows_href(&conversation.conversation_id)
            aria-current=move || is_current().then_some("page")
        >
            <span class="flows-chip-title">{display_title(&conversation.title)}</span>
            <span class="flows-chip-agent">{agent}</span>
        </a>
    }
}

/// Context id, "Open chat →", and agent → source tasks → dependent tasks.
#[component]
fn FlowView(conversation: ConversationView) -> impl IntoView {
    let flows = split_flows(&conversation);
    let agent = conversation
        .agent_name
        .clone()
        .unwrap_or_else(|| conversation.agent_id.clone());
    let context = conversation
        .remote_context_id
        .clone()
        .unwrap_or_else(|| "no context id yet".into());
    let no_tasks = conversation.tasks.is_empty();
    view! {
        <div class="flows-context">
            <span class="chip flows-context-id" title="A2A contextId">"contextId " <CopyId id=context what="context id"/></span>
            <a class="flows-open-chat" href=format!("/chat/{}", encode_segment(&conversation.conversation_id))>
                "Open chat →"
            </a>
        </div>
        <ol class="flows-diagram" aria-label="Flow">
            <li class="flows-stage">
                <h2 class="flows-stage-title">"Agent"</h2>
                <div class="flows-agent">
                    <a href=format!("/agents/{}", encode_segment(&conversation.agent_id))>{agent}</a>
                </div>
            </li>
            <li class="flows-stage">
                <h2 class="flows-stage-title">"Source tasks"</h2>
                <TaskCards
                    tasks=flows.sources
                    testid="flow-source"
                    empty=if no_tasks { "This conversation has no tasks yet." } else { "No source tasks." }
                />
            </li>
            <li class="flows-stage">
                <h2 class="flows-stage-title">"Dependent tasks"</h2>
                <TaskCards
                    tasks=flows.dependents
                    testid="flow-dependent"
                    empty="No task here references another task."
                />
            </li>
        </ol>
    }
    .into_any()
}

/// The cards of one stage, or a note when it has none.
#[component]
fn TaskCards(tasks: Vec<FlowTask>, testid: &'static str, empty: &'static str) -> impl IntoView {
    if tasks.is_empty() {
        return view! { <p class="muted flows-empty">{empty}</p> }.into_any();
    }
    view! {
        <div class="flows-tasks">
            {tasks.into_iter().map(|task| view! { <TaskCard task testid/> }).collect_view()}
        </div>
    }
    .into_any()
}

/// One task: title linking to it, state chip, remote id and the ids it references.
#[component]
fn TaskCard(task: FlowTask, testid: &'static str) -> impl IntoView {
    let FlowTask {
        local_id,
        title,
        state,
        kind,
        remote_task_id,
        references,
    } = task;
    view! {
        <article class="flows-task" data-testid=testid data-task-id=local_id.clone()>
            <div class="flows-task-head">
                <a class="flows-task-title" href=format!("/tasks/{}", encode_segment(&local_id))>{display_title(&title)}</a>
                <StateChip state kind/>
            </div>
            {remote_task_id.map(|id| view! { <p class="flows-task-remote"><CopyId id what="remote task id"/></p> })}
            {(!references.is_empty()).then(|| view! { <References references/> })}
        </article>
    }
    .into_any()
}

/// The `referenceTaskIds` of a dependent: links to local tasks, plain text otherwise.
#[component]
fn References(references: Vec<FlowReference>) -> impl IntoView {
    view! {
        <p class="flows-refs">
            <span class="flows-refs-label">"References"</span>
            {references
                .into_iter()
                .map(|reference| match reference.local_id {
                    Some(local) => view! {
                        <a class="flows-ref" data-testid="flow-reference" href=format!("/tasks/{}", encode_segment(&local))>
                            {reference.remote_task_id}
                        </a>
                    }
                    .into_any(),
                    None => view! {
                        <span class="flows-ref flows-ref-outside" data-testid="flow-reference" title="Not a task of this conversation">
                            {reference.remote_task_id}
                        </span>
                    }
                    .into_any(),
                })
                .collect_view()}
        </p>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flows_href_encodes_the_conversation_id() {
        assert_eq!(flows_href("c-1"), "/flows?conversation=c-1");
        assert_eq!(flows_href("a b&c"), "/flows?conversation=a%20b%26c");
    }
}
