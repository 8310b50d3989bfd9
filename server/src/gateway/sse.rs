//! Server-sent events (`shared/spec/a2a-and-a2ui.md` §A.5): an incremental parser that takes
//! the body in whatever chunks the network delivers and yields whole events, following the
//! WHATWG event-stream rules (LF, CR and CRLF line ends, even split across chunks; comments and
//! keep-alives; multi-line `data:`; `id`/`event` fields), and the decoder from an event's data to
//! an A2A stream response. Pure: no I/O.

use std::collections::VecDeque;

use app::a2a::{JsonRpcResponse, RequestId, RestError, is_jsonrpc_envelope};
use serde_json::Value;

use super::error::GatewayError;

/// One dispatched event.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SseEvent {
    /// The last event id seen on the stream so far (it persists across events).
    pub id: Option<String>,
    /// The `event:` field, if any (A2A SDKs send none).
    pub event: Option<String>,
    /// The `data:` lines joined with `\n`.
    pub data: String,
}

/// Incremental event-stream parser: [`feed`](SseParser::feed) bytes, then drain with
/// [`next_event`](SseParser::next_event).
#[derive(Debug, Default)]
pub struct SseParser {
    /// Bytes of the line being read (not yet terminated).
    line: Vec<u8>,
    /// The previous chunk ended in CR, so a leading LF in the next one belongs to it.
    after_cr: bool,
    /// Nothing has been read yet, so a leading byte-order mark is still to be dropped.
    at_start: bool,
    data: String,
    has_data: bool,
    event: Option<String>,
    last_id: Option<String>,
    ready: VecDeque<SseEvent>,
}

impl SseParser {
    /// A parser at the start of a stream.
    pub fn new() -> SseParser {
        SseParser {
            at_start: true,
            ..SseParser::default()
        }
    }

    /// Consumes one chunk of the body.
    pub fn feed(&mut self, mut chunk: &[u8]) {
        if self.at_start && !chunk.is_empty() {
            self.line.extend_from_slice(chunk);
            if self.line.len() < 3 && b"\xEF\xBB\xBF".starts_with(&self.line) {
                return;
            }
            self.at_start = false;
            let buffered = std::mem::take(&mut self.line);
            let rest = buffered.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&buffered);
            return self.feed_lines(rest);
        }
        if self.after_cr && !chunk.is_empty() {
            self.after_cr = false;
            if let Some(rest) = chunk.strip_prefix(b"\n") {
                chunk = rest;
            }
        }
        self.feed_lines(chunk);
    }

    fn feed_lines(&mut self, mut chunk: &[u8]) {
        while let Some(end) = chunk.iter().position(|b| *b == b'\n' || *b == b'\r') {
            self.line.extend_from_slice(&chunk[..end]);
            let line = std::mem::take(&mut self.line);
            self.process_line(&line);
            if chunk[end] == b'\r' {
                match chunk.get(end + 1) {
                    Some(b'\n') => chunk = &chunk[end + 2..],
                    Some(_) => chunk = &chunk[end + 1..],
                    None => {
                        self.after_cr = true;
                        return;
                    }
                }
            } else {
                chunk = &chunk[end + 1..];
            }
        }
        self.line.extend_from_slice(chunk);
    }

    fn process_line(&mut self, line: &[u8]) {
        // Line ends are ASCII, so a complete line never splits a UTF-8 sequence.
        let line = String::from_utf8_lossy(line);
        if line.is_empty() {
            self.dispatch();
            return;
        }
        if line.starts_with(':') {
            return;
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line.as_ref(), ""),
        };
        match field {
            "data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
            }
            "event" => self.event = Some(value.to_owned()),
            "id" if !value.contains('\0') => self.last_id = Some(value.to_owned()),
            _ => {}
        }
    }

    fn dispatch(&mut self) {
        let event = self.event.take();
        if !std::mem::take(&mut self.has_data) {
            return;
        }
        self.ready.push_back(SseEvent {
            id: self.last_id.clone(),
            event,
            data: std::mem::take(&mut self.data),
        });
    }

    /// The next complete event, if one is ready. An event still open when the body ends is
    /// discarded, as the event-stream rules require.
    pub fn next_event(&mut self) -> Option<SseEvent> {
        self.ready.pop_front()
    }
}

/// Decodes one event's data into the A2A stream response it carries. Over JSON-RPC the data is
/// a full response `{"jsonrpc","id","result"}` whose `result` is returned (or whose `error`
/// becomes [`GatewayError::JsonRpc`]), read by the wire model's decoder; over HTTP+JSON it is
/// the bare stream response, returned as is. `Ok(None)` for an empty keep-alive event.
pub fn decode_event(data: &str) -> Result<Option<Value>, GatewayError> {
    decode_event_for(data, None)
}

/// [`decode_event`] on a JSON-RPC stream opened with request id `expected_id`: an envelope
/// must carry that id, as a unary answer must, except that an error may carry a null id (the
/// agent could not tell which request failed). `None` skips the check (HTTP+JSON streams).
pub(crate) fn decode_event_for(data: &str, expected_id: Option<&str>) -> Result<Option<Value>, GatewayError> {
    if data.trim().is_empty() {
        return Ok(None);
    }
    let value: Value = serde_json::from_str(data)
        .map_err(|e| GatewayError::Decode(format!("stream event is not JSON ({e})")))?;
    let Some(object) = value.as_object() else {
        return Err(GatewayError::Decode("stream event is not a JSON object".into()));
    };
    if is_jsonrpc_envelope(object) {
        let response = JsonRpcResponse::decode(&value)
            .map_err(|e| GatewayError::Decode(format!("JSON-RPC stream event: {e}")))?;
        if let Some(expected) = expected_id {
            match &response.id {
                Some(RequestId::String(id)) if id == expected => {}
                None if response.outcome.is_err() => {}
                other => {
                    return Err(GatewayError::Decode(format!(
                        "JSON-RPC stream event id {other:?} does not match the request"
                    )));
                }
            }
        }
        return response.outcome.map(Some).map_err(GatewayError::JsonRpc);
    }
    // A REST stream can end with a google.rpc.Status error object instead of an event.
    if object.len() == 1
        && object.contains_key("error")
        && let Some(status) = RestError::decode(&value).and_then(|e| e.http_code)
    {
        return Err(GatewayError::Http {
            status: u16::try_from(status).unwrap_or(500),
            body: Some(value),
        });
    }
    Ok(Some(value))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn parse_chunks(chunks: &[&[u8]]) -> Vec<SseEvent> {
        let mut parser = SseParser::new();
        let mut events = Vec::new();
        for chunk in chunks {
            parser.feed(chunk);
            events.extend(std::iter::from_fn(|| parser.next_event()));
        }
        events
    }

    fn data(d: &str) -> SseEvent {
        SseEvent {
            data: d.to_owned(),
            ..SseEvent::default()
        }
    }

    #[test]
    fn one_event_per_blank_line() {
        let events = parse_chunks(&[b"data: one\n\ndata: two\n\n"]);
        assert_eq!(events, vec![data("one"), data("two")]);
    }

    #[test]
    fn split_chunks_join_lines_and_events() {
        let events = parse_chunks(&[b"da", b"ta: {\"a\"", b":1}\n", b"\n", b"data: x\n\n"]);
        assert_eq!(events, vec![data("{\"a\":1}"), data("x")]);
    }

    #[test]
    fn crlf_and_cr_line_ends_including_crlf_split_across_chunks() {
        assert_eq!(
            parse_chunks(&[b"data: a\r\n\r\ndata: b\r\rdata: c\n\n"]),
            vec![data("a"), data("b"), data("c")]
        );
        // A CR at the end of one chunk and its LF at the start of the next are one line end,
        // not a line end plus an empty line (which would dispatch early).
        assert_eq!(
            parse_chunks(&[b"data: a\r", b"\ndata: b\r\n", b"\r\n"]),
            vec![data("a\nb")]
        );
    }

    #[test]
    fn multi_line_data_is_joined_with_newlines() {
        let events = parse_chunks(&[b"data: {\ndata:  \"a\": 1\ndata: }\n\n"]);
        assert_eq!(events, vec![data("{\n \"a\": 1\n}")]);
    }

    #[test]
    fn comments_and_keep_alives_produce_nothing() {
        let events = parse_chunks(&[
            b": keep-alive\n\n:ping\n\ndata: x\n: mid-event comment\n\n",
            b":\n\n",
        ]);
        assert_eq!(events, vec![data("x")]);
    }

    #[test]
    fn id_persists_and_event_resets() {
        let events = parse_chunks(&[b"id: 7\nevent: update\ndata: a\n\ndata: b\n\nid\ndata: c\n\n"]);
        assert_eq!(
            events,
            vec![
                SseEvent {
                    id: Some("7".into()),
                    event: Some("update".into()),
                    data: "a".into()
                },
                SseEvent {
                    id: Some("7".into()),
                    event: None,
                    data: "b".into()
                },
                SseEvent {
                    id: Some(String::new()),
                    event: None,
                    data: "c".into()
                },
            ]
        );
    }

    #[test]
    fn field_without_colon_and_without_space_and_unknown_fields() {
        let events = parse_chunks(&[b"data\ndata:x\nretry: 10\nfoo: bar\n\n"]);
        assert_eq!(events, vec![data("\nx")]);
    }

    #[test]
    fn byte_order_mark_is_dropped_even_when_split() {
        assert_eq!(
            parse_chunks(&[b"\xEF", b"\xBB", b"\xBFdata: a\n\n"]),
            vec![data("a")]
        );
    }

    #[test]
    fn utf8_split_across_chunks_survives() {
        let bytes = "data: héllo ✓\n\n".as_bytes();
        let (a, b) = bytes.split_at(9);
        assert_eq!(parse_chunks(&[a, b]), vec![data("héllo ✓")]);
    }

    #[test]
    fn unterminated_event_at_end_is_discarded() {
        assert_eq!(parse_chunks(&[b"data: a\n\ndata: b\n"]), vec![data("a")]);
    }

    const SAMPLE: &[u8] = b"\xEF\xBB\xBF: hello\r\nid: 1\r\nevent: e\r\ndata: {\"jsonrpc\":\"2.0\",\r\ndata: \"id\":1}\r\n\r\n:keep-alive\n\ndata: \xC3\xA9t\xC3\xA9\rdata:x\r\r\ndata: last\n\n";

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

        #[test]
        fn any_chunking_yields_the_same_events(cuts in proptest::collection::vec(0..SAMPLE.len(), 0..12)) {
            let mut cuts = cuts;
            cuts.sort_unstable();
            let mut chunks = Vec::new();
            let mut start = 0;
            for cut in cuts {
                chunks.push(&SAMPLE[start..cut]);
                start = cut;
            }
            chunks.push(&SAMPLE[start..]);
            prop_assert_eq!(parse_chunks(&chunks), parse_chunks(&[SAMPLE]));
        }

        /// Arbitrary bytes (weighted toward the ones the grammar cares about: line ends, the
        /// colon, field names, the byte-order mark and split UTF-8) never panic the parser, and
        /// any chunking gives the events of the one-chunk parse.
        #[test]
        fn arbitrary_bytes_in_arbitrary_chunks(
            bytes in proptest::collection::vec(
                prop_oneof![
                    3 => any::<u8>(),
                    2 => proptest::sample::select(b"\r\n: \xEF\xBB\xBF\xC3\xA9".to_vec()),
                    1 => proptest::sample::select(b"dataideventry".to_vec()),
                ],
                0..400,
            ),
            cuts in proptest::collection::vec(any::<proptest::sample::Index>(), 0..16),
        ) {
            let mut cuts: Vec<usize> = cuts.iter().map(|i| i.index(bytes.len() + 1)).collect();
            cuts.sort_unstable();
            let mut chunks = Vec::new();
            let mut start = 0;
            for cut in cuts {
                chunks.push(&bytes[start..cut]);
                start = cut;
            }
            chunks.push(&bytes[start..]);
            prop_assert_eq!(parse_chunks(&chunks), parse_chunks(&[&bytes]));
        }
    }

    #[test]
    fn sample_parses_as_expected() {
        let events = parse_chunks(&[SAMPLE]);
        assert_eq!(events.len(), 3);
        assert_eq!(events[0].data, "{\"jsonrpc\":\"2.0\",\n\"id\":1}");
        assert_eq!(events[0].event.as_deref(), Some("e"));
        assert_eq!(events[1].data, "été\nx");
        assert_eq!(events[1].id.as_deref(), Some("1"));
        assert_eq!(events[2].data, "last");
    }

    #[test]
    fn json_rpc_envelope_is_unwrapped() {
        let event = decode_event(r#"{"jsonrpc":"2.0","id":"r1","result":{"statusUpdate":{"taskId":"t"}}}"#)
            .unwrap()
            .unwrap();
        assert_eq!(event, json!({"statusUpdate": {"taskId": "t"}}));
    }

    #[test]
    fn bare_event_passes_through() {
        let event = decode_event(r#"{"task":{"id":"t","status":{"state":"TASK_STATE_WORKING"}}}"#)
            .unwrap()
            .unwrap();
        assert_eq!(event["task"]["id"], "t");
        let v03 = decode_event(r#"{"kind":"status-update","taskId":"t","final":true}"#)
            .unwrap()
            .unwrap();
        assert_eq!(v03["kind"], "status-update");
    }

    #[test]
    fn json_rpc_error_in_stream_is_typed() {
        let err = decode_event(r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"Task not found","data":[{"reason":"TASK_NOT_FOUND"}]}}"#)
            .unwrap_err();
        match err {
            GatewayError::JsonRpc(error) => {
                assert_eq!(error.code, -32001);
                assert_eq!(error.message, "Task not found");
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn rest_error_in_stream_is_typed() {
        let err = decode_event(r#"{"error":{"code":404,"status":"NOT_FOUND","message":"no"}}"#).unwrap_err();
        assert!(matches!(err, GatewayError::Http { status: 404, .. }), "{err:?}");
    }

    #[test]
    fn keep_alive_data_and_garbage() {
        assert_eq!(decode_event("  ").unwrap(), None);
        assert!(matches!(decode_event("not json"), Err(GatewayError::Decode(_))));
        assert!(matches!(decode_event("[1]"), Err(GatewayError::Decode(_))));
        assert!(matches!(
            decode_event(r#"{"jsonrpc":"2.0","id":1}"#),
            Err(GatewayError::Decode(_))
        ));
    }

    #[test]
    fn json_rpc_stream_events_must_carry_the_request_id() {
        let ok = r#"{"jsonrpc":"2.0","id":"r1","result":{"statusUpdate":{"taskId":"t"}}}"#;
        assert!(decode_event_for(ok, Some("r1")).unwrap().is_some());
        for wrong in [
            r#"{"jsonrpc":"2.0","id":"r2","result":{"statusUpdate":{"taskId":"t"}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"t"}}}"#,
            r#"{"jsonrpc":"2.0","id":null,"result":{"statusUpdate":{"taskId":"t"}}}"#,
            r#"{"jsonrpc":"2.0","id":"r2","error":{"code":-32001,"message":"Task not found"}}"#,
        ] {
            assert!(
                matches!(decode_event_for(wrong, Some("r1")), Err(GatewayError::Decode(_))),
                "{wrong}"
            );
        }
        let null_error = r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"Task not found"}}"#;
        assert!(matches!(
            decode_event_for(null_error, Some("r1")),
            Err(GatewayError::JsonRpc(_))
        ));
        let same_error = r#"{"jsonrpc":"2.0","id":"r1","error":{"code":-32001,"message":"Task not found"}}"#;
        assert!(matches!(
            decode_event_for(same_error, Some("r1")),
            Err(GatewayError::JsonRpc(_))
        ));
    }
}
