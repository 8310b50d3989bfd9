import { test, expect, openHydrated } from "./fixtures";
import { demo } from "./helpers";

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

test("Add agent opens its panel from the keyboard and takes the keyboard", async ({ page }) => {
  await openHydrated(page, "/agents");
  // The form is not rendered until it is opened.
  await expect(page.getByLabel("Agent Card URL")).toHaveCount(0);
  const toggle = page.getByRole("button", { name: "Add agent" });
  await toggle.focus();
  await page.keyboard.press("Enter");
  const panel = page.getByRole("region", { name: "Add agent" });
  await expect(panel).toBeVisible();
  await expect(toggle).toHaveAttribute("aria-expanded", "true");

  // Keyboard only: the field has focus once shown, Enter fetches the preview.
  const url = panel.getByLabel("Agent Card URL");
  await expect(url).toBeFocused();
  await page.keyboard.type(`${demo}/form/card.json`);
  await page.keyboard.press("Enter");
  await expect(panel.getByRole("article", { name: "Agent Card preview" })).toContainText("Form fixture (form)");
  // Closing and opening again shows a fresh form.
  await page.getByRole("button", { name: "Add agent" }).click();
  await expect(panel).toHaveCount(0);
  await page.getByRole("button", { name: "Add agent" }).click();
  await expect(panel.getByLabel("Agent Card URL")).toBeFocused();
  await expect(panel.getByLabel("Agent Card URL")).toHaveValue("");
  await expect(panel.getByRole("article", { name: "Agent Card preview" })).toHaveCount(0);
});

test("removing an agent another client removed first says so, and the list shows what is stored", async ({
  page,
  problems,
}) => {
  const cardUrl = `${demo}/slow/card.json`;
  const registered = await page.request.post("/api/agents", { data: { cardUrl } });
  expect(registered.status()).toBe(201);
  const { agent } = await registered.json();
  await openHydrated(page, "/agents");
  const list = page.getByRole("list", { name: "Registered agents" });
  const row = list.getByRole("listitem").filter({ hasText: cardUrl });
  await expect(row).toHaveCount(1);
  await row.getByRole("button", { name: "Remove" }).click();
  const confirm = row.getByRole("group", { name: "Confirm removal" });
  await expect(confirm).toContainText("Remove this agent? Its history is kept.");

  // Another client removes it while this page asks for confirmation.
  expect((await page.request.delete(`/api/agents/${agent.id}`)).status()).toBe(200);
  await confirm.getByRole("button", { name: "Remove agent" }).click();
  await expect(page.getByRole("alert")).toHaveText("Not found.");
  // The refused removal is a 404 answer, which Chromium logs; that one is expected.
  expect(problems).toEqual([expect.stringContaining("status of 404")]);
  problems.length = 0;
  await expect(row).toHaveCount(0);
  await expect(list.getByRole("listitem")).toHaveCount(2);
});

test("Cancel keeps an agent, and removal works from the keyboard", async ({ page }) => {
  await openHydrated(page, "/agents");
  const list = page.getByRole("list", { name: "Registered agents" });
  const cardUrl = `${demo}/slow/card.json`;
  expect((await page.request.post("/api/agents", { data: { cardUrl } })).status()).toBe(201);
  await page.reload();
  await expect(page.locator("body")).toHaveAttribute("data-hydrated", "true");
  const row = list.getByRole("listitem").filter({ hasText: cardUrl });
  await row.getByRole("button", { name: "Remove" }).focus();
  await page.keyboard.press("Enter");
  const confirm = row.getByRole("group", { name: "Confirm removal" });
  await confirm.getByRole("button", { name: "Cancel" }).click();
  await expect(confirm).toHaveCount(0);
  await expect(row).toHaveCount(1);
  // Removed for real this time, from the keyboard.
  await row.getByRole("button", { name: "Remove" }).focus();
  await page.keyboard.press("Enter");
  await confirm.getByRole("button", { name: "Remove agent" }).focus();
  await page.keyboard.press("Enter");
  await expect(row).toHaveCount(0);
  await expect(page.getByRole("alert")).toHaveCount(0);
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
  // Issue #32, inspector: each interface says whether it answers now; the card JSON is one click away.
  const reach = page.getByRole("region", { name: "Interfaces" }).getByTestId("reachability");
  await expect(reach.first()).toContainText(/^Reachable · Answered in \d+ ms/);
  expect(await reach.count()).toBe(await page.getByRole("region", { name: "Interfaces" }).getByTestId("interface").count());
  await expect(page.getByRole("button", { name: "Check again" })).toBeEnabled();
  const card = page.getByTestId("card-json");
  await card.locator("summary").click();
  await expect(card.locator("pre")).toContainText('"name": "Form fixture (form)"');
  await expect(card.getByRole("button", { name: "Copy the card JSON" })).toBeVisible();
  await page.getByRole("link", { name: "← Agents" }).click();
  await expect(page).toHaveURL("/agents");
});
