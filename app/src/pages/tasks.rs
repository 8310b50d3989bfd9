//! The Tasks screen (`/tasks`): every task the console has observed, newest first, filtered by
//! state (`?filter=`), searched by words and agent (`?q=&agent=`) and paged (`?offset=`); re-queried whenever the app-wide freshness signal
//! says something was committed.

use leptos::Params;
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query;
use leptos_router::params::Params;

use leptos_router::components::Form;

use crate::api::agents::list_agent_choices;
use crate::api::tasks::{
    MAX_SEARCH_CHARS, TASK_PAGE_SIZE, TaskFilter, TaskPage, TaskSearch, TaskSummary, list_tasks,
};
use crate::components::copy_id::CopyId;
use crate::components::state_chip::StateChip;
use crate::components::when::When;
use crate::live::{FRESHNESS_URL, LiveFrame, encode_segment, use_live_stream};
use crate::pages::route::Lenient;

/// How many characters of a remote id a row shows.
const SHORT_ID_CHARS: usize = 8;

/// The first characters of a remote id, for diagnosis at a glance.
pub fn short_id(id: &str) -> String {
    let short: String = id.chars().take(SHORT_ID_CHARS).collect();
    if short.len() < id.len() {
        format!("{short}…")
    } else {
        short
    }
}

/// The list URL for a filter and offset (`/tasks` for the defaults).
pub fn tasks_href(filter: TaskFilter, offset: u64) -> String {
    narrowed_href(filter, offset, &TaskSearch::default())
}

/// The list URL for a filter, an offset and a search (`?q=&agent=`), empty parts left out.
pub fn narrowed_href(filter: TaskFilter, offset: u64, search: &TaskSearch) -> String {
    let mut query = Vec::new();
    if filter != TaskFilter::All {
        query.push(format!("filter={}", filter.as_str()));
    }
    if !search.text.trim().is_empty() {
        query.push(format!("q={}", encode_segment(search.text.trim())));
    }
    if !search.agent_id.is_empty() {
        query.push(format!("agent={}", encode_segment(&search.agent_id)));
    }
    if offset > 0 {
        query.push(format!("offset={offset}"));
    }
    if query.is_empty() {
        "/tasks".into()
    } else {
        format!("/tasks?{}", query.join("&"))
    }
}

/// `?filter=`, `?offset=`, `?q=` and `?agent=`; a malformed one reads as absent.
#[derive(Params, Clone, Debug, PartialEq, Eq)]
struct TasksQuery {
    filter: Lenient<TaskFilter>,
    offset: Lenient<u64>,
    q: Option<String>,
    agent: Option<String>,
}

/// The filter chips, the page of rows and the pager.
#[component]
pub fn TasksPage() -> impl IntoView {
    let query = use_query::<TasksQuery>();
    let filter =
        Memo::new(move |_| query.with(|q| q.as_ref().ok().and_then(|q| q.filter.0).unwrap_or_default()));
    let offset = Memo::new(move |_| query.with(|q| q.as_ref().ok().and_then(|q| q.offset.0).unwrap_or(0)));
    let search = Memo::new(move |_| {
        query.with(|q| {
            let q = q.as_ref().ok();
            TaskSearch {
                text: q.and_then(|q| q.q.clone()).unwrap_or_default(),
                agent_id: q.and_then(|q| q.agent.clone()).unwrap_or_default(),
            }
        })
    });
    let (freshness, set_freshness) = signal(0_u64);
    let tasks = Resource::new(
        move || (filter.get(), offset.get(), search.get(), freshness.get()),
        |(filter, offset, search, _)| list_tasks(filter, offset, search.text, search.agent_id),
    );
    let refresh = Callback::new(move |()| set_freshness.update(|n| *n += 1));
    use_live_stream(Signal::derive(|| Some(FRESHNESS_URL.to_owned())), move |frame| {
        if frame == LiveFrame::Freshness {
            refresh.run(());
        }
    });
    view! {
        <Title text="Tasks"/>
        <header class="page-header">
            <h1>"Tasks"</h1>
            <p class="lede">"Every task the console has observed, newest first."</p>
        </header>
        <FilterChips current=filter search/>
        <SearchForm filter search/>
        <Transition fallback=|| view! { <p class="muted" aria-busy="true">"Loading tasks…"</p> }>
            <ErrorBoundary fallback=crate::components::error_alert::error_alert>
                {move || Suspend::new(async move {
                    tasks.await.map(|page| {
                        view! { <TaskTable page filter=filter.get_untracked() search=search.get_untracked() refresh/> }
                    })
                })}
            </ErrorBoundary>
        </Transition>
    }
    .into_any()
}

/// The search box and the agent choice: a GET form, so the search lives in the URL (`/`
/// puts the keyboard in the box). The agents come from the database, no card is fetched.
#[component]
fn SearchForm(filter: Memo<TaskFilter>, search: Memo<TaskSearch>) -> impl IntoView {
    let agents = crate::api::browser_value(list_agent_choices);
    view! {
        <Form
            method="GET"
            action="/tasks"
            on_form_data=std::sync::Arc::new(drop_unnamed_submitter)
            attr:class="task-search"
            attr:role="search"
            attr:aria-label="Search tasks"
        >
            {move || (filter.get() != TaskFilter::All).then(|| view! {
                <input type="hidden" name="filter" value=filter.get().as_str()/>
            })}
            <label for="task-search" class="visually-hidden">"Search tasks"</label>
            <input
                id="task-search"
                type="search"
                name="q"
                maxlength=MAX_SEARCH_CHARS.to_string()
                placeholder="Search titles and task ids"
                prop:value=move || search.with(|s| s.text.clone())
            />
            <label for="task-agent" class="visually-hidden">"Agent"</label>
            <select id="task-agent" name="agent" prop:value=move || search.with(|s| s.agent_id.clone())>
                <option value="">"All agents"</option>
                {move || {
                    let chosen = search.with(|s| s.agent_id.clone());
                    agents
                        .get()
                        .unwrap_or_default()
                        .into_iter()
                        .map(|a| {
                            let selected = a.id == chosen;
                            view! { <option value=a.id selected=selected>{a.name}</option> }
                        })
                        .collect_view()
                }}
            </select>
            <button type="submit" class="button">"Search"</button>
        </Form>
    }
}

/// All / Active / Needs you / Done, as links so the filter lives in the URL (the search stays).
#[component]
fn FilterChips(current: Memo<TaskFilter>, search: Memo<TaskSearch>) -> impl IntoView {
    view! {
        <nav class="filter-chips" aria-label="Filter tasks">
            {TaskFilter::ALL
                .into_iter()
                .map(|filter| {
                    view! {
                        <a
                            class="filter-chip"
                            href=move || search.with(|s| narrowed_href(filter, 0, s))
                            aria-current=move || (current.get() == filter).then_some("page")
                        >
                            {filter.label()}
                        </a>
                    }
                })
                .collect_view()}
        </nav>
    }
}

/// One page of rows (or the empty state) and the pager.
#[component]
fn TaskTable(page: TaskPage, filter: TaskFilter, search: TaskSearch, refresh: Callback<()>) -> impl IntoView {
    let TaskPage {
        tasks,
        offset,
        has_more,
    } = page;
    let rows = if tasks.is_empty() {
        let searching = !search.text.trim().is_empty() || !search.agent_id.is_empty();
        let text = if searching {
            "No task matches this search."
        } else if filter == TaskFilter::All && offset == 0 {
            "Tasks appear here once you send a message to an agent in Chat."
        } else {
            "No task matches this filter on this page."
        };
        view! {
            <section class="empty-state">
                <h2>"No tasks"</h2>
                <p>{text}</p>
            </section>
        }
        .into_any()
    } else {
        view! {
            <ul class="task-list" aria-label="Tasks" data-keynav>
                {tasks.into_iter().map(|task| view! { <TaskRow task/> }).collect_view()}
            </ul>
        }
        .into_any()
    };
    let previous = offset.saturating_sub(TASK_PAGE_SIZE);
    view! {
        {rows}
        <nav class="pager" aria-label="Pages">
            {if offset > 0 {
                view! { <a class="button" href=narrowed_href(filter, previous, &search)>"Previous"</a> }.into_any()
            } else {
                view! { <button type="button" class="button" disabled>"Previous"</button> }.into_any()
            }}
            <button type="button" class="button" on:click=move |_| refresh.run(())>"Refresh"</button>
            {if has_more {
                view! { <a class="button" href=narrowed_href(filter, offset + TASK_PAGE_SIZE, &search)>"Next"</a> }.into_any()
            } else {
                view! { <button type="button" class="button" disabled>"Next"</button> }.into_any()
            }}
        </nav>
    }
    .into_any()
}

/// One task: title, state, short remote id, agent and last update.
#[component]
fn TaskRow(task: TaskSummary) -> impl IntoView {
    let title = if task.title.trim().is_empty() {
        "(untitled)".to_owned()
    } else {
        task.title.clone()
    };
    let agent = task.agent_name.clone().unwrap_or_else(|| task.agent_id.clone());
    view! {
        <li class="task-row" data-testid="task-row">
            <div class="task-row-main">
                <a class="task-title" href=format!("/tasks/{}", task.local_id)>{title}</a>
                <p class="task-meta">
                    {task.remote_task_id.clone().map(|id| view! { <CopyId id what="remote task id"/> " · " })}
                    {agent}
                    " · "
                    <When at=task.updated_at.clone()/>
                </p>
            </div>
            <StateChip state=task.state.clone() kind=task.kind/>
        </li>
    }
    .into_any()
}

/// Leptos 0.8 adds the submit button to a `<Form>`'s data even when it has no name (the change
/// for leptos-rs/leptos#2265), so the address ended in `&=`; the HTML form data set leaves
/// unnamed controls out, and so do we (ADR 0047).
fn drop_unnamed_submitter(data: &leptos::web_sys::FormData) {
    data.delete("");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hrefs_keep_the_defaults_out_of_the_url() {
        assert_eq!(tasks_href(TaskFilter::All, 0), "/tasks");
        assert_eq!(tasks_href(TaskFilter::NeedsInput, 0), "/tasks?filter=needs-input");
        assert_eq!(tasks_href(TaskFilter::Done, 100), "/tasks?filter=done&offset=100");
        assert_eq!(tasks_href(TaskFilter::All, 50), "/tasks?offset=50");
    }

    #[test]
    fn short_ids_cut_long_ids_only() {
        assert_eq!(short_id("abc"), "abc");
        assert_eq!(short_id("0123456789abcdef"), "01234567…");
    }
}
