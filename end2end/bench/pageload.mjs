// What a user feels when a page of the console loads (issue #28): Chromium with network emulation
// (40 ms round trip, 20 Mbit/s down and up; CPU not throttled) loads every screen of the running
// console and reports, per screen, the median time from navigation start until the app marks
// <body data-hydrated="true"> on
//
// - a first visit: a new context each load (empty cache, no cookies);
// - a repeat visit: the same browser profile, after one visit, so the content-hashed files come
//   from the browser's cache (served `immutable`, server/src/http/site.rs) and only the page is
//   fetched. Measured twice: in a normal profile (a user-data directory, as a returning user's
//   browser has; V8 keeps the wasm's compiled code there once it has tiered up, so the warm-up
//   tab stays open WARM_MS first), which the budget applies to; and in a private window (an
//   off-the-record context: files cached in memory, no compiled code kept), reported beside it;
//
// and the bytes a first visit transferred (the page and every file, as sent: brotli when the
// server has a copy). Budgets: first visit ≤ 1,000 ms, repeat visit ≤ 300 ms.
//
// Usage: node pageload.mjs <base url> <path> [path ...]
// BENCH_LOADS: loads per page and kind (default 15; medians).
// Profiling: BENCH_TRACE=1 also records a Chromium performance trace of one more repeat visit of
// each page (in a private window: Playwright traces a launched browser, not a profile) and prints
// where its main thread's time went (trace.mjs), the trace kept in /tmp/pageload-<page>.trace.json.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "@playwright/test";
import { median, probe } from "./boot.mjs";
import { TRACE_CATEGORIES, summarizeTrace } from "./trace.mjs";

const [base, ...paths] = process.argv.slice(2);
if (!base || paths.length === 0) {
  console.error("usage: node pageload.mjs <base url> <path> [path ...]");
  process.exit(2);
}
const LOADS = Number(process.env.BENCH_LOADS ?? 15);
// 20 Mbit/s in bytes per second; the round trip is added to every request.
const LINK = { offline: false, latency: 40, downloadThroughput: 2_500_000, uploadThroughput: 2_500_000 };
const FIRST_BUDGET = 1000;
const REPEAT_BUDGET = 300;

// How long the warm-up visit of a repeat stays open: V8 writes a wasm module's compiled code to
// the profile's code cache about 2 s after its functions tiered up.
const WARM_MS = Number(process.env.WARM_MS ?? 3000);
const LAUNCH = {
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu"],
};
const browser = await chromium.launch(LAUNCH);

// A page on the emulated link that reports its hydration through the probe.
const throttledPage = async (context) => {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send("Network.enable");
  await cdp.send("Network.emulateNetworkConditions", LINK);
  await page.addInitScript(probe, false);
  return page;
};

// Loads `path` in `page`; resolves to the hydrated time and the bytes transferred.
const visit = async (page, path) => {
  const hydrated = page.waitForEvent("console", {
    predicate: (m) => m.text().startsWith("hydrated "),
    timeout: 30_000,
  });
  await page.goto(base + path, { waitUntil: "commit" });
  const ms = Number((await hydrated).text().split(" ")[1]);
  const bytes = await page.evaluate(() =>
    [...performance.getEntriesByType("navigation"), ...performance.getEntriesByType("resource")]
      .reduce((sum, entry) => sum + entry.transferSize, 0),
  );
  return { ms, bytes };
};

const first = async (path) => {
  const context = await browser.newContext();
  const result = await visit(await throttledPage(context), path);
  await context.close();
  return result;
};

// One warm-up visit (kept open WARM_MS), then LOADS visits in a new tab of the same profile each:
// a normal profile in a user-data directory of its own, or (`privately`) a private window.
const repeats = async (path, privately) => {
  const profile = privately ? null : mkdtempSync(join(tmpdir(), "pageload-profile-"));
  const context = privately ? await browser.newContext() : await chromium.launchPersistentContext(profile, LAUNCH);
  const warm = await throttledPage(context);
  await visit(warm, path);
  await new Promise((resolve) => setTimeout(resolve, WARM_MS));
  await warm.close();
  const times = [];
  for (let i = 0; i < LOADS; i += 1) {
    const page = await throttledPage(context);
    times.push((await visit(page, path)).ms);
    await page.close();
  }
  await context.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
  return times;
};

// A traced repeat visit of `path` (after one untraced visit in the same private window).
const traceRepeat = async (path, label) => {
  const context = await browser.newContext();
  // Closed first, so the trace holds the traced page's renderer alone.
  const warm = await throttledPage(context);
  await visit(warm, path);
  await warm.close();
  const page = await throttledPage(context);
  await browser.startTracing(page, { categories: TRACE_CATEGORIES });
  await visit(page, path);
  const file = `/tmp/pageload-${label.replace(/[^a-z0-9]+/gi, "-").replace(/^-|-$/g, "") || "root"}.trace.json`;
  summarizeTrace(await browser.stopTracing(), `a repeat visit of ${label}`, file);
  await context.close();
};

const ms = (n) => `${Math.round(n)} ms`;
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
console.log(
  "| Page | First visit (hydrated) | Transferred | Repeat visit (hydrated) | Repeat, private window | Transferred | Within budget |",
);
console.log("| --- | ---: | ---: | ---: | ---: | ---: | :---: |");
let failures = 0;
for (const path of paths) {
  const cold = [];
  for (let i = 0; i < LOADS; i += 1) cold.push(await first(path));
  const firstMs = median(cold.map((r) => r.ms));
  const firstBytes = median(cold.map((r) => r.bytes));
  const context = await browser.newContext();
  const warmPage = await throttledPage(context);
  await visit(warmPage, path);
  const again = await throttledPage(context);
  const repeatBytes = (await visit(again, path)).bytes;
  await context.close();
  const repeatMs = median(await repeats(path, false));
  const privateMs = median(await repeats(path, true));
  const within = firstMs <= FIRST_BUDGET && repeatMs <= REPEAT_BUDGET;
  if (!within) failures += 1;
  const label = path.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, ":id");
  console.log(
    `| \`${label}\` | ${ms(firstMs)} | ${kb(firstBytes)} | ${ms(repeatMs)} | ${ms(privateMs)} | ${kb(repeatBytes)} | ${within ? "yes" : "**no**"} |`,
  );
  if (process.env.BENCH_TRACE) await traceRepeat(path, label);
}
await browser.close();
console.log("");
console.log(
  `Budgets: first visit ≤ ${FIRST_BUDGET} ms, repeat visit (normal profile) ≤ ${REPEAT_BUDGET} ms (medians of ${LOADS} loads). ` +
    (failures === 0 ? "Every page is within budget." : `${failures} page(s) over budget.`),
);
