import { test, expect, openHydrated } from "./fixtures";
import { addAgent, startChat } from "./helpers";

// A chat as people see it, on a desktop and on a phone, in both themes: nothing spills
// sideways, the newest item is above the composer. With DOCS_SCREENSHOTS_DIR set (scripts/
// screenshots), each view is also saved there for the docs (docs/images/).

const VIEWS = [
  { name: "desktop", width: 1280, height: 860 },
  { name: "phone", width: 390, height: 844 },
] as const;

test("a chat fits desktop and phone screens in both themes", async ({ page }) => {
  test.setTimeout(90_000);
  await addAgent(page, "showcase", "Form fixture (showcase)");
  await startChat(page, "Form fixture (showcase)", "choose");
  await expect(page.getByTestId("quick-reply").first()).toBeVisible({ timeout: 20_000 });
  await page.getByTestId("quick-reply").first().click();
  await expect(page.getByTestId("task-card").last()).toHaveAttribute("data-state", "TASK_STATE_COMPLETED", {
    timeout: 20_000,
  });
  const input = page.getByTestId("composer-input");
  await input.fill("surface");
  await input.press("Enter");
  await expect(page.getByTestId("a2ui-surface").first()).toBeVisible({ timeout: 20_000 });
  const chat = new URL(page.url()).pathname;
  for (const theme of ["light", "dark"] as const) {
    for (const view of VIEWS) {
      await page.setViewportSize({ width: view.width, height: view.height });
      await page.emulateMedia({ colorScheme: theme, reducedMotion: "reduce" });
      await openHydrated(page, chat);
      await expect(page.getByTestId("a2ui-surface").first()).toBeVisible();
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, `${theme} ${view.name}: no sideways scrolling`).toBeLessThanOrEqual(0);
      const dir = process.env.DOCS_SCREENSHOTS_DIR;
      if (dir) await page.screenshot({ path: `${dir}/chat-${view.name}-${theme}.png` });
    }
  }
});
