import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { test, expect } from "./fixtures";
import { waitUntilReady } from "./helpers";

// A team deployment in real processes on one PostgreSQL database (issue #31,
// security-and-durability §3.5, §6.1): web replicas A and B run no worker
// (A2A_COMMAND_WORKER_MODE=external); worker 1 dispatches a send made on B and ingests its
// events. A browser on replica A watches the task: every event reaches it through PostgreSQL
// LISTEN/NOTIFY. Worker 1 is killed with SIGKILL mid-stream and worker 2 takes the task over
// after its lease; the page shows every chunk exactly once, in order, without a reload.
// Runs when scripts/test has PostgreSQL (A2A_TEST_POSTGRES_URL).

const bin = process.env.E2E_SERVER_BIN;
const admin = process.env.E2E_POSTGRES_URL ?? "";
const portA = Number(process.env.E2E_REPLICA_PORT ?? 3101);
const portB = portA + 1;
const demo = process.env.DEMO_ORIGIN ?? "http://127.0.0.1:4092";
const expected = Array.from({ length: 20 }, (_, i) => `Chunk ${i + 1} of 20: still going.`);

function start(args: string[], env: Record<string, string>): ChildProcess {
  if (!bin) throw new Error("E2E_SERVER_BIN is not set (scripts/test sets it)");
  return spawn(bin, args, { env: { ...process.env, ...env }, stdio: "ignore" });
}

test("a page on replica A follows a task a worker behind replica B ingests, across a worker killed mid-stream", async ({ page, problems }) => {
  test.skip(!admin, "needs PostgreSQL (A2A_TEST_POSTGRES_URL)");
  test.setTimeout(120_000);
  const name = `taskbay_e2e_replicas_${process.pid}_${Date.now()}`;
  execFileSync("psql", ["-q", admin, "-c", `CREATE DATABASE ${name}`]);
  const url = admin.replace(/\/[^/]*$/, `/${name}`);
  const dir = mkdtempSync(join(tmpdir(), "taskbay-replicas-"));
  const env = (sub: string) => ({
    A2A_DATABASE_URL: url,
    A2A_COMMAND_WORKER_MODE: "external",
    A2A_ALLOW_PRIVATE_NETWORKS: "true",
    A2A_DATA_DIR: join(dir, sub),
    A2A_ARTIFACT_DATA_DIR: join(dir, "artifacts"),
  });
  const processes: ChildProcess[] = [];
  try {
    execFileSync(bin!, ["migrate"], { env: { ...process.env, ...env("migrate") } });
    const a = `http://127.0.0.1:${portA}`;
    const b = `http://127.0.0.1:${portB}`;
    processes.push(start(["serve", "--host", "127.0.0.1", "--port", String(portA)], env("a")));
    processes.push(start(["serve", "--host", "127.0.0.1", "--port", String(portB)], env("b")));
    const worker1 = start(["worker"], env("w1"));
    processes.push(worker1);
    await waitUntilReady(`${a}/readyz`);
    await waitUntilReady(`${b}/readyz`);

    // Registered and sent on B.
    const registered = await (
      await fetch(`${b}/api/agents`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ cardUrl: `${demo}/slow/card.json` }),
      })
    ).json();
    const sent = await fetch(`${b}/api/agents/${registered.agent.id}/commands`, {
      method: "POST",
      headers: { "content-type": "application/json", "idempotency-key": `replicas-${Date.now()}` },
      body: JSON.stringify({ text: "a report across replicas" }),
    });
    expect(sent.status).toBe(202);
    const commandUrl = sent.headers.get("location")!;
    let taskId = "";
    await expect
      .poll(async () => {
        const { command } = await (await fetch(`${b}${commandUrl}`)).json();
        taskId = command.result?.localId ?? "";
        return taskId;
      })
      .not.toBe("");

    // Watched on A.
    await page.goto(`${a}/tasks/${taskId}`);
    await expect(page.locator("body")).toHaveAttribute("data-hydrated", "true");
    const artifact = page.getByTestId("artifact").first();
    await expect(artifact).toContainText("Chunk 3 of 20");

    // Worker 2 starts; worker 1 dies without a word, its leases left to run out.
    processes.push(start(["worker"], env("w2")));
    worker1.kill("SIGKILL");
    await expect(page.getByTestId("state-chip").first()).toHaveText("Completed", { timeout: 60_000 });
    const text = await artifact.innerText();
    let at = -1;
    for (const line of expected) {
      expect(text.split(line).length - 1, line).toBe(1);
      expect(text.indexOf(line), `${line} in order`).toBeGreaterThan(at);
      at = text.indexOf(line);
    }
    expect(problems).toEqual([]);
  } finally {
    for (const child of processes) child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
    execFileSync("psql", ["-q", admin, "-c", `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`]);
  }
});
