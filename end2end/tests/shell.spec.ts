import type { APIRequestContext, Page } from "@playwright/test";
import { test, expect, openHydrated } from "./fixtures";

const screens = [
  { path: "/agents", heading: "Agents" },
  { path: "/chat", heading: "Chat" },
  { path: "/inbox", heading: "Inbox" },
  { path: "/tasks", heading: "Tasks" },
  { path: "/approvals", heading: "Approvals" },
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

/** The app's files are named by their contents (ADR 0026): `/pkg/agent-taskbay.<16 hex>.<ext>`. */
const hashed = (ext: string) => new RegExp(`^/pkg/agent-taskbay\\.[0-9a-f]{16}\\.${ext}$`);

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

test("every page, detail pages included, loads the same content-hashed app files (ADR 0026)", async ({ request }) => {
  const { agentId, taskId, conversationId } = await aTask(request);
  const pages = [
    "/agents",
    `/agents/${agentId}`,
    "/chat",
    `/chat/${conversationId}`,
    "/tasks",
    `/tasks/${taskId}`,
    "/inbox",
    "/approvals",
    // No approval has this id: the page says so, with the same files.
    "/approvals/01a22b40-f888-750b-bbe2-336deb230560",
    "/flows",
    "/notifications",
    "/settings",
    "/nowhere",
  ];
  const seen = new Set<string>();
  for (const path of pages) {
    const html = await (await request.get(path)).text();
    const wasm = [...html.matchAll(/<link rel="preload" href="([^"]+\.wasm)"/g)].map((m) => m[1]);
    const js = [...html.matchAll(/<link rel="modulepreload" href="([^"]+\.js)"/g)].map((m) => m[1]);
    const css = [...html.matchAll(/<link [^>]*rel="stylesheet"[^>]*href="([^"]+\.css)"/g)].map((m) => m[1]);
    expect(wasm, path).toEqual([expect.stringMatching(hashed("wasm"))]);
    expect(js, path).toEqual([expect.stringMatching(hashed("js"))]);
    expect(css, path).toEqual([expect.stringMatching(hashed("css"))]);
    seen.add([...wasm, ...js, ...css].join(" "));
  }
  expect(seen.size).toBe(1);
  // Named by their contents, they never change: a browser keeps them without asking again.
  for (const file of [...seen][0].split(" ")) {
    const response = await request.get(file);
    expect(response.status(), file).toBe(200);
    expect(response.headers()["cache-control"], file).toBe("public, max-age=31536000, immutable");
  }
  // Any other file is revalidated.
  expect((await request.get("/favicon.svg")).headers()["cache-control"]).toBeUndefined();
});

test("a page fetches the app's one wasm file once; other screens and a repeat visit fetch none", async ({ page, context }) => {
  const fetched = wasmRequests(page);
  await openHydrated(page, "/tasks");
  expect(fetched).toEqual([expect.stringMatching(/^agent-taskbay\.[0-9a-f]{16}\.wasm$/)]);
  const nav = page.getByRole("navigation", { name: "Primary", exact: true });
  await nav.getByRole("link", { name: "Agents" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Agents" })).toBeVisible();
  expect(fetched).toHaveLength(1);

  // A repeat visit, in a new tab: the wasm, its glue and the stylesheet come from the cache.
  const again = await context.newPage();
  await openHydrated(again, "/agents");
  const transferred = await again.evaluate(() =>
    performance
      .getEntriesByType("resource")
      .filter((r) => /\/pkg\//.test(r.name))
      .map((r) => ({ name: r.name, bytes: (r as PerformanceResourceTiming).transferSize })),
  );
  const names = transferred.map((r) => new URL(r.name).pathname);
  expect(names.map((name) => name.split(".").pop()).sort()).toEqual(["css", "js", "wasm"]);
  for (const name of names) expect(name).toMatch(/^\/pkg\/agent-taskbay\.[0-9a-f]{16}\.(css|js|wasm)$/);
  for (const file of transferred) expect(file.bytes, file.name).toBe(0);
});

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
  // The hydrated switch starts from the rendered theme (`<html data-theme>`): had it started from another,
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
  // Issue #32: the same label for each screen as on a wide screen; the rest under "More".
  // The sidebar is hidden at this width (so not found by role); its labels are still there.
  const sidebarLabels = await page
    .locator("nav.sidebar li > a > span:not(.nav-badge)")
    .evaluateAll((spans) => spans.map((s) => s.textContent));
  const more = bottom.getByRole("button", { name: "More" });
  await more.click();
  await expect(more).toHaveAttribute("aria-expanded", "true");
  const compactLabels = await bottom
    .locator(".bottom-link > span:not(.nav-badge)")
    .evaluateAll((spans) => spans.map((s) => s.textContent).filter((t) => t !== "More"));
  expect([...compactLabels].sort()).toEqual([...sidebarLabels].sort());
  expect(sidebarLabels).toEqual(expect.arrayContaining(["Approvals", "Orchestration", "Notifications", "Settings"]));
  // Escape closes the menu; a choice closes it too.
  await page.keyboard.press("Escape");
  await expect(bottom.getByRole("list", { name: "More screens" })).toHaveCount(0);
  await more.click();
  await bottom.getByRole("link", { name: "Notifications" }).click();
  await expect(page).toHaveURL("/notifications");
  await expect(bottom.getByRole("list", { name: "More screens" })).toHaveCount(0);
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
  expect(sizes.map((s) => new URL(s.name).pathname)).toContainEqual(expect.stringMatching(hashed("wasm")));
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

test("every icon is drawn from the sprite inlined in the page; no sprite or logo image is fetched", async ({ page }) => {
  const sprites: string[] = [];
  page.on("request", (r) => {
    if (new URL(r.url()).pathname === "/icons.svg" || r.resourceType() === "image") sprites.push(r.url());
  });
  await openHydrated(page, "/settings");
  const icons = await page.locator("svg.icon use").evaluateAll((uses) =>
    uses.map((use) => {
      const href = use.getAttribute("href") ?? "";
      const symbol = href.startsWith("#") ? document.getElementById(href.slice(1)) : null;
      // An icon laid out (the bottom bar's are hidden on a wide screen) has the symbol's size.
      const shown = (use.closest("svg")?.getClientRects().length ?? 0) > 0;
      return { href, symbol: symbol?.tagName === "symbol", shown, drawn: use.getBoundingClientRect().width > 0 };
    }),
  );
  // The screens' navigation (sidebar and bottom bar) and the theme switch's three choices.
  expect(icons.length).toBeGreaterThanOrEqual(10);
  for (const icon of icons) {
    expect(icon.symbol, icon.href).toBe(true);
    expect(icon.drawn, icon.href).toBe(icon.shown);
  }
  expect(icons.filter((icon) => icon.shown).length).toBeGreaterThanOrEqual(10);
  // The logo beside the product's name is drawn inline too (an SVG image is a document of its own).
  const logo = page.getByRole("navigation", { name: "Primary", exact: true }).locator(".brand svg.brand-mark");
  await expect(logo).toBeVisible();
  expect((await logo.boundingBox())?.width).toBe(28);
  // The favicon's drawing (public/favicon.svg): its tile, lines and dot.
  await expect(logo.locator("rect, path, circle")).toHaveCount(3);
  expect(sprites).toEqual([]);
});

test("without sign-in the identity menu names the local operator, with nothing to sign out of", async ({ page }) => {
  await openHydrated(page, "/tasks");
  const menu = page.getByTestId("identity");
  await expect(menu).toContainText("Local operator");
  await expect(menu).toContainText("Admin");
  await expect(menu.getByRole("button", { name: "Sign out" })).toHaveCount(0);
});

test("Escape closes the Add agent panel and gives the keyboard back to its button", async ({ page }) => {
  await openHydrated(page, "/agents");
  const open = page.getByRole("button", { name: "Add agent" });
  await open.click();
  const panel = page.getByRole("region", { name: "Add agent" });
  await expect(panel.getByLabel("Agent Card URL")).toBeFocused();
  await page.keyboard.press("Escape");
  await expect(panel).toHaveCount(0);
  await expect(open).toBeFocused();
  await expect(open).toHaveAttribute("aria-expanded", "false");
});

test("the keyboard drives the console: ?, g then a letter, /, j/k with Enter, and Ctrl-K", async ({ page }) => {
  await openHydrated(page, "/agents");
  await page.keyboard.press("?");
  const help = page.getByRole("dialog", { name: "Keyboard shortcuts" });
  await expect(help).toContainText("g then t");
  await expect(help).toContainText("Go to Approvals");
  await page.keyboard.press("Escape");
  await expect(help).toHaveCount(0);

  await page.keyboard.press("g");
  await page.keyboard.press("t");
  await expect(page).toHaveURL("/tasks");
  await page.keyboard.press("g");
  await page.keyboard.press("a");
  await expect(page).toHaveURL("/agents");
  await expect(page.getByRole("heading", { level: 1, name: "Agents" })).toBeVisible();

  await page.keyboard.press("/");
  const search = page.getByRole("main").getByRole("searchbox");
  await expect(search).toBeFocused();
  // Letters typed into a field are text, not shortcuts.
  await page.keyboard.type("gt");
  await expect(page).toHaveURL("/agents");
  await search.fill("");
  await search.blur();

  const links = page.getByRole("list", { name: "Registered agents" }).getByRole("listitem").locator(".agent-name a");
  // The list is filtered again once the search is empty: wait for two entries, not a count taken mid-render.
  await expect(links.nth(1)).toBeVisible();
  await page.keyboard.press("j");
  await expect(links.nth(0)).toBeFocused();
  await page.keyboard.press("j");
  await expect(links.nth(1)).toBeFocused();
  await page.keyboard.press("k");
  await expect(links.nth(0)).toBeFocused();
  const href = await links.nth(0).getAttribute("href");
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(href!);

  await page.keyboard.press("Control+k");
  const palette = page.getByRole("dialog", { name: "Command palette" });
  await expect(palette.getByRole("combobox")).toBeFocused();
  await page.keyboard.type("settings");
  await expect(palette.getByRole("option")).toHaveText([/Go to Settings/]);
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL("/settings");
  await expect(palette).toHaveCount(0);
});

test("a dialog keeps Tab inside it and gives the focus back when it closes", async ({ page }) => {
  await openHydrated(page, "/tasks");
  const nav = page.getByRole("link", { name: "Tasks" }).first();
  await nav.focus();
  await page.keyboard.press("?");
  const help = page.getByRole("dialog", { name: "Keyboard shortcuts" });
  const close = help.getByRole("button", { name: "Close" });
  await expect(close).toBeFocused();
  // The Close button is the dialog's only control: Tab and Shift-Tab stay on it.
  await page.keyboard.press("Tab");
  await expect(close).toBeFocused();
  await page.keyboard.press("Shift+Tab");
  await expect(close).toBeFocused();
  await page.keyboard.press("Escape");
  await expect(help).toHaveCount(0);
  await expect(nav).toBeFocused();
});

test("single-key shortcuts can be turned off in Settings; Ctrl-K still works (WCAG 2.1.4)", async ({ page }) => {
  await openHydrated(page, "/settings");
  const toggle = page.getByTestId("single-key-shortcuts");
  await expect(toggle).toBeChecked();
  await toggle.uncheck();
  await expect(page.getByTestId("settings-status")).toHaveText("Saved in this browser.");
  await page.locator("body").click({ position: { x: 5, y: 5 } });
  await page.keyboard.press("?");
  await page.keyboard.press("g");
  await page.keyboard.press("t");
  await expect(page.getByRole("dialog", { name: "Keyboard shortcuts" })).toHaveCount(0);
  await expect(page).toHaveURL("/settings");
  await page.keyboard.press("Control+k");
  await expect(page.getByRole("dialog", { name: "Command palette" })).toBeVisible();
  await page.keyboard.press("Escape");
  // Back on: the keys work again, after a reload too.
  await toggle.check();
  await openHydrated(page, "/settings");
  await page.locator("body").click({ position: { x: 5, y: 5 } });
  await expect(page.getByTestId("single-key-shortcuts")).toBeChecked();
  await page.keyboard.press("?");
  await expect(page.getByRole("dialog", { name: "Keyboard shortcuts" })).toBeVisible();
});
