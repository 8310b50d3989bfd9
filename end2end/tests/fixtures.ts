import { test as base, expect, type Page } from "@playwright/test";

// Every test fails on an uncaught page error, a console error or a hydration warning.
export const test = base.extend<{ problems: string[] }>({
  problems: [
    async ({ page }, use) => {
      const problems: string[] = [];
      page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
      page.on("console", (message) => {
        const text = message.text();
        if (message.type() === "error" || /hydration/i.test(text)) {
          problems.push(`console ${message.type()}: ${text}`);
        }
      });
      await use(problems);
      expect(problems, "page errors and console errors").toEqual([]);
    },
    { auto: true },
  ],
});

export { expect };

/** Loads `path` and waits until the wasm app has hydrated the server-rendered page. */
export async function openHydrated(page: Page, path: string): Promise<void> {
  await page.goto(path);
  await expect(page.locator("body")).toHaveAttribute("data-hydrated", "true");
}
