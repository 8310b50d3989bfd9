import { test, expect, openHydrated } from "./fixtures";

// scripts/test registers the demo agent's `form` variant and a card URL with no agent behind it.

test("the agents screen shows live reachability and filters as you type", async ({ page }) => {
  await openHydrated(page, "/agents");
  const list = page.getByRole("list", { name: "Registered agents" });
  const reachable = list.getByRole("listitem").filter({ hasText: "Form fixture (form)" });
  await expect(reachable).toContainText("Reachable");
  await expect(reachable).toContainText("v1.0.0 · A2A 1.0 · no auth");
  const failed = list.getByRole("listitem").filter({ hasText: "Unreachable agent" });
  await expect(failed).toContainText("Discovery failed");
  await expect(failed).toContainText("Agent Card discovery failed.");

  const search = page.getByRole("searchbox", { name: "Search agents" });
  await search.fill("no-such-variant");
  await expect(list.getByRole("listitem")).toHaveCount(1);
  await expect(list.getByRole("listitem")).toContainText("Unreachable agent");
  await search.fill("deploy request");
  await expect(list.getByRole("listitem")).toHaveCount(1);
  await expect(list.getByRole("listitem")).toContainText("Form fixture (form)");
  await search.fill("nothing matches this");
  await expect(list.getByRole("listitem")).toHaveCount(0);
  await expect(page.getByText("No agent matches this search.")).toBeVisible();
});

test("navigating to the agents screen on the client fetches the list through the server function", async ({ page }) => {
  await openHydrated(page, "/chat");
  const answered = page.waitForResponse((r) => r.url().endsWith("/api/fn/list_agents") && r.status() === 200);
  await page.getByRole("navigation", { name: "Primary", exact: true }).getByRole("link", { name: "Agents" }).click();
  await answered;
  await expect(page.getByRole("list", { name: "Registered agents" }).getByRole("listitem")).toHaveCount(2);
});

test("add an agent: preview its card with the compliance report, connect, then remove it", async ({ page, problems }) => {
  const demo = process.env.DEMO_ORIGIN ?? "http://127.0.0.1:4092";
  await openHydrated(page, "/agents");
  const list = page.getByRole("list", { name: "Registered agents" });
  // Env-seeded agents offer no Remove button.
  await expect(list.getByRole("listitem").filter({ hasText: "Form fixture (form)" }).getByRole("button")).toHaveCount(0);

  await page.getByRole("button", { name: "Add agent" }).click();
  const panel = page.getByRole("region", { name: "Add agent" });
  const url = panel.getByLabel("Agent Card URL");
  await url.fill("ftp://example.com/card.json");
  await url.press("Enter");
  // The browser's own URL validation accepts ftp:, so the server answers.
  await expect(panel.getByRole("alert")).toHaveText("Agent Card URL must be http(s).");
  // The refused preview is a 400 answer, which Chromium logs; that one is expected.
  expect(problems).toEqual([expect.stringContaining("status of 400 (Bad Request)")]);
  problems.length = 0;

  await url.fill(`${demo}/showcase/card.json`);
  await panel.getByRole("button", { name: "Fetch Agent Card" }).click();
  const preview = panel.getByRole("article", { name: "Agent Card preview" });
  await expect(preview.getByRole("heading", { name: "Form fixture (showcase)" })).toBeVisible();
  await expect(preview).toContainText("A2A 1.0");
  await expect(preview).toContainText(/compliance \d+\/100/);
  await preview.getByRole("button", { name: "Connect" }).click();

  const added = list.getByRole("listitem").filter({ hasText: "Form fixture (showcase)" });
  await expect(added).toContainText("Reachable");
  await expect(list.getByRole("listitem")).toHaveCount(3);

  await added.getByRole("button", { name: "Remove" }).click();
  await added.getByRole("group", { name: "Confirm removal" }).getByRole("button", { name: "Remove agent" }).click();
  await expect(list.getByRole("listitem")).toHaveCount(2);
  await expect(list.getByRole("listitem").filter({ hasText: "Form fixture (showcase)" })).toHaveCount(0);
});

test("an agent's page shows its card: capabilities, interfaces, skills and security", async ({ page }) => {
  await openHydrated(page, "/agents");
  await page.getByRole("link", { name: "Form fixture (form)" }).click();
  await expect(page).toHaveURL(/\/agents\/[0-9a-f-]+$/);
  await expect(page.getByRole("heading", { level: 1, name: "Form fixture (form)" })).toBeVisible();
  await expect(page.getByRole("region", { name: "Capabilities" })).toContainText("Streaming");
  await expect(page.getByRole("region", { name: "Capabilities" })).toContainText("structured-form/v1");
  await expect(page.getByRole("region", { name: "Interfaces" })).toContainText("JSONRPC");
  await expect(page.getByRole("region", { name: "Interfaces" })).toContainText("HTTP+JSON");
  await expect(page.getByRole("region", { name: "Security" })).toContainText("None advertised");
  await expect(page.getByRole("region", { name: "Security" })).toContainText("text/plain");
  await page.getByRole("link", { name: "← Agents" }).click();
  await expect(page).toHaveURL("/agents");
});
