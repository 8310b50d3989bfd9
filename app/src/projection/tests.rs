use serde_json::{Value, json};

use super::*;
use crate::a2a::{PartContent, decode_stream_event};

fn event(value: Value) -> StreamEvent {
    decode_stream_event(&value).expect("a valid stream event").event
}

fn status(state: &str, timestamp: Option<&str>, text: Option<&str>) -> StreamEvent {
    let mut status = json!({ "state": state });
    if let Some(ts) = timestamp {
        status["timestamp"] = json!(ts);
    }
    if let Some(text) = text {
        status["message"] =
            json!({"messageId": format!("m-{text}"), "role": "ROLE_AGENT", "parts": [{"text": text}]});
    }
    event(json!({"statusUpdate": {"taskId": "t1", "contextId": "c1", "status": status}}))
}

fn chunk(text: &str, append: bool, last: bool) -> StreamEvent {
    event(
        json!({"artifactUpdate": {"taskId": "t1", "artifact": {"artifactId": "a1", "name": "report.txt",
        "parts": [{"text": text}]}, "append": append, "lastChunk": last}}),
    )
}

fn view() -> TaskView {
    TaskView {
        state: TaskState::Submitted,
        ..TaskView::default()
    }
}

#[test]
fn append_chunks_assemble_one_artifact_in_order() {
    let mut v = view();
    v.apply(1, &chunk("Chunk 1. ", false, false));
    assert!(v.artifacts[0].streaming);
    v.apply(2, &chunk("Chunk 2. ", true, false));
    v.apply(3, &chunk("Chunk 3.", true, true));
    assert_eq!(v.artifacts.len(), 1);
    let a = &v.artifacts[0];
    assert_eq!(a.parts.len(), 1, "adjacent text joins into one part");
    assert_eq!(a.parts[0].as_text(), Some("Chunk 1. Chunk 2. Chunk 3."));
    assert!(!a.streaming, "lastChunk ends the assembly");
    assert_eq!(a.chunks, 3);
}

#[test]
fn a_replacement_resets_the_assembly() {
    let mut v = view();
    v.apply(1, &chunk("old ", false, false));
    v.apply(2, &chunk("more", true, false));
    v.apply(3, &chunk("fresh", false, true));
    assert_eq!(v.artifacts[0].parts[0].as_text(), Some("fresh"));
    assert_eq!(v.artifacts[0].chunks, 1);
}

#[test]
fn a_terminal_task_never_reopens() {
    let mut v = view();
    v.apply(1, &status("TASK_STATE_WORKING", None, None));
    v.apply(2, &status("TASK_STATE_COMPLETED", None, Some("Done.")));
    v.apply(3, &status("TASK_STATE_WORKING", None, Some("late")));
    assert_eq!(v.state, TaskState::Completed);
    assert!(
        v.messages.iter().all(|m| m.message_id != "m-late"),
        "content of a reopening status is ignored"
    );
    v.apply(4, &chunk("late chunk", false, true));
    assert!(
        v.artifacts.is_empty(),
        "no artifact changes after a terminal state"
    );
    let states: Vec<_> = v.transitions.iter().map(|t| t.state.clone()).collect();
    assert_eq!(states, [TaskState::Working, TaskState::Completed]);
}

#[test]
fn older_remote_timestamps_never_overwrite_newer_state() {
    let mut v = view();
    v.apply(
        1,
        &status(
            "TASK_STATE_INPUT_REQUIRED",
            Some("2026-11-30T10:00:05Z"),
            Some("Which one?"),
        ),
    );
    v.apply(
        2,
        &status("TASK_STATE_WORKING", Some("2026-11-30T10:00:01Z"), Some("stale")),
    );
    assert_eq!(v.state, TaskState::InputRequired);
    assert_eq!(v.messages.len(), 1);
    // Untimestamped observations are ordered by sequence.
    v.apply(3, &status("TASK_STATE_WORKING", None, None));
    assert_eq!(v.state, TaskState::Working);
}

#[test]
fn events_already_folded_are_ignored_on_reconnect() {
    let mut v = view();
    assert!(v.apply(1, &chunk("a", false, false)));
    assert!(v.apply(2, &chunk("b", true, false)));
    assert!(!v.apply(2, &chunk("b", true, false)));
    assert!(!v.apply(1, &chunk("a", false, false)));
    assert_eq!(v.artifacts[0].parts[0].as_text(), Some("ab"));
}

#[test]
fn messages_deduplicate_by_id_and_the_first_user_text_is_the_title() {
    let mut v = view();
    let user = event(
        json!({"message": {"messageId": "u1", "role": "ROLE_USER", "taskId": "t1",
        "parts": [{"text": "  Deploy billing  "}]}}),
    );
    v.apply(1, &user);
    let snapshot = event(
        json!({"task": {"id": "t1", "contextId": "c9", "status": {"state": "TASK_STATE_WORKING"},
        "history": [{"messageId": "u1", "role": "ROLE_USER", "parts": [{"text": "Deploy billing"}]}],
        "artifacts": [{"artifactId": "a1", "parts": [{"text": "x"}]}]}}),
    );
    v.apply(2, &snapshot);
    assert_eq!(v.messages.len(), 1);
    assert_eq!(v.title, "Deploy billing");
    assert_eq!(v.remote_context_id.as_deref(), Some("c9"));
    assert_eq!(v.remote_task_id.as_deref(), Some("t1"));
    assert!(!v.artifacts[0].streaming);
}

#[test]
fn a_stale_snapshot_brings_no_content() {
    let mut v = view();
    v.apply(
        1,
        &status("TASK_STATE_WORKING", Some("2026-11-30T10:00:05Z"), None),
    );
    let snapshot = event(
        json!({"task": {"id": "t1", "status": {"state": "TASK_STATE_SUBMITTED",
        "timestamp": "2026-11-30T10:00:00Z"}, "artifacts": [{"artifactId": "old", "parts": [{"text": "x"}]}]}}),
    );
    v.apply(2, &snapshot);
    assert!(v.artifacts.is_empty());
    assert_eq!(v.state, TaskState::Working);
}

#[test]
fn titles_are_capped() {
    let long = "x".repeat(MAX_TITLE_CHARS + 10);
    let m = Message::user("m", vec![Part::text(long)]);
    assert_eq!(title_of(&m).map(|t| t.chars().count()), Some(MAX_TITLE_CHARS));
    assert_eq!(title_of(&Message::user("m", vec![Part::text("  ")])), None);
}

#[test]
fn append_parts_keeps_non_text_and_different_media_types_apart() {
    let mut parts = vec![Part::text("a")];
    let md = Part {
        media_type: Some("text/markdown".into()),
        ..Part::text("b")
    };
    append_parts(
        &mut parts,
        &[md.clone(), Part::data(json!({"k": 1}), None), Part::text("c")],
    );
    assert_eq!(parts.len(), 4);
    append_parts(&mut parts, &[Part::text("d")]);
    assert_eq!(parts[3].as_text(), Some("cd"));
}

#[test]
fn a_repeated_status_changes_only_the_resume_point() {
    let mut v = view();
    assert!(
        v.apply(1, &status("TASK_STATE_WORKING", None, None)),
        "a new state is a change"
    );
    let shown = v.clone();
    assert!(
        !v.apply(2, &status("TASK_STATE_WORKING", None, None)),
        "the same state again is not"
    );
    assert_eq!(v.last_sequence, 2);
    assert_eq!(
        TaskView {
            last_sequence: 1,
            ..v.clone()
        },
        shown
    );
    // A flood of WORKING updates, each stamped with its own time (the demo agent's `flood`):
    // no screen shows the state's remote timestamp, so the page does not render again for it
    // (issue #28: at 1,000 events/s that was a re-render of the conversation every frame).
    assert!(
        !v.apply(
            3,
            &status("TASK_STATE_WORKING", Some("2026-11-30T10:00:00Z"), None)
        ),
        "a new remote timestamp alone changes nothing shown"
    );
    assert_eq!(
        v.state_timestamp.as_deref(),
        Some("2026-11-30T10:00:00Z"),
        "it still orders later statuses"
    );
    assert!(
        v.apply(4, &status("TASK_STATE_WORKING", None, Some("Still going"))),
        "a status message is content"
    );
    assert!(
        !v.apply(4, &status("TASK_STATE_COMPLETED", None, None)),
        "a replay changes nothing"
    );
}

fn finished_snapshot(parts: &[&str]) -> StreamEvent {
    let parts: Vec<Value> = parts.iter().map(|p| json!({"text": p})).collect();
    event(
        json!({"task": {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_COMPLETED"},
        "artifacts": [{"artifactId": "a1", "name": "report.txt", "parts": parts}]}}),
    )
}

fn artifact_text(v: &TaskView) -> String {
    v.artifacts[0]
        .parts
        .iter()
        .filter_map(|p| match &p.content {
            PartContent::Text(t) => Some(t.as_str()),
            _ => None,
        })
        .collect()
}

/// Issue #27: the snapshot read after a task finished through a resubscription only adds the
/// tail the streams missed; one that disagrees (a2a-sdk 0.3.26 counts chunks twice) is not taken.
#[test]
fn a_finished_tasks_snapshot_only_adds_a_missing_tail() {
    let mut v = view();
    v.apply(1, &chunk("a ", false, false));
    v.apply(2, &chunk("b ", true, false));
    v.apply(3, &chunk("c ", true, true));
    v.apply(4, &status("TASK_STATE_COMPLETED", None, None));
    v.apply(5, &finished_snapshot(&["a ", "b ", "b ", "c ", "c "]));
    assert_eq!(artifact_text(&v), "a b c ", "a disagreeing snapshot is not taken");
    v.apply(6, &finished_snapshot(&["a ", "b ", "c ", "d "]));
    assert_eq!(artifact_text(&v), "a b c d ", "the missing tail is added");
    v.apply(7, &finished_snapshot(&["a ", "b ", "c ", "d "]));
    assert_eq!(artifact_text(&v), "a b c d ", "an equal snapshot adds nothing");
}
