import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { test, expect, openHydrated } from "./fixtures";
import { waitUntilReady } from "./helpers";

// The server is killed with SIGKILL while the demo agent's `slow` task streams its 20 chunks,
// then started again on the same port and data directory. The worker that held the stream
// died with it; after its 15 s lease runs out the new process takes the task over with
// SubscribeToTask / GetTask. The open task page reconnects on its own with Last-Event-ID and
// ends with the whole report: no chunk lost, none doubled (security-and-durability §3.11).

const bin = process.env.E2E_SERVER_BIN;
const port = Number(process.env.E2E_RESTART_PORT ?? 3093);
const demo = process.env.DEMO_ORIGIN ?? "http://127.0.0.1:4092";
const base = `http://127.0.0.1:${port}`;

function start(dataDir: string): ChildProcess {
  if (!bin) throw new Error("E2E_SERVER_BIN is not set (scripts/test sets it)");
  return spawn(bin, ["serve", "--host", "127.0.0.1", "--port", String(port)], {
    env: {
      ...process.env,
      A2A_DATA_DIR: dataDir,
      A2A_ALLOW_PRIVATE_NETWORKS: "true",
      A2A_REGISTERED_AGENTS: `${demo}/slow/card.json`,
    },
    stdio: "ignore",
  });
}


const expected = Array.from({ length: 20 }, (_, i) => `Chunk ${i + 1} of 20: still going.`);

test("kill -9 mid-stream: after a restart the task completes with every chunk exactly once", async ({ page, problems }) => {
  test.setTimeout(120_000);
  const dataDir = mkdtempSync(join(tmpdir(), "taskbay-restart-"));
  let server = start(dataDir);
  try {
    await waitUntilReady(`${base}/readyz`);
    const agents = await (await fetch(`${base}/api/agents`)).json();
    const agentId = agents.agents[0].id as string;
    const sent = await fetch(`${base}/api/agents/${agentId}/commands`, {
      method: "POST",
      headers: { "content-type": "application/json", "idempotency-key": `restart-${Date.now()}` },
      body: JSON.stringify({ text: "a report that survives a crash" }),
    });
    expect(sent.status).toBe(202);
    const commandUrl = sent.headers.get("location")!;
    let taskId = "";
    await expect
      .poll(async () => {
        const { command } = await (await fetch(`${base}${commandUrl}`)).json();
        taskId = command.result?.localId ?? "";
        return command.status;
      })
      .toBe("succeeded");

    await page.goto(`${base}/tasks/${taskId}`);
    await expect(page.locator("body")).toHaveAttribute("data-hydrated", "true");
    const artifact = page.getByTestId("artifact").first();
    await expect(artifact).toContainText("Chunk 3 of 20");

    server.kill("SIGKILL");
    await new Promise((r) => server.once("exit", r));
    server = start(dataDir);
    await waitUntilReady(`${base}/readyz`);

    // The page recovers by itself: no reload.
    await expect(page.getByTestId("state-chip").first()).toHaveText("Completed", { timeout: 60_000 });
    const text = await artifact.innerText();
    for (const line of expected) {
      expect(text.split(line).length - 1, line).toBe(1);
    }
    // While the server was down the browser's reconnects were refused; those errors are expected.
    const unexpected = problems.filter((p) => !/ERR_CONNECTION_REFUSED|ERR_EMPTY_RESPONSE|ERR_INCOMPLETE_CHUNKED_ENCODING|503|EventSource/.test(p));
    problems.length = 0;
    expect(unexpected).toEqual([]);
  } finally {
    server.kill("SIGKILL");
    rmSync(dataDir, { recursive: true, force: true });
  }
});
