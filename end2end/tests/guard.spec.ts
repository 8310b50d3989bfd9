import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

import { chromium } from "@playwright/test";

import { test, expect } from "./fixtures";

// The request guard seen from a browser (issue #26): a page that rebinds its own DNS name to the
// console's address is answered 421 with nothing rendered, and pages on other local origins can
// neither register an agent with a plain HTML form nor send with a `text/plain` fetch.

const base = process.env.BASE_URL ?? "http://127.0.0.1:3002";
const port = new URL(base).port;

/** Serves `html` on 127.0.0.1 at a free port; the page is then opened as `localhost:<port>`. */
async function attackerSite(html: string): Promise<{ server: Server; port: number }> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    response.end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

async function agentUrls(): Promise<string[]> {
  const listed = await (await fetch(`${base}/api/agents`)).json();
  return listed.agents.map((agent: { cardUrl: string }) => agent.cardUrl);
}

async function taskCount(): Promise<number> {
  const listed = await (await fetch(`${base}/api/tasks`)).json();
  return listed.tasks.length;
}

test("a DNS-rebinding page reaches nothing: 421 on pages and on its fetches", async () => {
  // Chromium resolves rebind.test to the console's address, as a rebinding DNS server would.
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--host-resolver-rules=MAP rebind.test 127.0.0.1"],
  });
  try {
    const page = await browser.newPage();
    const response = await page.goto(`http://rebind.test:${port}/agents`);
    expect(response?.status()).toBe(421);
    await expect(page.locator("body")).toHaveText(/^Misdirected request: this console answers only at its own address/);
    await expect(page.locator("h1, nav, table")).toHaveCount(0);
    // The page's own scripts, same-origin to rebind.test, are refused the same way.
    const answers = await page.evaluate(async () => {
      const read = await fetch("/api/agents");
      const write = await fetch("/api/agents", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ cardUrl: "http://127.0.0.1:9/rebind/card.json" }),
      });
      return [read.status, write.status, await read.text()];
    });
    expect(answers.slice(0, 2)).toEqual([421, 421]);
    expect(answers[2]).not.toContain("cardUrl");
    expect(await agentUrls()).not.toContain("http://127.0.0.1:9/rebind/card.json");
  } finally {
    await browser.close();
  }
});

test("pages on other local origins cannot register with a form or send with text/plain", async ({ browser }) => {
  // A context of its own: the refused navigation is expected, not a console problem.
  const context = await browser.newContext();
  const page = await context.newPage();
  const agents = await (await fetch(`${base}/api/agents`)).json();
  const agentId = agents.agents.find((agent: { cardUrl: string }) => agent.cardUrl.includes("/form/"))?.id;
  expect(agentId, "the form demo agent is registered").toBeTruthy();
  const send = JSON.stringify({
    input: {
      agentId,
      conversationId: null,
      taskId: null,
      text: "sent from another site",
      parts: [],
      options: {},
      idempotencyKey: `guard-${Date.now()}`,
    },
  });
  const evilCard = "http://127.0.0.1:9/cross-site/card.json";
  const html = `<!doctype html><title>attacker</title>
    <form id="register" method="POST" action="${base}/api/fn/register_agent">
      <input name="card_url" value="${evilCard}">
    </form>
    <script>
      fetch(${JSON.stringify(`${base}/api/fn/send_message`)}, {
        method: "POST", mode: "no-cors", headers: { "content-type": "text/plain" }, body: ${JSON.stringify(send)},
      }).finally(() => { document.title = "sent"; });
    </script>`;
  const { server, port: attackerPort } = await attackerSite(html);
  const before = await taskCount();
  try {
    // Cross-site (localhost vs 127.0.0.1) and same-site (127.0.0.1 on another port) alike.
    for (const origin of [`http://localhost:${attackerPort}`, `http://127.0.0.1:${attackerPort}`]) {
      await page.goto(`${origin}/`);
      await expect(page).toHaveTitle("sent");
      const [response] = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith("/api/fn/register_agent")),
        page.evaluate(() => (document.getElementById("register") as HTMLFormElement).submit()),
      ]);
      expect(response.status()).toBe(403);
      await expect(page.locator("body")).toContainText("This action is not permitted.");
    }
  } finally {
    server.close();
    await context.close();
  }
  expect(await agentUrls()).not.toContain(evilCard);
  expect(await taskCount()).toBe(before);

  // The same send from a script without Origin (curl's way) is accepted: the body above was a
  // real send, refused only for where it came from.
  const scripted = await fetch(`${base}/api/fn/send_message`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: send,
  });
  expect(scripted.status, await scripted.text()).toBe(200);
  await expect.poll(taskCount).toBe(before + 1);
});
