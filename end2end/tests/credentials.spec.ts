import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { test, expect, openHydrated } from "./fixtures";
import { waitUntilReady } from "./helpers";

// Agent credentials in the browser (issue #30): a console with vault keys and the demo agent's
// `bearer` variant, whose card requires a Bearer token. The agent starts as "Needs credentials";
// an admin stores the token on the agent's page; the agent turns usable and a chat send
// succeeds; an echoed token is shown as [redacted]; and the token appears in no page and no
// network response afterwards.

const bin = process.env.E2E_SERVER_BIN;
const port = Number(process.env.E2E_CREDENTIALS_PORT ?? 3098);
const demo = process.env.DEMO_ORIGIN ?? "http://127.0.0.1:4092";
const base = `http://127.0.0.1:${port}`;
const TOKEN = "demo-bearer-9d2e6b";

function start(dataDir: string): ChildProcess {
  if (!bin) throw new Error("E2E_SERVER_BIN is not set (scripts/test sets it)");
  return spawn(bin, ["serve", "--host", "127.0.0.1", "--port", String(port)], {
    env: {
      ...process.env,
      A2A_DATA_DIR: dataDir,
      A2A_ALLOW_PRIVATE_NETWORKS: "true",
      A2A_REGISTERED_AGENTS: `${demo}/bearer/card.json`,
      A2A_VAULT_KEYS: JSON.stringify({ e2e: randomBytes(32).toString("hex") }),
      A2A_VAULT_ACTIVE_KEY: "e2e",
    },
    stdio: "ignore",
  });
}


test("an admin stores a Bearer token in the browser; the agent turns usable and the token is never shown again", async ({ page }) => {
  test.setTimeout(90_000);
  const dataDir = mkdtempSync(join(tmpdir(), "taskbay-credentials-"));
  const server = start(dataDir);
  const bodies: string[] = [];
  page.on("response", async (response) => {
    if (!response.url().startsWith(base)) return;
    try {
      bodies.push(await response.text());
    } catch {
      // a stream still open, or a redirect: nothing to read
    }
  });
  try {
    await waitUntilReady(`${base}/readyz`);
    const row = () => page.getByRole("list", { name: "Registered agents" }).getByRole("listitem").filter({ hasText: "Demo agent (bearer)" });
    await openHydrated(page, `${base}/agents`);
    await expect(row()).toContainText("Needs credentials");

    await row().getByRole("link", { name: "Demo agent (bearer)" }).click();
    const panel = page.getByRole("region", { name: "Credentials" });
    await expect(panel).toContainText("This agent requires credentials.");
    const form = panel.getByRole("form", { name: "Set credential" });
    await expect(form.getByLabel("Kind")).toHaveValue("bearer");
    await expect(form.getByLabel("Origins it may be sent to (one per line)")).toHaveValue(demo);
    await form.getByLabel("Token", { exact: true }).fill(TOKEN);
    await form.getByRole("button", { name: "Save credential" }).click();
    await expect(panel.getByRole("status")).toContainText("Saved. The next call to the agent uses it");
    await expect(form.getByLabel("Token", { exact: true })).toHaveValue("");
    await expect(panel.locator(".credential-facts")).toContainText("Bearer token");
    await expect(panel.locator(".credential-facts")).toContainText(demo);
    await expect(panel).toContainText("Credential stored");

    await openHydrated(page, `${base}/agents`);
    await expect(row()).toContainText("Reachable");
    await row().getByRole("link", { name: "Demo agent (bearer)" }).click();
    await page.getByRole("link", { name: "Start chat" }).click();
    await expect(page.locator("body")).toHaveAttribute("data-hydrated", "true");
    await expect(page.getByTestId("credential-blocked")).toHaveCount(0);
    const input = page.getByTestId("composer-input");
    await input.fill("hello");
    await input.press("Enter");
    await expect(page.getByText("Credential accepted by this protected agent.")).toBeVisible();
    await input.fill("leak it");
    await input.press("Enter");
    await expect(page.getByText(/A careless agent echoes its credential: \[redacted\]/)).toBeVisible();

    const html = await page.content();
    expect(html).not.toContain(TOKEN);
    const b64 = Buffer.from(TOKEN).toString("base64");
    for (const body of bodies) {
      expect(body).not.toContain(TOKEN);
      expect(body).not.toContain(b64);
    }
    expect(bodies.length).toBeGreaterThan(5);
  } finally {
    server.kill("SIGTERM");
    rmSync(dataDir, { recursive: true, force: true });
  }
});
