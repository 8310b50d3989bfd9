//! The Trace panel's view: level filter, per-task groups, one row per sideband event.

use leptos::prelude::*;

use super::spans::{Span, duration_text, placement};
use super::{
    LEVEL_CHOICES, TraceFeed, TraceHistory, TraceItem, decode_history, group_visible, hidden_count,
    level_label, merge, parse_level, sideband_part_to_part,
};
use crate::components::when::When;
use crate::content::PartsView;
use crate::ext::sideband::Level;
use crate::pages::tasks::short_id;

/// What the panel says when no sideband event was decoded at all.
pub const EMPTY_TEXT: &str = "No sideband events yet. They appear when the agent advertises a sideband extension \
     this console understands (urn:agent-observability:sideband-events:v1, urn:x-a2a:trace:v1, or one listed in \
     A2A_SIDEBAND_EXTENSION_URIS).";

/// A group's heading: the task's title when known and not blank, else `Task <short id>`.
pub fn group_heading(task_id: &str, titles: &[(String, String)]) -> String {
    titles
        .iter()
        .find(|(id, _)| id == task_id)
        .map(|(_, t)| t.trim())
        .filter(|t| !t.is_empty())
        .map(str::to_owned)
        .unwrap_or_else(|| format!("Task {}", short_id(task_id)))
}

/// The hidden-events note: `1 event hidden by the filter.`, `3 events hidden by the filter.`
pub fn hidden_note(hidden: usize) -> String {
    let noun = if hidden == 1 { "event" } else { "events" };
    format!("{hidden} {noun} hidden by the filter.")
}

/// Sideband events in ledger order, grouped per task, filtered by level (debug hidden by default):
/// those of the stored `history`, loaded once the panel is shown, and those the page receives
/// live through `feed` (an event in both shows once, [`super::merge`]). `titles` pairs local task
/// ids with task titles. Decoding happens here, so a page only forwards raw ledger events.
#[component]
pub fn TracePanel(
    feed: TraceFeed,
    history: TraceHistory,
    #[prop(into)] titles: Signal<Vec<(String, String)>>,
) -> impl IntoView {
    let items = RwSignal::new(Vec::<TraceItem>::new());
    Effect::new(move |_| {
        let events = feed.take();
        let decoded = decode_history(&events);
        if !decoded.is_empty() {
            items.try_update(|items| merge(items, decoded));
        }
    });
    load_history(history, items);
    view! { <Panel items=items.into() titles/> }.into_any()
}

/// Loads the stored events once and merges their sideband events with what arrived live.
fn load_history(history: TraceHistory, items: RwSignal<Vec<TraceItem>>) {
    let TraceHistory {
        conversation_id,
        task_id,
    } = history;
    if conversation_id.is_empty() {
        return;
    }
    Effect::new(move |_| {
        let (conversation_id, task_id) = (conversation_id.clone(), task_id.clone());
        leptos::task::spawn_local(async move {
            if let Ok(stored) = crate::api::tasks::get_conversation_events(conversation_id).await {
                let stored = stored
                    .iter()
                    .filter(|e| task_id.as_ref().is_none_or(|id| e.task_id == *id));
                let decoded = decode_history(stored);
                items.try_update(|items| merge(items, decoded));
            }
        });
    });
}

/// The panel over decoded `items` (what [`TracePanel`] shows once its code has loaded).
#[component]
pub(super) fn Panel(
    items: Signal<Vec<TraceItem>>,
    titles: Signal<Vec<(String, String)>>,
    /// Open on the flat list rather than the waterfall.
    #[prop(optional)]
    list: bool,
) -> impl IntoView {
    let level = RwSignal::new(Level::Info);
    let groups = Memo::new(move |_| items.with(|i| group_visible(i, level.get())));
    let hidden = move || items.with(|i| hidden_count(i, level.get()));
    let group_ids = move || groups.with(|g| g.iter().map(|(task, _)| task.clone()).collect::<Vec<_>>());
    let group = move |task_id: String| {
        let heading = task_id.clone();
        let title = Signal::derive(move || titles.with(|t| group_heading(&heading, t)));
        let items = Signal::derive(move || {
            groups.with(|g| {
                g.iter()
                    .find(|(task, _)| *task == task_id)
                    .map(|(_, items)| items.clone())
                    .unwrap_or_default()
            })
        });
        view! { <TraceGroup title items/> }
    };
    let waterfall = RwSignal::new(!list);
    // Paired over every event (a hidden start still opens its span), then filtered by level.
    let all_spans = Memo::new(move |_| items.with(|i| super::spans::spans(i)));
    let spans = Memo::new(move |_| {
        let min = level.get();
        all_spans.with(|s| {
            s.iter()
                .filter(|span| span.level >= min)
                .cloned()
                .collect::<Vec<_>>()
        })
    });
    view! {
        <section class="trace-panel" data-testid="trace-panel" aria-label="Trace">
            <div class="trace-head">
                <h2>"Trace"</h2>
                <ViewChoice waterfall/>
                <LevelFilter level=level.into() on_change=Callback::new(move |l| level.set(l))/>
            </div>
            <Show when=move || items.with(Vec::is_empty)>
                <p class="muted small trace-empty">{EMPTY_TEXT}</p>
            </Show>
            <Show when=move || { hidden() > 0 }>
                <p class="muted small" data-testid="trace-hidden">{move || hidden_note(hidden())}</p>
            </Show>
            <Show
                when=move || waterfall.get()
                fallback=move || view! {
                    <div class="trace-groups" aria-live="polite">
                        <For each=group_ids key=|task| task.clone() children=group/>
                    </div>
                }
            >
                <Waterfall spans=spans.into() titles/>
            </Show>
        </section>
    }
    .into_any()
}

/// Waterfall or flat list: one radio group.
#[component]
fn ViewChoice(waterfall: RwSignal<bool>) -> impl IntoView {
    let choice = move |value: bool, label: &'static str| {
        view! {
            <label>
                <input
                    type="radio"
                    name="trace-view"
                    prop:checked=move || waterfall.get() == value
                    on:change=move |_| waterfall.set(value)
                />
                {label}
            </label>
        }
    };
    view! {
        <fieldset class="trace-view">
            <legend class="visually-hidden">"View"</legend>
            {choice(true, "Waterfall")}
            {choice(false, "List")}
        </fieldset>
    }
}

/// The spans as rows: label (indented by depth), a bar on the shared time axis, the duration.
#[component]
fn Waterfall(spans: Signal<Vec<Span>>, titles: Signal<Vec<(String, String)>>) -> impl IntoView {
    let extent = move || spans.with(|s| super::spans::extent(s));
    let several_tasks = move || spans.with(|s| s.iter().any(|span| span.task_id != s[0].task_id));
    let row = move |span: Span| {
        let duration = duration_text(&span);
        let label = span.label.clone();
        // The axis grows as events arrive: every bar is placed again.
        let bar = {
            let span = span.clone();
            move || {
                let (left, width) = extent().map_or((0.0, 0.0), |extent| placement(&span, extent));
                format!("left: {left:.3}%; width: {width:.3}%")
            }
        };
        let task = span.task_id.clone();
        let task_title = move || several_tasks().then(|| titles.with(|t| group_heading(&task, t)));
        view! {
            <li
                class="span-row"
                data-testid="trace-span"
                data-outcome=span.outcome.as_str()
                data-level=span.level.as_str()
                style=format!("--depth: {}", span.depth)
            >
                <span class="span-label">
                    {label}
                    {move || task_title().map(|title| view! { <span class="muted small">" · " {title}</span> })}
                </span>
                <span class="span-track" aria-hidden="true">
                    <span class="span-bar" style=bar></span>
                </span>
                <span class="span-duration">{duration}</span>
            </li>
        }
    };
    view! {
        <Show when=move || spans.with(|s| !s.is_empty())>
            <p class="muted small trace-extent">
                {move || extent().map(|(start, end)| format!("{} from the first event to the last.", span_length(end - start)))}
            </p>
            <ol class="trace-waterfall" aria-label="Waterfall" aria-live="polite">
                <For each=move || spans.get() key=|span| (span.key.clone(), span.end, span.outcome.as_str()) children=row/>
            </ol>
        </Show>
    }
}

/// A length of time in the waterfall's words.
fn span_length(ms: i64) -> String {
    let span = Span {
        key: (0, String::new()),
        task_id: String::new(),
        label: String::new(),
        start: 0,
        end: Some(ms),
        outcome: super::spans::Outcome::Done,
        depth: 0,
        level: Level::Info,
    };
    duration_text(&span)
}

/// The "Show:" level `<select>`.
#[component]
fn LevelFilter(level: Signal<Level>, on_change: Callback<Level>) -> impl IntoView {
    view! {
        <label class="trace-filter">
            "Show: "
            <select data-testid="trace-level" on:change=move |ev| on_change.run(parse_level(&event_target_value(&ev)))>
                {LEVEL_CHOICES
                    .iter()
                    .map(|&(choice, label)| {
                        view! { <option value=choice.as_str() selected=move || level.get() == choice>{label}</option> }
                    })
                    .collect_view()}
            </select>
        </label>
    }
    .into_any()
}

/// One task's events under its heading.
#[component]
fn TraceGroup(title: Signal<String>, items: Signal<Vec<TraceItem>>) -> impl IntoView {
    view! {
        <section class="trace-group" data-testid="trace-group" aria-label=move || title.get()>
            <h3 class="trace-group-title">{move || title.get()}</h3>
            <ol class="trace-list">
                <For each=move || items.get() key=TraceItem::key children=|item| view! { <TraceEventRow item/> }/>
            </ol>
        </section>
    }
    .into_any()
}

/// One event: level badge, title, type, time and its parts.
#[component]
fn TraceEventRow(item: TraceItem) -> impl IntoView {
    let event = item.event;
    let level = event.level;
    let parts: Vec<_> = event.parts.iter().map(sideband_part_to_part).collect();
    view! {
        <li class="trace-event" data-testid="trace-event" data-level=level.as_str()>
            <p class="trace-event-head">
                <span class="trace-badge" data-level=level.as_str()>{level_label(level)}</span>
                " "
                <strong class="trace-title">{event.title}</strong>
            </p>
            <p class="trace-meta" title=event.extension_uri>
                <code class="trace-type">{event.event_type}</code>
                " · "
                <When at=event.timestamp/>
            </p>
            {(!parts.is_empty()).then(|| view! { <PartsView parts/> })}
        </li>
    }
    .into_any()
}
