//! Feeds arbitrary bytes (an SSE `data:` payload or webhook body) to the A2A stream-event
//! decoder. The decoder must return `Ok` or a typed error for every input, never panic.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(decoded) = app::a2a::decode_stream_event_bytes(data) {
        // Exercise the helpers callers use on every decoded event.
        let _ = decoded.event.task_id();
        let _ = decoded.event.closes_stream();
    }
});
