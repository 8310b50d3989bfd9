// Navigation to hydrated (issue #6, item 4): Chromium loads a page of the running console and
// the time from navigation start until the app marks <body data-hydrated="true"> is read from
// the page's own clock. Median and max of RUNS cold loads (new context each: no cache).
// Usage: node hydrate.mjs <base url> [path]
// Profiling: BENCH_TRACE=1 records a Chromium performance trace of the last load (see trace.mjs).
import { chromium } from "@playwright/test";
import { TRACE_CATEGORIES, summarizeTrace } from "./trace.mjs";

const base = process.argv[2];
const path = process.argv[3] ?? "/agents";
const RUNS = 9;
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu"],
});
const times = [];
for (let i = 0; i < RUNS; i++) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const trace = process.env.BENCH_TRACE && i === RUNS - 1;
  if (trace) await browser.startTracing(page, { categories: TRACE_CATEGORIES });
  await page.goto(base + path, { waitUntil: "commit" });
  const ms = await page.waitForFunction(
    () => (document.body && document.body.dataset.hydrated === "true" ? performance.now() : null),
    null,
    { polling: "raf", timeout: 30_000 },
  );
  times.push(await ms.jsonValue());
  if (trace) summarizeTrace(await browser.stopTracing(), `loading ${path}`, "/tmp/hydrate.trace.json");
  await context.close();
}
await browser.close();
times.sort((a, b) => a - b);
console.log(`| \`${path}\` | ${times[Math.floor(RUNS / 2)].toFixed(0)} ms | ${times[RUNS - 1].toFixed(0)} ms | ${RUNS} |`);
