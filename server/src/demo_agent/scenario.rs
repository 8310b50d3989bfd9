//! What each variant does with a message: a script of updates and pauses for the runner.
//! Scenarios are pure: they read the incoming message and return steps, nothing else.

pub(crate) mod a2ui;
pub(crate) mod approvals;
pub(crate) mod files;
pub(crate) mod fixtures;
pub(crate) mod flood;
pub(crate) mod forms;
pub(crate) mod locked;
pub(crate) mod skills;
pub(crate) mod slow;
pub(crate) mod trace;

use super::runner::Step;
use super::variant::Variant;
use super::wire::Incoming;

/// The script `variant` plays in answer to `incoming`.
pub(crate) fn plan(variant: Variant, incoming: &Incoming) -> Vec<Step> {
    match variant {
        Variant::Trace => trace::plan(incoming),
        Variant::Skills => skills::plan(incoming),
        Variant::Slow => slow::plan(incoming),
        Variant::Files => files::plan(incoming),
        Variant::Flood => flood::plan(incoming),
        Variant::ApiKey | Variant::Bearer | Variant::OAuth | Variant::Mtls => {
            // `lock` is Some for exactly these variants.
            variant
                .lock()
                .map_or_else(Vec::new, |lock| locked::plan(lock, incoming))
        }
        Variant::Showcase
        | Variant::Form
        | Variant::Approver
        | Variant::A2ui
        | Variant::Plain
        | Variant::Invalid
        | Variant::Rogue
        | Variant::Unknown
        | Variant::Legacy => fixtures::plan(variant, incoming),
        Variant::Signed | Variant::Forged => vec![Step::Do(super::wire::Update::say(
            app::a2a::TaskState::Completed,
            format!("A signed agent received: \"{}\".", incoming.text.trim()),
        ))],
    }
}
