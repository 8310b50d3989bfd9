// The detail pages to load in the benchmarks: sends "hello" to every registered agent through the
// JSON HTTP API, waits until the console has stored a final state or input-required for each (at
// most 60 s, else it fails), and prints an agent's page, a task's page, its conversation and, when
// an agent asked for an approval, the approval's review page.
// Usage: node sample-pages.mjs <base url>   prints "/agents/<id> /tasks/<id> /chat/<id> [/approvals/<id>]"
const [base] = process.argv.slice(2);
if (!base) {
  console.error("usage: node sample-pages.mjs <base url>");
  process.exit(2);
}
const json = async (path, init) => {
  const response = await fetch(base + path, init);
  if (!response.ok) throw new Error(`${init?.method ?? "GET"} ${path}: ${response.status} ${await response.text()}`);
  return response.json();
};
const { agents } = await json("/api/agents");
if (agents.length === 0) throw new Error("no agent is registered");
const sent = [];
for (const agent of agents) {
  sent.push(
    await json(`/api/agents/${agent.id}/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ text: "hello" }),
    }),
  );
}
// Settled: a final state, or waiting for the operator.
const settled = new Set(["TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_REJECTED", "TASK_STATE_INPUT_REQUIRED"]);
const deadline = Date.now() + 60_000;
let tasks;
for (;;) {
  ({ tasks } = await json("/api/tasks"));
  const waiting = sent.filter((s) => !tasks.some((t) => t.localId === s.localId && settled.has(t.state)));
  if (waiting.length === 0) break;
  if (Date.now() > deadline) throw new Error(`tasks ${waiting.map((s) => s.localId)} did not settle in 60 s`);
  await new Promise((resolve) => setTimeout(resolve, 250));
}
const task = tasks.find((t) => t.localId === sent[0].localId);
const pages = [`/agents/${agents[0].id}`, `/tasks/${task.localId}`, `/chat/${task.conversationId}`];
const { requests } = await json("/api/decisions");
if (requests.length > 0) pages.push(`/approvals/${requests[0].id}`);
else console.error("no approval request was made: the approval review page is not measured");
console.log(pages.join(" "));
