// A task to load in the benchmarks: sends "hello" to the first registered agent through the JSON
// HTTP API, waits until the console has stored a final state or input-required (at most 60 s,
// else it fails), and prints the task's and its conversation's paths, so navigation to hydrated
// measures the detail pages too (ADR 0021).
// Usage: node sample-task.mjs <base url>   prints "/tasks/<id> /chat/<conversation id>"
const [base] = process.argv.slice(2);
if (!base) {
  console.error("usage: node sample-task.mjs <base url>");
  process.exit(2);
}
const json = async (path, init) => {
  const response = await fetch(base + path, init);
  if (!response.ok) throw new Error(`${init?.method ?? "GET"} ${path}: ${response.status} ${await response.text()}`);
  return response.json();
};
const { agents } = await json("/api/agents");
if (agents.length === 0) throw new Error("no agent is registered");
const sent = await json(`/api/agents/${agents[0].id}/messages`, {
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ text: "hello" }),
});
// Settled: a final state, or waiting for the operator.
const settled = new Set(["TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_REJECTED", "TASK_STATE_INPUT_REQUIRED"]);
const deadline = Date.now() + 60_000;
for (;;) {
  const { tasks } = await json("/api/tasks");
  const task = tasks.find((t) => t.localId === sent.localId);
  if (task && settled.has(task.state)) {
    console.log(`/tasks/${task.localId} /chat/${task.conversationId}`);
    break;
  }
  if (Date.now() > deadline) throw new Error(`task ${sent.localId} did not settle in 60 s (${task?.state ?? "not stored"})`);
  await new Promise((resolve) => setTimeout(resolve, 250));
}
