//! Sends and cancels that have not settled yet, at the end of the conversation's timeline.

use leptos::prelude::*;

use super::state::ChatState;
use crate::api::tasks::{CommandAction, CommandStatus, CommandView};

/// Sends and cancels not settled yet: "Sending…" while in flight, the error once failed or
/// uncertain (the server's text says to check the task before resending). A handful at most,
/// drawn again when they change.
#[component]
pub fn PendingCommands(state: ChatState) -> impl IntoView {
    let commands = Memo::new(move |_| state.conversation.with(|c| c.commands.clone()));
    move || {
        commands
            .get()
            .into_iter()
            .map(|command| view! { <PendingBubble command/> })
            .collect_view()
    }
}

/// One unsettled command.
#[component]
fn PendingBubble(command: CommandView) -> impl IntoView {
    let cancel = command.action == CommandAction::CancelTask;
    let (class, note) = if command.in_flight() {
        let note = if cancel { "Canceling…" } else { "Sending…" };
        ("bubble user pending", note.to_owned())
    } else {
        let fallback = if command.status == CommandStatus::Uncertain {
            "Remote outcome is uncertain; check the task before sending again."
        } else {
            "The agent did not accept this."
        };
        (
            "bubble user failed",
            command.error.clone().unwrap_or_else(|| fallback.to_owned()),
        )
    };
    let text = if cancel {
        "Cancel task".to_owned()
    } else {
        command.text.clone()
    };
    view! {
        <article class=class data-testid="pending-command" data-status=command.status.as_str()>
            {(!text.is_empty()).then(|| view! { <p class="bubble-text">{text}</p> })}
            <p class="bubble-note" role=if command.in_flight() { "status" } else { "alert" }>{note}</p>
        </article>
    }
    .into_any()
}

#[cfg(all(test, feature = "ssr"))]
mod tests {
    use super::*;

    fn render(view: impl FnOnce() -> AnyView) -> String {
        let owner = Owner::new();
        owner.with(|| view().to_html())
    }

    fn command(status: CommandStatus, error: Option<&str>) -> CommandView {
        CommandView {
            id: "k".into(),
            agent_id: "a".into(),
            action: CommandAction::Send,
            message_id: "m".into(),
            status,
            error: error.map(str::to_owned),
            task_id: None,
            conversation_id: Some("c".into()),
            text: "Deploy it".into(),
            created_at: "2026-01-01T00:00:00Z".into(),
        }
    }

    #[test]
    fn unsettled_commands_show_sending_or_the_error() {
        let html =
            render(|| view! { <PendingBubble command=command(CommandStatus::Pending, None)/> }.into_any());
        assert!(
            html.contains(r#"data-testid="pending-command""#) && html.contains("Sending…"),
            "{html}"
        );
        assert!(html.contains("Deploy it"));
        let uncertain = "Remote outcome is uncertain; check the task before resending.";
        let html = render(|| {
            view! { <PendingBubble command=command(CommandStatus::Uncertain, Some(uncertain))/> }.into_any()
        });
        assert!(html.contains("failed") && html.contains(uncertain), "{html}");
    }
}
