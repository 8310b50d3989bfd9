//! `trace`: a staged health check that reports progress as sideband events in both `urn:`
//! formats (`reference.md` §1.5, §1.6, §3): trace artifacts covering every §3.4 mapping (and
//! one unknown trace type), and generic events under every metadata key convention of §3.3.

use std::time::Duration;

use app::a2a::TaskState;
use serde_json::{Value, json};

use crate::demo_agent::extension::{SIDEBAND_URI, TRACE_URI};
use crate::demo_agent::runner::Step;
use crate::demo_agent::wire::{self, Incoming, Update, data_part, text_part};

/// Pause between trace steps, so a stream shows them arriving one by one.
const STEP_PAUSE: Duration = Duration::from_millis(150);
/// The trace id every trace artifact carries.
const TRACE_ID: &str = "trace-demo-1";

/// The script: say "fail" in the message to end with a lifecycle error and FAILED.
pub(crate) fn plan(incoming: &Incoming) -> Vec<Step> {
    let fail = incoming.lower_text().contains("fail");
    let mut steps = [
        progress(
            "Planning the health check.",
            json!({ SIDEBAND_URI: {"events": [
                {"id": "ev-plan", "type": "plan.created", "title": "Plan created", "level": "info",
                 "text": "Three steps: inspect pods, check endpoints, write the report."},
            ]}}),
        ),
        trace(1, "trace.lifecycle", json!({"state": "started"})),
        trace(2, "trace.thinking", json!({"summary": "Inspect pods first, then probe the endpoints."})),
        trace(3, "trace.mcp.start", json!({"tool": "kubectl.get_pods", "arguments": {"namespace": "staging"}})),
        trace(4, "trace.mcp", json!({"tool": "kubectl.get_pods", "status": "completed", "result": {"ready": 3, "total": 3}})),
        progress(
            "Pods are ready; probing endpoints.",
            json!({ format!("{SIDEBAND_URI}/events"): [
                "Checked 3 pods in staging.",
                {"eventId": "ev-metric", "kind": "metric.recorded", "label": "Probe latency",
                 "data": {"p50Ms": 41, "p99Ms": 180}, "metadata": {"unit": "ms"}},
            ]}),
        ),
        trace(5, "trace.mcp", json!({"tool": "kubectl.delete_namespace", "status": "declined", "reason": "Not allowed by policy"})),
        trace(6, "trace.mcp", json!({"tool": "http.get", "status": "failed", "error": "timeout after 5 s"})),
        trace(7, "trace.decision", json!({"decision": "Report the cluster as healthy", "confidence": 0.9})),
        trace(8, "trace.delegation", json!({"to": "report-writer", "task": "Summarise the findings"})),
        trace(9, "trace.usage", json!({"inputTokens": 1200, "outputTokens": 310})),
        progress(
            "Writing the report.",
            json!({
                "sidebandEvents": [
                    {"id": "ev-progress", "type": "progress", "level": "debug", "message": "Almost done",
                     "metadata": {"percent": 90}},
                    {"id": "ev-restarts", "event": "warning.issued", "severity": "warn",
                     "markdown": "**2** pod restarts in the last hour"},
                ],
                TRACE_URI: {"id": "ev-trace-meta", "type": "trace.note", "description": "Trace events also ride in metadata"},
            }),
        ),
    ]
    .concat();
    if fail {
        steps.extend(trace(
            10,
            "trace.lifecycle",
            json!({"state": "error", "error": "Endpoint probe failed"}),
        ));
        steps.push(Step::Do(Update::say(
            TaskState::Failed,
            "Health check failed: an endpoint did not answer.",
        )));
        return steps;
    }
    steps.extend(trace(10, "trace.lifecycle", json!({"state": "finished"})));
    steps.push(Step::Do(Update::artifact(json!({
        "artifactId": "trace-report",
        "name": "report",
        "parts": [text_part("Staging is healthy: 3/3 pods ready, p99 180 ms.")],
    }))));
    steps.push(Step::Do(Update::say(
        TaskState::Completed,
        "Health check finished.",
    )));
    steps
}

/// A WORKING status whose message metadata carries sideband events.
fn progress(text: &str, metadata: Value) -> Vec<Step> {
    vec![Step::Do(
        Update::say(TaskState::Working, text).with_message_metadata(metadata),
    )]
}

/// A pause, then a trace artifact of `trace_type`.
fn trace(n: u32, trace_type: &str, mut data: Value) -> Vec<Step> {
    data["trace_id"] = json!(TRACE_ID);
    let artifact = json!({
        "artifactId": format!("trace-{n}"),
        "name": trace_type,
        "extensions": [TRACE_URI],
        "metadata": {"traceType": trace_type, "timestamp": wire::now_iso()},
        "parts": [data_part(data, "application/json")],
    });
    vec![Step::Sleep(STEP_PAUSE), Step::Do(Update::artifact(artifact))]
}
