import { expect, openHydrated } from "./fixtures";
import type { Page } from "@playwright/test";

// Shared steps of the specs that talk to the real demo agent (scripts/e2e starts it;
// DEMO_ORIGIN is its origin). Agents are added through the UI, as an operator would.

export const demo = process.env.DEMO_ORIGIN ?? "http://127.0.0.1:4092";

/** Adds the demo variant through the Agents screen unless it is already registered. */
export async function addAgent(page: Page, variant: string, name: string): Promise<void> {
  await openHydrated(page, "/agents");
  const list = page.getByRole("list", { name: "Registered agents" });
  if ((await list.getByRole("listitem").filter({ hasText: name }).count()) > 0) return;
  await page.getByRole("button", { name: "Add agent" }).click();
  const panel = page.getByRole("region", { name: "Add agent" });
  await panel.getByLabel("Agent Card URL").fill(`${demo}/${variant}/card.json`);
  await panel.getByRole("button", { name: "Fetch Agent Card" }).click();
  await panel.getByRole("article", { name: "Agent Card preview" }).getByRole("button", { name: "Connect" }).click();
  await expect(list.getByRole("listitem").filter({ hasText: name })).toContainText("Reachable");
}

/** Opens a new chat with the agent from the Chat landing and sends `text` with Enter. */
export async function startChat(page: Page, name: string, text: string): Promise<void> {
  await openHydrated(page, "/chat");
  await page.getByRole("region", { name: "Start a chat" }).getByRole("link", { name }).click();
  await expect(page).toHaveURL(/\/chat\/new\?agent=/);
  const input = page.getByTestId("composer-input");
  await input.fill(text);
  await input.press("Enter");
  await expect(page).toHaveURL(/\/chat\/[0-9a-f-]{36}$/);
}


/** Waits (at most 30 s) until `url` answers 2xx: a console the spec started is ready. */
export async function waitUntilReady(url: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} not ready`);
}
