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
