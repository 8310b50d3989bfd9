//! Attaching parts in the composer: a file read in the browser (base64 `raw`, at most 10 MiB),
//! a file URL, or JSON data; and the removable chips of what is attached, flagged amber when
//! the agent's card does not list the part's media type among its input modes.

use leptos::prelude::*;

use super::composer::Draft;
use super::outgoing::{accepts, data_part, part_media_type, url_part};

/// The inline forms of the attach tools.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tool {
    Url,
    Json,
}

/// "Attach file", "File URL" and "JSON data".
#[component]
pub fn AttachTools(draft: Draft) -> impl IntoView {
    let open = RwSignal::new(None::<Tool>);
    let file_input = NodeRef::<leptos::html::Input>::new();
    let toggle = move |tool: Tool| open.update(|o| *o = if *o == Some(tool) { None } else { Some(tool) });
    let close = Callback::new(move |()| open.set(None));
    view! {
        <div class="attach-tools" role="group" aria-label="Attach">
            <input
                type="file"
                class="visually-hidden"
                tabindex="-1"
                aria-hidden="true"
                node_ref=file_input
                on:change=move |ev| {
                    read_chosen_file(ev, move |result| match result {
                        Ok((label, part)) => draft.attach(label, part),
                        Err(error) => {
                            draft.error.try_set(Some(error));
                        }
                    })
                }
            />
            <button
                type="button"
                class="button subtle"
                on:click=move |_| {
                    if let Some(input) = file_input.get() {
                        input.click();
                    }
                }
            >
                "Attach file"
            </button>
            <button
                type="button"
                class="button subtle"
                aria-expanded=move || (open.get() == Some(Tool::Url)).to_string()
                on:click=move |_| toggle(Tool::Url)
            >
                "File URL"
            </button>
            <button
                type="button"
                class="button subtle"
                aria-expanded=move || (open.get() == Some(Tool::Json)).to_string()
                on:click=move |_| toggle(Tool::Json)
            >
                "JSON data"
            </button>
        </div>
        {move || match open.get() {
            Some(tool) => tool_form(tool, draft, close).into_any(),
            None => ().into_any(),
        }}
    }
    .into_any()
}

/// The URL or JSON form.
fn tool_form(tool: Tool, draft: Draft, close: Callback<()>) -> AnyView {
    match tool {
        Tool::Url => view! { <UrlForm draft close/> }.into_any(),
        Tool::Json => view! { <JsonForm draft close/> }.into_any(),
    }
}

/// A file by URL, with an optional media type.
#[component]
fn UrlForm(draft: Draft, close: Callback<()>) -> impl IntoView {
    let url = RwSignal::new(String::new());
    let media_type = RwSignal::new(String::new());
    let error = RwSignal::new(None::<String>);
    let add = move |_| match url_part(&url.get_untracked(), &media_type.get_untracked()) {
        Ok(part) => {
            draft.attach(url.get_untracked().trim().to_owned(), part);
            close.run(());
        }
        Err(e) => error.set(Some(e)),
    };
    view! {
        <div class="attach-form">
            <label for="attach-url">"File URL"</label>
            <input id="attach-url" type="url" placeholder="https://…" prop:value=url on:input=move |ev| url.set(event_target_value(&ev))/>
            <label for="attach-url-type">"Media type (optional)"</label>
            <input
                id="attach-url-type"
                type="text"
                placeholder="application/pdf"
                prop:value=media_type
                on:input=move |ev| media_type.set(event_target_value(&ev))
            />
            <button type="button" class="button" on:click=add>"Add URL"</button>
            {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
        </div>
    }
    .into_any()
}

/// JSON data; it must parse before it can be added.
#[component]
fn JsonForm(draft: Draft, close: Callback<()>) -> impl IntoView {
    let text = RwSignal::new(String::new());
    let error = RwSignal::new(None::<String>);
    let add = move |_| match data_part(&text.get_untracked()) {
        Ok(part) => {
            draft.attach("JSON data".into(), part);
            close.run(());
        }
        Err(e) => error.set(Some(e)),
    };
    view! {
        <div class="attach-form">
            <label for="attach-json">"JSON data"</label>
            <textarea
                id="attach-json"
                class="mono"
                rows="4"
                placeholder="{\"key\": \"value\"}"
                prop:value=text
                on:input=move |ev| text.set(event_target_value(&ev))
            ></textarea>
            <button type="button" class="button" on:click=add>"Add JSON"</button>
            {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
        </div>
    }
    .into_any()
}

/// What is attached, each removable; amber when outside the card's input modes.
#[component]
pub fn AttachmentChips(draft: Draft, modes: Signal<Vec<String>>) -> impl IntoView {
    view! {
        <Show when=move || draft.attachments.with(|a| !a.is_empty())>
            {attachment_chips(draft, modes)}
        </Show>
    }
}

fn attachment_chips(draft: Draft, modes: Signal<Vec<String>>) -> AnyView {
    view! { <Chips draft modes/> }.into_any()
}

#[component]
fn Chips(draft: Draft, modes: Signal<Vec<String>>) -> impl IntoView {
    view! {
        <Show when=move || draft.attachments.with(|a| !a.is_empty())>
            <ul class="attachment-chips" aria-label="Attached parts">
                <For
                    each=move || draft.attachments.get()
                    key=|a| a.id
                    children=move |attachment| {
                        let media = part_media_type(&attachment.part);
                        let shown = media.clone();
                        let outside = move || media.as_deref().is_some_and(|m| !modes.with(|modes| accepts(modes, m)));
                        let id = attachment.id;
                        let label = attachment.label.clone();
                        view! {
                            <li class="attachment-chip" class:warn=outside.clone()>
                                <span class="attachment-label">{attachment.label}</span>
                                {shown.map(|m| view! { <span class="muted small">{m}</span> })}
                                <Show when=outside.clone()>
                                    <span class="warn-note">"not in the agent's input modes"</span>
                                </Show>
                                <button
                                    type="button"
                                    class="chip-remove"
                                    aria-label=format!("Remove {label}")
                                    on:click=move |_| draft.attachments.update(|list| list.retain(|a| a.id != id))
                                >
                                    "×"
                                </button>
                            </li>
                        }
                    }
                />
            </ul>
        </Show>
    }
    .into_any()
}

/// Reads the file chosen in a file input as base64 and hands back its chip label and part.
#[cfg(feature = "hydrate")]
fn read_chosen_file(
    event: leptos::ev::Event,
    on_done: impl FnOnce(Result<(String, serde_json::Value), String>) + 'static,
) {
    use wasm_bindgen::JsCast;

    let Some(input) = event
        .target()
        .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
    else {
        return;
    };
    let Some(file) = input.files().and_then(|files| files.get(0)) else {
        return;
    };
    // Clearing the input lets the same file be chosen again; the File object stays readable.
    input.set_value("");
    read_file(file, on_done);
}

/// Attaches every file of a drop or a paste to the draft (issue #32: files by drag-and-drop
/// and paste); returns whether there were files.
#[cfg(feature = "hydrate")]
pub fn attach_files(files: Option<web_sys::FileList>, draft: Draft) -> bool {
    let Some(files) = files.filter(|f| f.length() > 0) else {
        return false;
    };
    for index in 0..files.length() {
        if let Some(file) = files.get(index) {
            read_file(file, move |result| match result {
                Ok((label, part)) => draft.attach(label, part),
                Err(error) => {
                    draft.error.try_set(Some(error));
                }
            });
        }
    }
    true
}

/// Reads `file` as base64 (within the size limit) and hands back its chip label and part.
#[cfg(feature = "hydrate")]
fn read_file(
    file: web_sys::File,
    on_done: impl FnOnce(Result<(String, serde_json::Value), String>) + 'static,
) {
    use wasm_bindgen::JsCast;
    use wasm_bindgen::closure::Closure;

    use super::outgoing::{base64_of_data_url, check_file_size, file_part};

    let name = file.name();
    if let Err(error) = check_file_size(&name, file.size()) {
        on_done(Err(error));
        return;
    }
    let Ok(reader) = web_sys::FileReader::new() else {
        on_done(Err("This browser cannot read files.".into()));
        return;
    };
    let media_type = file.type_();
    let result_reader = reader.clone();
    let on_load_end = Closure::once_into_js(move |_: web_sys::Event| {
        let data_url = result_reader.result().ok().and_then(|v| v.as_string());
        match data_url.as_deref().and_then(base64_of_data_url) {
            Some(base64) => on_done(Ok((name.clone(), file_part(base64, &name, &media_type)))),
            None => on_done(Err(format!("{name} could not be read."))),
        }
    });
    reader.set_onloadend(Some(on_load_end.unchecked_ref()));
    // A failure to start reading leaves the draft as it was; there is nothing to attach.
    let _ = reader.read_as_data_url(&file);
}

/// Files are read in the browser only.
#[cfg(not(feature = "hydrate"))]
fn read_chosen_file(
    event: leptos::ev::Event,
    on_done: impl FnOnce(Result<(String, serde_json::Value), String>) + 'static,
) {
    let _ = (event, on_done);
}
