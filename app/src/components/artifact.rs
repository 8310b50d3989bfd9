//! One artifact as the task detail page and the Chat timeline show it: name, description,
//! a "streaming" flag and caret while it grows, and its parts (archived files get their
//! Download link from the content renderer).

use leptos::prelude::*;

use crate::content::PartsView;
use crate::projection::ArtifactView;

/// An artifact card; `streaming` is the artifact's flag while its task is still active.
#[component]
pub fn ArtifactCard(artifact: ArtifactView, streaming: bool) -> impl IntoView {
    let name = artifact
        .name
        .clone()
        .unwrap_or_else(|| artifact.artifact_id.clone());
    view! {
        <article class="artifact" data-testid="artifact" data-streaming=streaming.to_string()>
            <header class="artifact-head">
                <strong>{name}</strong>
                {streaming.then(|| view! { <span class="streaming-flag">"streaming"</span> })}
            </header>
            {artifact.description.clone().map(|d| view! { <p class="muted">{d}</p> })}
            <PartsView parts=artifact.parts/>
            {streaming.then(|| view! { <span class="caret" aria-hidden="true"></span> })}
        </article>
    }
    .into_any()
}
