import AxeBuilder from "@axe-core/playwright";
import { test, expect, openHydrated } from "./fixtures";
import { addAgent, startChat } from "./helpers";
import type { Browser, Page } from "@playwright/test";

// (Named to run after agents.spec.ts, which counts the agents registered at start: this file
// registers more.)
//
// Issue #32, "Accessibility as a test": axe on every screen, in both themes, on a desktop and
// a phone, with WCAG 2.2 AA and axe's best practices. Any violation fails the run. The detail
// screens are scanned with real content: a chat with an A2UI surface (v0.9 and v0.8), a form
// prompt, an approval card, files (JSON trees, tables), a task page, an approval's review page
// and an agent's page.

const TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22a", "wcag22aa", "best-practice"];

const VIEWPORTS = [
  { name: "desktop", width: 1280, height: 800 },
  { name: "phone", width: 390, height: 844 },
] as const;

const THEMES = ["light", "dark"] as const;

/** Every screen, the detail ones with content made through the UI (once for the file). */
let paths: string[] = [];

async function prepare(browser: Browser): Promise<string[]> {
  const page = await browser.newPage();
  const chats: string[] = [];
  const chat = async (variant: string, name: string, text: string, ready: string) => {
    await addAgent(page, variant, name);
    await startChat(page, name, text);
    await expect(page.getByTestId(ready).first()).toBeVisible({ timeout: 20_000 });
    chats.push(new URL(page.url()).pathname);
  };
  await chat("a2ui", "Form fixture (a2ui)", "deploy", "a2ui-surface");
  await chat("a2ui", "Form fixture (a2ui)", "deploy v0.8", "a2ui-surface");
  await chat("form", "Form fixture (form)", "deploy please", "prompt-form");
  await chat("files", "Demo agent (files)", "send me the files", "artifact");
  // A medium-risk request (its chip), and a high-risk one that is then approved (the approved
  // chip on the queue and a decided review page).
  await chat("approver", "Form fixture (approver)", "structured deploy", "approval-card");
  await chat("approver", "Form fixture (approver)", "please approve the cleanup", "approval-card");
  const approval = await page.getByTestId("review-approval").first().getAttribute("href");
  const task = await page.getByTestId("task-card").last().locator("a.task-card-title").getAttribute("href");
  await openHydrated(page, approval!);
  await page.getByRole("button", { name: "Approve" }).click();
  await page.getByRole("button", { name: "Confirm: send it to the agent" }).click();
  await expect(page.getByTestId("approval-status")).toHaveText("Approved");
  await openHydrated(page, "/agents");
  const agent = await page.getByRole("list", { name: "Registered agents" }).getByRole("link").first().getAttribute("href");
  await page.close();
  return [
    "/agents",
    agent!,
    "/chat",
    ...chats,
    "/inbox",
    "/tasks",
    task!,
    "/approvals",
    "/approvals?tab=all",
    approval!,
    "/flows",
    "/notifications",
    "/settings",
  ];
}

test.beforeAll(async ({ browser }) => {
  test.setTimeout(120_000);
  paths = await prepare(browser);
});

async function scan(page: Page, where: string): Promise<string[]> {
  const results = await new AxeBuilder({ page }).withTags(TAGS).analyze();
  return results.violations.map(
    (v) =>
      `${where}: ${v.id} (${v.impact}) ${v.help} — ` +
      v.nodes
        .slice(0, 4)
        .map((n) => n.target.join(" "))
        .join(" | "),
  );
}

for (const theme of THEMES) {
  for (const viewport of VIEWPORTS) {
    test(`no axe violations on any screen: ${theme} theme, ${viewport.name}`, async ({ page }) => {
      test.setTimeout(180_000);
      await page.setViewportSize({ width: viewport.width, height: viewport.height });
      await page.emulateMedia({ colorScheme: theme, reducedMotion: "reduce" });
      const violations: string[] = [];
      for (const path of paths) {
        await openHydrated(page, path);
        await expect(page.locator("html")).toHaveCSS("color-scheme", theme);
        // Content loaded in the browser (extensions, cards, badges) is in place before the scan.
        await expect(page.locator('[aria-busy="true"]')).toHaveCount(0);
        violations.push(...(await scan(page, path)));
      }
      expect(violations).toEqual([]);
    });
  }
}
