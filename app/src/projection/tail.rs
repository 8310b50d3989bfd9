//! What a finished task's snapshot may still add to an artifact (issue #27).
//!
//! Once a task is finished its artifacts are not rewritten: a later snapshot (the `GetTask`
//! the console reads when a task finished through a stream that had been interrupted) only
//! adds the tail the console missed, when what it holds is a strict prefix of the snapshot.
//! A snapshot that disagrees with what the streams delivered is not taken: some agents report
//! appended chunks twice in their own store after a resubscription (a2a-sdk 0.3.26), while the
//! streams themselves were right. A tail that only repeats the end of the held text is taken
//! for such a doubling too (a chunk the streams missed that repeats the one before it is the
//! price).

use super::append_parts;
use crate::a2a::{Part, PartContent};

/// The parts to append to `held` (an artifact's parts as folded so far) so that it reads as
/// `snapshot`, when `held` is a strict prefix of it; `None` when they are equal or disagree.
/// Both sides are compared as folded (adjacent text of the same kind joined), so chunk
/// boundaries do not matter.
pub fn missing_tail(held: &[Part], snapshot: &[Part]) -> Option<Vec<Part>> {
    let (held, snapshot) = (joined(held), joined(snapshot));
    let last = held.len().checked_sub(1);
    if held.len() > snapshot.len() || held[..last.unwrap_or(0)] != snapshot[..last.unwrap_or(0)] {
        return None;
    }
    let mut tail = Vec::new();
    if let Some(last) = last {
        let (mine, theirs) = (&held[last], &snapshot[last]);
        if mine != theirs {
            let rest = text_rest(mine, theirs)?;
            tail.push(Part {
                content: PartContent::Text(rest),
                ..theirs.clone()
            });
        }
    }
    tail.extend(snapshot[held.len()..].iter().cloned());
    if tail.is_empty() || repeats_the_end(&held, &tail) {
        return None;
    }
    Some(tail)
}

/// A text tail that only repeats what the held text ends with: the shape of a store that
/// applied the last chunks twice (a2a-sdk 0.3.26), not of a chunk the streams missed.
fn repeats_the_end(held: &[Part], tail: &[Part]) -> bool {
    let text = |parts: &[Part]| -> Option<String> {
        parts
            .iter()
            .map(|p| match &p.content {
                PartContent::Text(t) => Some(t.as_str()),
                _ => None,
            })
            .collect()
    };
    matches!((text(held), text(tail)), (Some(held), Some(tail)) if held.ends_with(&tail))
}

fn joined(parts: &[Part]) -> Vec<Part> {
    let mut joined = Vec::with_capacity(parts.len());
    append_parts(&mut joined, parts);
    joined
}

/// What `theirs` has after `mine`, when both are the same kind of text part and `mine`'s text
/// starts it.
fn text_rest(mine: &Part, theirs: &Part) -> Option<String> {
    let (PartContent::Text(short), PartContent::Text(long)) = (&mine.content, &theirs.content) else {
        return None;
    };
    let same_kind = Part {
        content: PartContent::Text(String::new()),
        ..mine.clone()
    } == Part {
        content: PartContent::Text(String::new()),
        ..theirs.clone()
    };
    let rest = long.strip_prefix(short.as_str())?;
    (same_kind && !rest.is_empty()).then(|| rest.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(texts: &[&str]) -> Vec<Part> {
        texts.iter().map(|t| Part::text(*t)).collect()
    }

    fn text_of(parts: &[Part]) -> String {
        joined(parts)
            .iter()
            .map(|p| match &p.content {
                PartContent::Text(t) => t.clone(),
                _ => "<part>".into(),
            })
            .collect()
    }

    #[test]
    fn a_missing_tail_is_what_the_snapshot_has_after_the_held_text() {
        let tail = missing_tail(
            &texts(&["part-1 part-2 "]),
            &texts(&["part-1 ", "part-2 ", "part-3 "]),
        );
        assert_eq!(tail.as_deref().map(text_of), Some("part-3 ".into()));
    }

    #[test]
    fn an_equal_snapshot_adds_nothing_whatever_its_chunk_boundaries() {
        assert_eq!(missing_tail(&texts(&["a", "b"]), &texts(&["ab"])), None);
    }

    #[test]
    fn a_snapshot_that_disagrees_is_not_taken_a2a_sdk_0_3_doubled_chunks() {
        let held = texts(&["part-1 ", "part-2 ", "part-3 "]);
        let doubled = texts(&["part-1 ", "part-2 ", "part-2 ", "part-3 ", "part-3 "]);
        assert_eq!(missing_tail(&held, &doubled), None);
        assert_eq!(missing_tail(&held, &texts(&["part-1 "])), None, "shorter");
        let last_doubled = texts(&["part-1 ", "part-2 ", "part-3 ", "part-3 "]);
        assert_eq!(
            missing_tail(&held, &last_doubled),
            None,
            "only the last chunk doubled"
        );
    }

    #[test]
    fn whole_parts_after_the_held_ones_are_added_and_nothing_held_takes_all() {
        let data = Part {
            content: PartContent::Data(serde_json::json!({"k": 1})),
            ..Part::text("")
        };
        let snapshot = vec![Part::text("x"), data.clone()];
        assert_eq!(missing_tail(&texts(&["x"]), &snapshot), Some(vec![data]));
        assert_eq!(missing_tail(&[], &snapshot).map(|t| t.len()), Some(2));
        let media = Part {
            media_type: Some("text/markdown".into()),
            ..Part::text("xy")
        };
        assert_eq!(
            missing_tail(&texts(&["x"]), &[media]),
            None,
            "another kind of text"
        );
    }
}
