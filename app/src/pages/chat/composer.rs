//! The composer: "Send to" chips, attached parts, the message box (Enter sends, Shift+Enter
//! starts a new line; files dropped on the composer or pasted into it are attached), Send, and
//! behind "+" the Text / Markdown toggle, attach tools and the Options panel.

use leptos::prelude::*;

use crate::components::keys::on_escape;
use crate::settings::Preferences;

use super::attach::{AttachTools, AttachmentChips};
use super::extension_controls::{ExtensionsSummary, SkillPicker};
use super::options::OptionsPanel;
use super::outgoing::{Attachment, TextFormat, accepts, build_options, message_content, preferred_format};
use super::state::ChatState;
use super::targets::{SendTarget, effective_target, send_to_choices};
use crate::api::agents::get_chat_agent;
use crate::api::extensions::get_agent_extensions;
use crate::api::idempotency::DraftKey;
use crate::api::tasks::{SendInput, SendOptions};

/// The composer's unsent state; `Copy`, shared by its parts.
#[derive(Clone, Copy)]
pub struct Draft {
    pub text: RwSignal<String>,
    pub format: RwSignal<TextFormat>,
    pub attachments: RwSignal<Vec<Attachment>>,
    next_id: StoredValue<u64>,
    /// The chosen "Send to" chip; `None` follows the default.
    pub target: RwSignal<Option<SendTarget>>,
    pub options_open: RwSignal<bool>,
    pub return_immediately: RwSignal<bool>,
    pub history_length: RwSignal<String>,
    pub accepted_output_modes: RwSignal<String>,
    pub reference_task_ids: RwSignal<String>,
    /// Why the draft cannot be sent or a part could not be attached.
    pub error: RwSignal<Option<String>>,
    /// The Settings screen's request defaults, which the Options panel starts from.
    defaults: StoredValue<Preferences>,
}

impl Draft {
    fn new() -> Draft {
        Draft {
            text: RwSignal::new(String::new()),
            format: RwSignal::new(TextFormat::Text),
            attachments: RwSignal::new(Vec::new()),
            next_id: StoredValue::new(0),
            target: RwSignal::new(None),
            options_open: RwSignal::new(false),
            return_immediately: RwSignal::new(false),
            history_length: RwSignal::new(String::new()),
            accepted_output_modes: RwSignal::new(String::new()),
            reference_task_ids: RwSignal::new(String::new()),
            error: RwSignal::new(None),
            defaults: StoredValue::new(Preferences::default()),
        }
    }

    /// Sets the Options panel to the request defaults.
    fn apply_defaults(self) {
        let Some(defaults) = self.defaults.try_get_value() else {
            return;
        };
        self.return_immediately.try_set(defaults.return_immediately);
        self.history_length
            .try_set(defaults.history_length.map(|n| n.to_string()).unwrap_or_default());
        self.accepted_output_modes
            .try_set(defaults.accepted_output_modes.join(", "));
        self.reference_task_ids.try_set(String::new());
    }

    /// Adds a part to send with the next message.
    pub fn attach(self, label: String, part: serde_json::Value) {
        let id = self.next_id.try_update_value(|n| {
            *n += 1;
            *n
        });
        self.error.try_set(None);
        self.attachments.try_update(|list| {
            list.push(Attachment {
                id: id.unwrap_or_default(),
                label,
                part,
            })
        });
    }

    /// The Options panel's values, plus Settings' extension URIs (sent on every request).
    fn options(self) -> Result<SendOptions, String> {
        let mut options = build_options(
            self.return_immediately.get_untracked(),
            &self.history_length.get_untracked(),
            &self.accepted_output_modes.get_untracked(),
            &self.reference_task_ids.get_untracked(),
        )?;
        options.extensions = self
            .defaults
            .try_with_value(crate::settings::active_extension_uris)
            .unwrap_or_default();
        Ok(options)
    }

    /// Empties the draft after a send was accepted; the text format stays as chosen.
    fn clear(self) {
        self.text.try_set(String::new());
        self.attachments.try_set(Vec::new());
        self.target.try_set(None);
        self.apply_defaults();
        self.error.try_set(None);
    }
}

/// The composer of the conversation page: the draft, its controls and the send.
#[component]
pub fn Composer(state: ChatState) -> impl IntoView {
    let draft = Draft::new();
    // Effects run in the browser only: the preferences live in localStorage.
    Effect::new(move |_| {
        draft.defaults.set_value(crate::settings::load());
        draft.apply_defaults();
    });
    let input = NodeRef::<leptos::html::Textarea>::new();
    let agent_id = state.conversation.with_untracked(|c| c.agent_id.clone());
    // The agent's name and the modes its card declares, for the format toggle, attachments and
    // the Options panel.
    // Kept in the page's state: the timeline offers its starter prompts.
    let agent = state.agent;
    {
        let agent_id = agent_id.clone();
        crate::api::load_in_browser(agent, move || get_chat_agent(agent_id.clone()));
    }
    // A starter prompt chosen in the timeline becomes the draft, ready to send or edit.
    Effect::new(move |_| {
        if let Some(text) = state.prefill.get() {
            draft.text.set(text);
            state.prefill.set(None);
            if let Some(input) = input.get_untracked() {
                let _ = input.focus();
            }
        }
    });
    // The agent's extensions, for the whole page (`ChatState::extensions`); loaded again when
    // the skill changes. Browser only: the Settings URIs live in localStorage.
    crate::api::load_in_browser(state.extensions, move || {
        let agent_id = agent_id.clone();
        let skill = state.skill.get();
        async move {
            let caller = crate::settings::active_extension_uris(&crate::settings::load());
            get_agent_extensions(agent_id, caller, skill).await
        }
    });
    let modes = Signal::derive(move || {
        agent
            .with(|c| c.as_ref().map(|c| c.default_input_modes.clone()))
            .unwrap_or_default()
    });
    let empty = move || draft.text.with(|t| t.trim().is_empty()) && draft.attachments.with(Vec::is_empty);
    // One key per draft: a retried submit of the same draft replays the stored send.
    let key = DraftKey::new();
    // A viewer reads the conversation but never sends (the server refuses it too).
    let viewer = crate::api::identity::known_viewer();
    let submit = move || {
        if state.sending.get_untracked() || viewer.get_untracked() {
            return;
        }
        let attachments = draft.attachments.get_untracked();
        let text = draft.text.get_untracked();
        let Some((text, parts)) = message_content(&text, draft.format.get_untracked(), &attachments) else {
            draft
                .error
                .set(Some("Write a message or attach something first.".into()));
            return;
        };
        let options = match draft.options() {
            Ok(options) => options,
            Err(error) => {
                draft.error.set(Some(error));
                draft.options_open.set(true);
                return;
            }
        };
        draft.error.set(None);
        let chosen = draft.target.get_untracked();
        let input = state.conversation.with_untracked(|c| {
            let task_id = effective_target(chosen.as_ref(), &c.tasks).task_id();
            SendInput {
                agent_id: c.agent_id.clone(),
                conversation_id: (!c.conversation_id.is_empty()).then(|| c.conversation_id.clone()),
                // A skill binds a new task only (reference §1.3).
                skill_id: task_id.is_none().then(|| state.skill.get_untracked()).flatten(),
                task_id,
                text,
                parts,
                options,
                metadata: None,
                idempotency_key: None,
            }
        });
        state.send(input, key, move || draft.clear());
    };
    // An agent that needs a credential it does not have: say so before anyone types (the
    // server refuses the send too, with the same words).
    let blocked = move || {
        agent.with(|a| {
            a.as_ref().and_then(|a| {
                a.credential
                    .blocked_reason()
                    .map(|reason| (a.id.clone(), a.credential.badge(), reason))
            })
        })
    };
    // A new chat is for writing: the message box takes the keyboard (browser only).
    Effect::new(move |_| {
        let new_chat = state
            .conversation
            .with_untracked(|c| c.conversation_id.is_empty());
        if let (Some(input), true) = (input.get(), new_chat) {
            // After the frame: the page is in the document by then (a route's view is built
            // before it is attached, and a detached element takes no focus).
            request_animation_frame(move || {
                let _ = input.focus();
            });
        }
    });
    let tools_open = RwSignal::new(false);
    view! {
        <section
            class="composer"
            aria-label="Composer"
            on:dragover=move |ev| ev.prevent_default()
            on:drop=move |ev| {
                #[cfg(feature = "hydrate")]
                if super::attach::attach_files(ev.data_transfer().and_then(|d| d.files()), draft) {
                    ev.prevent_default();
                }
                #[cfg(not(feature = "hydrate"))]
                let _ = ev;
            }
        >
            {move || blocked().map(|(id, badge, reason)| view! {
                <p class="credential-warning" role="status" data-testid="credential-blocked">
                    <span class="badge warning">{badge}</span>" "{reason}" "
                    <a href=format!("/agents/{id}")>"Open the agent's page"</a>
                </p>
            })}
            <SendToChips state draft/>
            <SkillPicker state new_task=Signal::derive(move || {
                state.conversation.with(|c| effective_target(draft.target.get().as_ref(), &c.tasks).task_id().is_none())
            })/>
            <AttachmentChips draft modes/>
            <label for="composer-input" class="visually-hidden">"Message"</label>
            <textarea
                id="composer-input"
                class="composer-input"
                data-testid="composer-input"
                node_ref=input
                rows="1"
                placeholder="Message the agent (Enter sends, Shift+Enter for a new line)"
                prop:value=move || draft.text.get()
                // Read-only, not disabled, while a send is out: the box keeps the keyboard.
                readonly=move || state.sending.get()
                aria-busy=move || state.sending.get().to_string()
                on:input=move |ev| draft.text.set(event_target_value(&ev))
                on:paste=move |ev| {
                    // Pasted files are attached; pasted text is typed as usual.
                    #[cfg(feature = "hydrate")]
                    if super::attach::attach_files(ev.clipboard_data().and_then(|d| d.files()), draft) {
                        ev.prevent_default();
                    }
                    #[cfg(not(feature = "hydrate"))]
                    let _ = ev;
                }
                on:keydown=move |ev| {
                    if ev.key() == "Enter" && !ev.shift_key() && !ev.is_composing() {
                        ev.prevent_default();
                        submit();
                    }
                }
            ></textarea>
            <div class="composer-bar">
                // The tools take no room until asked for (issue #32): one "+" opens them.
                <button
                    type="button"
                    class="button subtle composer-more"
                    data-testid="composer-tools-toggle"
                    aria-label="Tools: format, attachments, options"
                    aria-expanded=move || tools_open.get().to_string()
                    aria-controls="composer-tools"
                    on:click=move |_| tools_open.update(|open| *open = !*open)
                >
                    "+"
                </button>
                <span class="muted small composer-hint">"Drop or paste files to attach"</span>
                <button
                    type="button"
                    class="button primary send-button"
                    data-testid="send-button"
                    disabled=move || state.sending.get() || empty() || viewer.get()
                    title=move || viewer.get().then_some(crate::api::identity::READ_ONLY)
                    on:click=move |_| submit()
                >
                    {move || if state.sending.get() { "Sending…" } else { "Send" }}
                </button>
            </div>
            <Show when=move || tools_open.get()>
                <div
                    id="composer-tools"
                    class="composer-tools"
                    role="group"
                    aria-label="Composer tools"
                    on:keydown=on_escape(move || tools_open.set(false))
                >
                    <super::start_form::StartForm state/>
                    <FormatToggle draft modes/>
                    <AttachTools draft/>
                    <button
                        type="button"
                        class="button subtle"
                        aria-expanded=move || draft.options_open.get().to_string()
                        aria-controls="send-options"
                        on:click=move |_| draft.options_open.update(|open| *open = !*open)
                    >
                        "Options"
                    </button>
                </div>
            </Show>
            <Show when=move || viewer.get()>
                <p class="muted small" data-testid="read-only">{crate::api::identity::READ_ONLY}</p>
            </Show>
            <Show when=move || draft.options_open.get()>
                <OptionsPanel draft agent=agent.into()/>
            </Show>
            <Show when=move || tools_open.get()>
                <ExtensionsSummary state/>
            </Show>
            {move || draft.error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
            {move || state.send_error.get().map(|e| view! { <p class="error" role="alert">{format!("Not sent: {e}")}</p> })}
        </section>
    }
    .into_any()
}

/// Text / Markdown; ★ marks the format the card names first, amber when the card does not
/// accept the chosen one.
#[component]
fn FormatToggle(draft: Draft, modes: Signal<Vec<String>>) -> impl IntoView {
    let outside = move || {
        let format = draft.format.get();
        !modes.with(|m| accepts(m, format.media_type()))
    };
    view! {
        <div class="format-toggle" role="group" aria-label="Text format">
            {TextFormat::ALL
                .into_iter()
                .map(|format| {
                    let star = move || modes.with(|m| preferred_format(m) == Some(format)).then_some(" ★");
                    view! {
                        <button
                            type="button"
                            class="toggle-choice"
                            aria-pressed=move || (draft.format.get() == format).to_string()
                            on:click=move |_| draft.format.set(format)
                        >
                            {format.label()}
                            {star}
                        </button>
                    }
                })
                .collect_view()}
        </div>
        <Show when=outside>
            <span class="chip warn-chip">{move || format!("{} is not in the agent's input modes", draft.format.get().media_type())}</span>
        </Show>
    }
    .into_any()
}

/// "Reply to …" / "Follow up on …" / "+ New task" radio chips, shown once there is a task
/// to continue.
#[component]
fn SendToChips(state: ChatState, draft: Draft) -> impl IntoView {
    // A memo, so the radios are rebuilt only when the offered targets change, not on every event.
    let choices = Memo::new(move |_| state.conversation.with(|c| send_to_choices(&c.tasks)));
    let current = move || {
        state
            .conversation
            .with(|c| effective_target(draft.target.get().as_ref(), &c.tasks))
    };
    view! {
        <Show when=move || choices.with(|c| c.len() > 1)>
            <fieldset class="send-to">
                <legend>"Send to"</legend>
                {move || {
                    choices
                        .get()
                        .into_iter()
                        .map(|choice| {
                            let target = choice.target.clone();
                            let checked = {
                                let target = target.clone();
                                move || current() == target
                            };
                            let key = target.task_id().unwrap_or_else(|| "new".into());
                            view! {
                                <label class="send-to-chip" class:waiting=choice.waiting data-testid="send-to" data-target=key>
                                    <input
                                        type="radio"
                                        name="send-to"
                                        prop:checked=checked
                                        on:change=move |_| draft.target.set(Some(target.clone()))
                                    />
                                    {choice.label}
                                </label>
                            }
                        })
                        .collect_view()
                }}
            </fieldset>
        </Show>
    }
    .into_any()
}
