//! The Wire panel's HTTP inspector (issue #32): each request the workers made to the
//! conversation's agent and what came back (method, operation, URL, status, time to the
//! response head, headers both ways with secrets replaced), beside the stored events; a filter
//! by kind and "Copy as JSON" of what the filter shows.

use leptos::prelude::*;
use serde_json::{Value, json};

use super::wire::WireEntry;
use crate::api::tasks::WireExchange;
use crate::components::when::When;

/// What the Wire panel shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WireFilter {
    All,
    /// Ledger events received.
    Events,
    /// Commands this page sent.
    Sent,
    /// HTTP exchanges with the agent.
    Http,
}

impl WireFilter {
    pub const ALL: [WireFilter; 4] = [
        WireFilter::All,
        WireFilter::Events,
        WireFilter::Sent,
        WireFilter::Http,
    ];

    /// The panel's `data-show` value (the stylesheet hides the other kinds).
    pub fn key(self) -> &'static str {
        match self {
            WireFilter::All => "all",
            WireFilter::Events => "events",
            WireFilter::Sent => "sent",
            WireFilter::Http => "http",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            WireFilter::All => "All",
            WireFilter::Events => "Events",
            WireFilter::Sent => "Sent",
            WireFilter::Http => "HTTP",
        }
    }

    fn shows_entry(self, entry: &WireEntry) -> bool {
        matches!(
            (self, entry),
            (WireFilter::All, _)
                | (WireFilter::Events, WireEntry::Received { .. })
                | (WireFilter::Sent, WireEntry::Sent { .. })
        )
    }

    fn shows_http(self) -> bool {
        matches!(self, WireFilter::All | WireFilter::Http)
    }
}

/// What "Copy as JSON" copies: the entries and exchanges `filter` shows, in the panel's order,
/// each with its `kind`. `json_of` gives an entry's JSON as the panel shows it (obscured A2UI
/// values masked).
pub fn copy_json(
    filter: WireFilter,
    entries: &[WireEntry],
    exchanges: &[WireExchange],
    json_of: &dyn Fn(&WireEntry) -> Value,
) -> String {
    let mut out = Vec::new();
    if filter.shows_http() {
        out.extend(exchanges.iter().map(|exchange| {
            let mut value = serde_json::to_value(exchange).unwrap_or(Value::Null);
            if let Some(object) = value.as_object_mut() {
                object.insert("kind".into(), "http".into());
            }
            value
        }));
    }
    for entry in entries.iter().filter(|entry| filter.shows_entry(entry)) {
        out.push(match entry {
            WireEntry::Received {
                sequence,
                source,
                task_id,
                check,
                ..
            } => json!({
                "kind": "event",
                "sequence": sequence,
                "source": source,
                "taskId": task_id,
                "check": match check { Ok(kind) => json!({"ok": kind}), Err(error) => json!({"error": error}) },
                "payload": json_of(entry),
            }),
            WireEntry::Sent { action, .. } => json!({
                "kind": "sent",
                "action": action,
                "body": json_of(entry),
            }),
        });
    }
    serde_json::to_string_pretty(&Value::Array(out)).unwrap_or_default()
}

/// `POST SendStreamingMessage · 200 · 34 ms`, or the reason when no answer came.
pub fn exchange_summary(exchange: &WireExchange) -> String {
    let outcome = match (exchange.status, &exchange.error) {
        (Some(status), _) => status.to_string(),
        (None, Some(error)) => error.clone(),
        (None, None) => "no answer".to_owned(),
    };
    format!(
        "{} {} · {} · {} ms",
        exchange.method, exchange.operation, outcome, exchange.latency_ms
    )
}

/// The list of exchanges, newest last; each opens to its URL and headers.
#[component]
pub fn HttpExchanges(#[prop(into)] exchanges: Signal<Vec<WireExchange>>) -> impl IntoView {
    view! {
        <section class="wire-http" aria-label="HTTP exchanges">
            <h3>"HTTP"</h3>
            <Show
                when=move || exchanges.with(|list| !list.is_empty())
                fallback=|| view! { <p class="muted small">"No HTTP exchange with the agent yet."</p> }
            >
                <ol class="wire-http-list">
                    <For each=move || exchanges.get() key=|exchange| exchange.id.clone() let:exchange>
                        <ExchangeLine exchange/>
                    </For>
                </ol>
            </Show>
        </section>
    }
}

#[component]
fn ExchangeLine(exchange: WireExchange) -> impl IntoView {
    let ok = exchange.status.is_some_and(|status| (200..300).contains(&status));
    let summary = exchange_summary(&exchange);
    let time = exchange.started_at.clone();
    view! {
        <li class="wire-entry" data-testid="wire-http" data-direction="http" data-ok=ok.to_string()>
            <p class="wire-head">"⇄ " {summary}</p>
            <details>
                <summary>{exchange.url.clone()}</summary>
                <p class="muted small">"Started " <When at=time/></p>
                <Headers title="Request headers" headers=exchange.request_headers/>
                <Headers title="Response headers" headers=exchange.response_headers/>
            </details>
        </li>
    }
}

#[component]
fn Headers(title: &'static str, headers: Vec<(String, String)>) -> impl IntoView {
    view! {
        <p class="wire-headers-title">{title}</p>
        {if headers.is_empty() {
            view! { <p class="muted small">"None."</p> }.into_any()
        } else {
            view! {
                <dl class="wire-headers">
                    {headers
                        .into_iter()
                        .map(|(name, value)| view! { <dt>{name}</dt><dd>{value}</dd> })
                        .collect_view()}
                </dl>
            }
            .into_any()
        }}
    }
}

/// How often an open panel reads the exchanges again.
#[cfg(feature = "hydrate")]
const REFRESH: std::time::Duration = std::time::Duration::from_secs(2);

/// Keeps `exchanges` read from the server while the panel is open: at once, then every
/// [`REFRESH`] (one read at a time; none before the conversation has an id).
pub fn keep_loaded(conversation_id: Signal<String>, exchanges: RwSignal<Vec<WireExchange>>) {
    #[cfg(feature = "hydrate")]
    {
        let busy = StoredValue::new(false);
        let load = move || {
            let id = conversation_id.get_untracked();
            if id.is_empty() || busy.get_value() {
                return;
            }
            busy.set_value(true);
            leptos::task::spawn_local(async move {
                let asked = id.clone();
                // Applied only while the page still shows that conversation.
                if let Ok(list) = crate::api::tasks::get_conversation_exchanges(id).await
                    && conversation_id.try_get_untracked().as_ref() == Some(&asked)
                    && exchanges.with_untracked(|old| *old != list)
                {
                    exchanges.try_set(list);
                }
                busy.try_update_value(|busy| *busy = false);
            });
        };
        // Another conversation: its list starts empty and is read at once.
        Effect::new(move |previous: Option<String>| {
            let id = conversation_id.get();
            if previous.is_some_and(|previous| previous != id) {
                exchanges.set(Vec::new());
            }
            load();
            id
        });
        if let Ok(handle) = set_interval_with_handle(load, REFRESH) {
            on_cleanup(move || handle.clear());
        }
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = (conversation_id, exchanges);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exchange(status: Option<u16>, error: Option<&str>) -> WireExchange {
        WireExchange {
            id: "x1".into(),
            task_id: Some("t".into()),
            operation: "SendStreamingMessage".into(),
            method: "POST".into(),
            url: "http://agent.test/a2a".into(),
            status,
            latency_ms: 34,
            error: error.map(str::to_owned),
            request_headers: vec![("authorization".into(), "[redacted]".into())],
            response_headers: Vec::new(),
            started_at: "2026-12-05T10:00:00.000Z".into(),
        }
    }

    #[test]
    fn an_exchange_reads_as_method_operation_status_and_latency() {
        assert_eq!(
            exchange_summary(&exchange(Some(200), None)),
            "POST SendStreamingMessage · 200 · 34 ms"
        );
        assert_eq!(
            exchange_summary(&exchange(None, Some("The agent did not answer within 60 s."))),
            "POST SendStreamingMessage · The agent did not answer within 60 s. · 34 ms"
        );
    }

    #[test]
    fn copy_as_json_copies_what_the_filter_shows() {
        let entries = [
            WireEntry::Sent {
                action: "SendMessage",
                body: json!({"text": "hi"}),
            },
            WireEntry::Received {
                sequence: 4,
                source: "stream".into(),
                task_id: "t".into(),
                payload: json!({"message": {}}),
                check: Ok("Message".into()),
            },
        ];
        let exchanges = [exchange(Some(200), None)];
        let json_of = |entry: &WireEntry| match entry {
            WireEntry::Sent { body, .. } => body.clone(),
            WireEntry::Received { payload, .. } => payload.clone(),
        };
        let kinds = |filter| -> Vec<String> {
            let copied: Value =
                serde_json::from_str(&copy_json(filter, &entries, &exchanges, &json_of)).unwrap();
            copied
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v["kind"].as_str().unwrap().to_owned())
                .collect()
        };
        assert_eq!(kinds(WireFilter::All), ["http", "sent", "event"]);
        assert_eq!(kinds(WireFilter::Events), ["event"]);
        assert_eq!(kinds(WireFilter::Sent), ["sent"]);
        assert_eq!(kinds(WireFilter::Http), ["http"]);
        let all: Value =
            serde_json::from_str(&copy_json(WireFilter::All, &entries, &exchanges, &json_of)).unwrap();
        assert_eq!(all[0]["status"], 200);
        assert_eq!(
            all[0]["requestHeaders"][0],
            json!(["authorization", "[redacted]"])
        );
        assert_eq!(all[1]["body"], json!({"text": "hi"}));
        assert_eq!(all[2]["check"], json!({"ok": "Message"}));
        assert_eq!(all[2]["payload"], json!({"message": {}}));
    }
}
