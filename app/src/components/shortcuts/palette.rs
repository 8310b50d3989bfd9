//! The command palette (Ctrl/Cmd-K): type to filter, ↑/↓ to choose, Enter to go, Escape to
//! close. It offers every screen, the recent conversations, and a new chat with each agent
//! talked to recently (from the stored conversations: opening it calls no agent).

use leptos::prelude::*;
use leptos_router::hooks::use_navigate;

use crate::api::tasks::{ConversationSummary, list_conversations};
use crate::components::dialog::Dialog;
use crate::components::nav::NAV_ITEMS;
use crate::live::encode_segment;
use crate::pages::task_detail::display_title;

/// At most this many entries are listed at once.
const SHOWN: usize = 12;

/// One thing the palette can do: go to `href`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub label: String,
    /// What kind of place it is ("Screen", "Conversation", "New chat").
    pub kind: &'static str,
    pub href: String,
}

/// The screens, then the recent conversations, then a new chat with each of their agents.
pub fn entries(conversations: &[ConversationSummary]) -> Vec<Entry> {
    let mut entries: Vec<Entry> = NAV_ITEMS
        .iter()
        .map(|item| Entry {
            label: format!("Go to {}", item.label),
            kind: "Screen",
            href: item.href.to_owned(),
        })
        .collect();
    let name = |c: &ConversationSummary| c.agent_name.clone().unwrap_or_else(|| c.agent_id.clone());
    entries.extend(conversations.iter().map(|c| Entry {
        label: format!("{} — {}", name(c), display_title(&c.title)),
        kind: "Conversation",
        href: format!("/chat/{}", c.conversation_id),
    }));
    let mut agents: Vec<(String, String)> = Vec::new();
    for c in conversations {
        if !agents.iter().any(|(id, _)| *id == c.agent_id) {
            agents.push((c.agent_id.clone(), name(c)));
        }
    }
    entries.extend(agents.into_iter().map(|(id, name)| Entry {
        label: format!("New chat with {name}"),
        kind: "New chat",
        href: format!("/chat/new?agent={}", encode_segment(&id)),
    }));
    entries
}

/// The entries whose label holds every word of `query` (any case), in their order.
pub fn matching(entries: &[Entry], query: &str) -> Vec<Entry> {
    let words: Vec<String> = query.split_whitespace().map(str::to_lowercase).collect();
    entries
        .iter()
        .filter(|e| {
            let label = e.label.to_lowercase();
            words.iter().all(|w| label.contains(w.as_str()))
        })
        .take(SHOWN)
        .cloned()
        .collect()
}

/// The palette: a modal combobox over the entries.
#[component]
pub fn CommandPalette(open: RwSignal<bool>) -> impl IntoView {
    let query = RwSignal::new(String::new());
    let chosen = RwSignal::new(0_usize);
    let conversations = crate::api::browser_value(list_conversations);
    let all = Memo::new(move |_| conversations.with(|c| entries(c.as_deref().unwrap_or_default())));
    let shown = Memo::new(move |_| query.with(|q| all.with(|all| matching(all, q))));
    let navigate = use_navigate();
    let go = move |index: usize| {
        if let Some(entry) = shown.with_untracked(|s| s.get(index).cloned()) {
            open.set(false);
            navigate(&entry.href, Default::default());
        }
    };
    let go = StoredValue::new(go);
    let input = NodeRef::<leptos::html::Input>::new();
    Effect::new(move |_| {
        if let Some(input) = input.get() {
            let _ = input.focus();
        }
    });
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        let count = shown.with_untracked(Vec::len);
        match ev.key().as_str() {
            "ArrowDown" if count > 0 => {
                ev.prevent_default();
                chosen.update(|c| *c = (*c + 1) % count);
            }
            "ArrowUp" if count > 0 => {
                ev.prevent_default();
                chosen.update(|c| *c = (*c + count - 1) % count);
            }
            "Enter" => {
                ev.prevent_default();
                go.with_value(|go| go(chosen.get_untracked()));
            }
            _ => {}
        }
    };
    view! {
        <Dialog open class="palette" label="Command palette">
            <input
                type="text"
                class="palette-input"
                role="combobox"
                aria-label="Go to"
                aria-expanded="true"
                aria-controls="palette-list"
                aria-activedescendant=move || format!("palette-{}", chosen.get())
                placeholder="Go to a screen or a conversation…"
                autocomplete="off"
                node_ref=input
                prop:value=query
                on:input=move |ev| {
                    query.set(event_target_value(&ev));
                    chosen.set(0);
                }
                on:keydown=on_key
            />
            <ul id="palette-list" class="palette-list" role="listbox" aria-label="Places">
                {move || {
                    shown
                        .get()
                        .into_iter()
                        .enumerate()
                        .map(|(index, entry)| {
                            view! {
                                <li
                                    id=format!("palette-{index}")
                                    role="option"
                                    class="palette-entry"
                                    aria-selected=move || (chosen.get() == index).to_string()
                                    on:click=move |_| go.with_value(|go| go(index))
                                >
                                    <span>{entry.label}</span>
                                    <span class="muted small">{entry.kind}</span>
                                </li>
                            }
                        })
                        .collect_view()
                }}
            </ul>
            {move || shown.with(Vec::is_empty).then(|| view! { <p class="muted">"Nothing matches."</p> })}
        </Dialog>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::a2a::TaskState;

    fn conversation(id: &str, agent: &str, title: &str) -> ConversationSummary {
        ConversationSummary {
            conversation_id: id.into(),
            agent_id: agent.into(),
            agent_name: Some(format!("Agent {agent}")),
            title: title.into(),
            task_count: 1,
            state: TaskState::Completed,
            updated_at: "2026-12-05T10:00:00Z".into(),
        }
    }

    #[test]
    fn screens_conversations_and_a_new_chat_per_agent() {
        let list = entries(&[
            conversation("c1", "a", "deploy billing"),
            conversation("c2", "a", "roll back"),
            conversation("c3", "b/x", "report"),
        ]);
        assert_eq!(
            list.iter().filter(|e| e.kind == "Screen").count(),
            NAV_ITEMS.len()
        );
        let chats: Vec<_> = list
            .iter()
            .filter(|e| e.kind == "New chat")
            .map(|e| e.href.as_str())
            .collect();
        assert_eq!(chats, ["/chat/new?agent=a", "/chat/new?agent=b%2Fx"]);
        let found = matching(&list, "  AGENT a   billing ");
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].href, "/chat/c1");
        assert_eq!(found[0].label, "Agent a — deploy billing");
        assert_eq!(matching(&list, "tasks")[0].href, "/tasks");
        assert!(matching(&list, "nothing like it").is_empty());
        assert_eq!(matching(&list, "").len(), SHOWN);
    }
}
