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

test("a screen fetches the main module and its own few wasm files, and the next screen's on the way", async ({ page }) => {
  // ADR 0014: a split point per screen, the shared chunks merged to a handful of files.
  const fetched = new Set<string>();
  page.on("request", (request) => {
    const name = new URL(request.url()).pathname.split("/").pop() ?? "";
    if (name.endsWith(".wasm")) fetched.add(name);
  });
  await openHydrated(page, "/tasks");
  const own = (screen: string) => [...fetched].filter((f) => f.startsWith(`split_${screen}_`));
  expect(fetched.has("agent-taskbay.wasm")).toBe(true);
  expect(own("tasks")).toHaveLength(1);
  // No other screen's own code, and a handful of files, not one per set of screens sharing code.
  expect([...fetched].filter((f) => f.startsWith("split_"))).toHaveLength(1);
  expect(fetched.size).toBeLessThanOrEqual(8);

  const before = fetched.size;
  const nav = page.getByRole("navigation", { name: "Primary", exact: true });
  await nav.getByRole("link", { name: "Agents" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Agents" })).toBeVisible();
  expect(own("agents")).toHaveLength(1);
  expect(fetched.size).toBeGreaterThan(before);
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
