import type { APIRequestContext, Page } from "@playwright/test";
import { test, expect, openHydrated } from "./fixtures";

const screens = [
  { path: "/agents", heading: "Agents" },
  { path: "/chat", heading: "Chat" },
  { path: "/inbox", heading: "Inbox" },
  { path: "/tasks", heading: "Tasks" },
  { path: "/flows", heading: "Orchestration" },
  { path: "/notifications", heading: "Notifications" },
  { path: "/settings", heading: "Settings" },
];

test("the shell is rendered on the server, before any script runs", async ({ browser }) => {
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  const response = await page.goto("/agents");
  expect(response?.status()).toBe(200);
  await expect(page.getByRole("heading", { level: 1, name: "Agents" })).toBeVisible();
  await expect(page.getByRole("navigation", { name: "Primary", exact: true })).toBeVisible();
  await expect(page).toHaveTitle("Agents · Agent Taskbay");
  await context.close();
});

test("the page hydrates and client-side navigation needs no reload", async ({ page }) => {
  await openHydrated(page, "/agents");
  // A marker on window survives only if the navigation below does not reload the page.
  await page.evaluate(() => ((window as unknown as { __taskbayMarker: number }).__taskbayMarker = 42));
  const nav = page.getByRole("navigation", { name: "Primary", exact: true });
  for (const screen of screens) {
    await nav.getByRole("link", { name: screen.heading }).click();
    await expect(page).toHaveURL(screen.path);
    await expect(page.getByRole("heading", { level: 1, name: screen.heading })).toBeVisible();
    await expect(nav.getByRole("link", { name: screen.heading })).toHaveAttribute("aria-current", "page");
  }
  expect(await page.evaluate(() => (window as unknown as { __taskbayMarker?: number }).__taskbayMarker)).toBe(42);
});

/** The names of the wasm files the page requests, as they are requested. */
function wasmRequests(page: Page): string[] {
  const fetched: string[] = [];
  page.on("request", (request) => {
    const name = new URL(request.url()).pathname.split("/").pop() ?? "";
    if (name.endsWith(".wasm")) fetched.push(name);
  });
  return fetched;
}

test("a screen fetches the main module and its files as one pack, and the next screen's files on the way", async ({ page }) => {
  // ADR 0014: a split point per screen, the shared chunks merged to a handful of files;
  // ADR 0019: a page preloads its screen's files as one pack.
  const fetched = wasmRequests(page);
  await openHydrated(page, "/tasks");
  expect(fetched).toContain("agent-taskbay.wasm");
  expect(fetched.filter((f) => f.startsWith("pack_"))).toEqual([expect.stringMatching(/^pack_tasks_\d+\.wasm$/)]);
  // The screen's own file and its chunks came in the pack: none of them is fetched again.
  expect(fetched.filter((f) => f.startsWith("split_tasks_"))).toEqual([]);
  expect(new Set(fetched).size).toBe(fetched.length);

  const before = fetched.length;
  const nav = page.getByRole("navigation", { name: "Primary", exact: true });
  await nav.getByRole("link", { name: "Agents" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Agents" })).toBeVisible();
  // After hydration a screen's code arrives as files, only those the page does not have yet.
  const next = fetched.slice(before);
  expect(next.filter((f) => f.startsWith("split_agents_"))).toHaveLength(1);
  expect(next.filter((f) => f.startsWith("pack_"))).toEqual([]);
});

/** Every file the splitter's manifest lists for `screen`: what its pack holds. */
async function screenFiles(page: Page, screen: string): Promise<string[]> {
  const manifest: Record<string, string[]> = await (await page.request.get("/pkg/__wasm_split_manifest.json")).json();
  const [, stems] = Object.entries(manifest).find(([split]) => new RegExp(`^_*${screen}_\\d+$`).test(split)) ?? [];
  expect(stems?.length, `${screen} in the manifest`).toBeGreaterThan(1);
  return (stems ?? []).map((stem) => `${stem}.wasm`);
}

/** A task and its conversation on the demo agent's `form` variant (registered by scripts/e2e). */
async function aTask(request: APIRequestContext): Promise<{ agentId: string; taskId: string; conversationId: string }> {
  const { agents } = await (await request.get("/api/agents")).json();
  const form = agents.find((a: { cardUrl: string }) => a.cardUrl.endsWith("/form/card.json"));
  const sent = await request.post(`/api/agents/${form.id}/messages`, { data: { text: "hello" } });
  expect(sent.status()).toBe(200);
  const { localId } = await sent.json();
  const { tasks } = await (await request.get("/api/tasks")).json();
  const task = tasks.find((t: { localId: string }) => t.localId === localId);
  return { agentId: form.id, taskId: localId, conversationId: task.conversationId };
}

test("every screen, detail pages included, preloads its pack and the split loader on every load (ADR 0021)", async ({
  request,
}) => {
  const { agentId, taskId, conversationId } = await aTask(request);
  // All twelve screens of `pages::lazy::Screen`.
  const pages = [
    ["/agents", "agents"],
    [`/agents/${agentId}`, "agent_detail"],
    ["/chat", "chat"],
    [`/chat/${conversationId}`, "conversation"],
    ["/tasks", "tasks"],
    [`/tasks/${taskId}`, "task_detail"],
    ["/inbox", "inbox"],
    ["/approvals", "approvals"],
    // No approval has this id: its screen is still what the page renders (saying so), by its path.
    ["/approvals/01a22b40-f888-750b-bbe2-336deb230560", "approval_review"],
    ["/flows", "flows"],
    ["/notifications", "notifications"],
    ["/settings", "settings"],
  ];
  for (const [path, split] of pages) {
    // The detail pages render asynchronously (`SsrMode::Async`); Leptos' own preloads came with
    // about half of their loads.
    for (let load = 0; load < 6; load++) {
      const html = await (await request.get(path)).text();
      const wasm = [...html.matchAll(/<link rel="preload" href="([^"]+\.wasm)"/g)].map((m) => m[1]);
      expect(wasm, `${path}, load ${load}`).toEqual([
        "/pkg/agent-taskbay.wasm",
        expect.stringMatching(new RegExp(`^/pkg/pack_${split}_\\d+\\.wasm$`)),
      ]);
      expect(html, path).toContain('<link rel="modulepreload" href="/pkg/__wasm_split.______________________.js"');
    }
  }
  // Not a screen: nothing but the main module.
  const missing = await (await request.get("/nowhere")).text();
  expect([...missing.matchAll(/<link rel="preload" href="([^"]+\.wasm)"/g)].map((m) => m[1])).toEqual([
    "/pkg/agent-taskbay.wasm",
  ]);
});

test("a task's page hydrates from its preloaded pack, never fetching its screen's files one by one (ADR 0021)", async ({
  page,
}) => {
  const { taskId } = await aTask(page.request);
  const files = await screenFiles(page, "task_detail");
  for (let load = 0; load < 3; load++) {
    const fetched = wasmRequests(page);
    await openHydrated(page, `/tasks/${taskId}`);
    expect(fetched.filter((f) => f.startsWith("pack_"))).toEqual([expect.stringMatching(/^pack_task_detail_\d+\.wasm$/)]);
    // Views loaded after hydration fetch their own files; the screen's came in the pack, and
    // none of them is fetched on its own (without the pack's preload the loader fetched each).
    expect(fetched.filter((f) => files.includes(f))).toEqual([]);
    page.removeAllListeners("request");
  }
});

test("a page whose pack does not arrive hydrates from its screen's own files (ADR 0019)", async ({ page, problems }) => {
  await page.route(/\/pkg\/pack_[^/]*\.wasm$/, (route) => route.abort());
  const fetched = wasmRequests(page);
  await openHydrated(page, "/tasks");
  expect(fetched).toEqual(expect.arrayContaining(await screenFiles(page, "tasks")));
  await expect(page.getByRole("heading", { level: 1, name: "Tasks" })).toBeVisible();
  await page.getByRole("navigation", { name: "Primary", exact: true }).getByRole("link", { name: "Agents" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Agents" })).toBeVisible();
  // The browser reports the aborted preload itself; nothing else may have gone wrong.
  expect(problems.every((p) => /Failed to load resource/.test(p)), problems.join("\n")).toBe(true);
  problems.length = 0;
});

for (const [what, spoil] of [
  ["cut short", (pack: Buffer) => pack.subarray(0, Math.floor(pack.length / 2))],
  ["not a pack", (pack: Buffer) => Buffer.concat([Buffer.from("PK\x03\x04"), pack.subarray(4)])],
  ["a section length past its end", (pack: Buffer) => Buffer.concat([pack.subarray(0, 9), Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f])])],
  // The rest of the pack is intact after the bad section: it must be refused whole.
  ["a file name that is not UTF-8", (pack: Buffer) => Buffer.concat([pack.subarray(0, 8), Buffer.from([0, 3, 1, 0xff, 0]), pack.subarray(8)])],
  ["a section that is not a file", (pack: Buffer) => Buffer.concat([pack.subarray(0, 8), Buffer.from([1, 1, 0]), pack.subarray(8)])],
] as const) {
  test(`a pack that is ${what} is not used: the page hydrates from its files`, async ({ page }) => {
    await page.route(/\/pkg\/pack_[^/]*\.wasm$/, async (route) => {
      const response = await route.fetch();
      await route.fulfill({ status: 200, contentType: "application/wasm", body: spoil(await response.body()) });
    });
    const fetched = wasmRequests(page);
    await openHydrated(page, "/agents");
    // Every file the pack held is fetched on its own: none was taken from the spoilt pack.
    expect(fetched).toEqual(expect.arrayContaining(await screenFiles(page, "agents")));
    await page.getByRole("navigation", { name: "Primary", exact: true }).getByRole("link", { name: "Tasks" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Tasks" })).toBeVisible();
  });
}

test("the root redirects to chat", async ({ page }) => {
  await page.goto("/");
  await expect(page).toHaveURL("/chat");
  await expect(page.getByRole("heading", { level: 1, name: "Chat" })).toBeVisible();
});

test("an unknown route is a real 404 with a way back", async ({ page, problems }) => {
  const response = await page.goto("/no-such-screen");
  expect(response?.status()).toBe(404);
  await expect(page.getByRole("heading", { level: 1, name: "Page not found" })).toBeVisible();
  // The browser logs the 404 document load itself; that is the point of this test.
  problems.length = 0;
});

test("the theme switch applies at once and persists across reload", async ({ page }) => {
  await page.emulateMedia({ colorScheme: "light" });
  await openHydrated(page, "/tasks");
  const html = page.locator("html");
  await expect(html).not.toHaveAttribute("data-theme", /.*/);
  const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  const lightBackground = await background();

  const themes = page.getByRole("navigation", { name: "Primary", exact: true }).getByRole("group", { name: "Theme" });
  await themes.getByRole("button", { name: "Dark" }).click();
  await expect(html).toHaveAttribute("data-theme", "dark");
  await expect(themes.getByRole("button", { name: "Dark" })).toHaveAttribute("aria-pressed", "true");
  expect(await background()).not.toBe(lightBackground);

  await page.reload();
  await expect(html).toHaveAttribute("data-theme", "dark");
  await expect(page.locator("body")).toHaveAttribute("data-hydrated", "true");
  await expect(themes.getByRole("button", { name: "Dark" })).toHaveAttribute("aria-pressed", "true");
  // The hydrated switch starts from the rendered theme (ADR 0018): had it started from another,
  // Dark would stay pressed here, as the server drew it.
  await themes.getByRole("button", { name: "Light" }).click();
  await expect(html).toHaveAttribute("data-theme", "light");
  await expect(themes.getByRole("button", { name: "Dark" })).toHaveAttribute("aria-pressed", "false");
  await expect(themes.getByRole("button", { name: "Light" })).toHaveAttribute("aria-pressed", "true");
  await page.reload();
  await expect(html).toHaveAttribute("data-theme", "light");

  await themes.getByRole("button", { name: "System" }).click();
  await expect(html).not.toHaveAttribute("data-theme", /.*/);
  await page.reload();
  await expect(html).not.toHaveAttribute("data-theme", /.*/);
});

test("narrow screens get the bottom navigation", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 800 });
  await openHydrated(page, "/chat");
  const bottom = page.getByRole("navigation", { name: "Primary (compact)" });
  await expect(bottom).toBeVisible();
  await expect(page.getByRole("navigation", { name: "Primary", exact: true })).toBeHidden();
  await bottom.getByRole("link", { name: "Alerts" }).click();
  await expect(page).toHaveURL("/notifications");
  // The theme switch moves to the top bar.
  await page.getByRole("banner").getByRole("button", { name: "Dark" }).click();
  await expect(page.locator("html")).toHaveAttribute("data-theme", "dark");
});

test("the app's wasm, scripts and styles arrive compressed and still hydrate", async ({ page }) => {
  await openHydrated(page, "/agents");
  const sizes = await page.evaluate(() =>
    performance
      .getEntriesByType("resource")
      .filter((r) => /\/pkg\/.*\.(wasm|js|css)$/.test(r.name))
      .map((r) => {
        const timing = r as PerformanceResourceTiming;
        return { name: timing.name, encoded: timing.encodedBodySize, decoded: timing.decodedBodySize };
      }),
  );
  expect(sizes.map((s) => new URL(s.name).pathname)).toContain("/pkg/agent-taskbay.wasm");
  for (const file of sizes) {
    // Brotli shrinks these files to between a third and a fifth.
    expect(file.encoded, file.name).toBeGreaterThan(0);
    expect(file.encoded, file.name).toBeLessThan(file.decoded / 2);
  }
});

test("operations endpoints answer", async ({ request }) => {
  const ready = await request.get("/readyz");
  expect(ready.status()).toBe(200);
  expect(await ready.json()).toMatchObject({ status: "ready" });
  expect((await request.get("/healthz")).status()).toBe(200);
  const metrics = await request.get("/metrics");
  expect(metrics.status()).toBe(200);
  expect(await metrics.text()).toContain('taskbay_http_requests_total{method="GET",route="/readyz",status="200"}');
});
