// Navigation to hydrated (issue #6, item 4): Chromium loads pages of the running console, each
// in a new context (no cache, no cookies), and the page's own clock gives the time from
// navigation start until the app marks <body data-hydrated="true">. An init script watches for
// the mark and says so on the console: nothing is injected into the page while it boots
// (Playwright's `waitForFunction` injects its own script then, and added about 50 ms on a
// 2-core machine; ADR 0018).
//
// Beside each page it loads its floor, in the same browser and alternating with it: the same
// HTML as the server rendered it, with its scripts taken out, from the same server with the
// same headers. It fetches every file the page preloads (wasm, JS, CSS, font) and runs none of
// them; its load event is what the browser, the machine and the files cost before any of our
// code runs. "Ours" is hydrated minus that floor. A blank page with the console's headers shows
// what a navigation alone costs here (COOP makes the browser start a new renderer).
//
// Usage: node hydrate.mjs <base url> <site root> <path> [path ...]
//   The floor pages are written under <site root>/bench/ (served as static files) and removed.
// BENCH_LOADS: loads per page (default 15; medians). BENCH_PHASES=1 also prints, per page, the
// median time of each step of the boot (document, files, wasm compile and instantiate calls).
// BENCH_TRACE=1 records a Chromium performance trace of the last load of the first page (trace.mjs).
import { chromium } from "@playwright/test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TRACE_CATEGORIES, summarizeTrace } from "./trace.mjs";
import { median, probe } from "./boot.mjs";

const [base, siteRoot, ...paths] = process.argv.slice(2);
if (!base || !siteRoot || paths.length === 0) {
  console.error("usage: node hydrate.mjs <base url> <site root> <path> [path ...]");
  process.exit(2);
}
const LOADS = Number(process.env.BENCH_LOADS ?? 15);
const PHASES = Boolean(process.env.BENCH_PHASES);

// The floor pages: the rendered HTML without its scripts, and a blank page.
const floorDir = join(siteRoot, "bench");
mkdirSync(floorDir, { recursive: true });
const floors = [];
for (const [i, path] of paths.entries()) {
  const html = await (await fetch(base + path)).text();
  writeFileSync(join(floorDir, `floor-${i}.html`), html.replace(/<script\b[^>]*>[\s\S]*?<\/script>/g, ""));
  floors.push(`/bench/floor-${i}.html`);
}
writeFileSync(join(floorDir, "blank.html"), "<!DOCTYPE html><html><head><title>blank</title></head><body><p>blank</p></body></html>");

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu"],
});

// One cold load: the hydrated time (and boot steps) for an app page, the load event for a static one.
const load = async (path, app, trace) => {
  const context = await browser.newContext();
  const page = await context.newPage();
  let result;
  if (trace) await browser.startTracing(page, { categories: TRACE_CATEGORIES });
  if (app) {
    await page.addInitScript(probe, PHASES);
    const hydrated = page.waitForEvent("console", { predicate: (m) => m.text().startsWith("hydrated "), timeout: 30_000 });
    await page.goto(base + path, { waitUntil: "commit" });
    const ms = Number((await hydrated).text().split(" ")[1]);
    const steps = PHASES ? await page.evaluate(bootSteps) : [];
    result = { ms, steps };
  } else {
    await page.goto(base + path, { waitUntil: "load" });
    result = { ms: await page.evaluate(() => performance.getEntriesByType("navigation")[0].loadEventStart) };
  }
  if (trace) summarizeTrace(await browser.stopTracing(), `loading ${path}`, "/tmp/hydrate.trace.json");
  await context.close();
  return result;
};

// In the page, after hydration: when the document and the files arrived, and the probe's log.
const bootSteps = () => {
  const nav = performance.getEntriesByType("navigation")[0];
  const files = performance.getEntriesByType("resource").filter((r) => /\.(wasm|js|css|woff2)$/.test(r.name));
  const wasm = files.filter((r) => r.name.endsWith(".wasm"));
  const steps = [
    ["document: last byte", nav.responseEnd],
    ["css fetched", files.find((r) => r.name.endsWith(".css"))?.responseEnd],
    ["main wasm fetched", wasm.find((r) => /\/agent-taskbay\.wasm$/.test(r.name))?.responseEnd],
    ["last preloaded file fetched", Math.max(...files.map((r) => r.responseEnd))],
  ];
  const seen = new Map();
  for (const [what, t] of window.__boot) {
    const n = (seen.get(what) ?? 0) + 1;
    seen.set(what, n);
    steps.push([what === "DOMContentLoaded" ? what : `${what} #${n}`, t]);
  }
  return steps.filter(([, t]) => Number.isFinite(t));
};

const results = paths.map(() => ({ app: [], floor: [], steps: [] }));
const blank = [];
// Alternating, so that a slower minute of the machine weighs on every column alike.
for (let i = 0; i < LOADS; i++) {
  blank.push((await load("/bench/blank.html", false)).ms);
  for (const [k, path] of paths.entries()) {
    const app = await load(path, true, process.env.BENCH_TRACE && k === 0 && i === LOADS - 1);
    results[k].app.push(app.ms);
    results[k].steps.push(app.steps);
    results[k].floor.push((await load(floors[k], false)).ms);
  }
}
await browser.close();
rmSync(floorDir, { recursive: true, force: true });

console.log("| Page | Hydrated (median) | Max | Same page, scripts taken out: loaded | Ours (hydrated − that) | Loads |");
console.log("| --- | ---: | ---: | ---: | ---: | ---: |");
for (const [k, path] of paths.entries()) {
  const { app, floor } = results[k];
  const [h, f] = [median(app), median(floor)];
  console.log(`| \`${path}\` | ${h.toFixed(0)} ms | ${Math.max(...app).toFixed(0)} ms | ${f.toFixed(0)} ms | ${(h - f).toFixed(0)} ms | ${LOADS} |`);
}
console.log(`| blank page, same headers | ${median(blank).toFixed(0)} ms (loaded) | ${Math.max(...blank).toFixed(0)} ms | | | ${LOADS} |`);
if (PHASES) {
  for (const [k, path] of paths.entries()) {
    const names = [...new Set(results[k].steps.flatMap((s) => s.map(([n]) => n)))];
    const rows = names
      .map((n) => [n, median(results[k].steps.map((s) => s.find(([m]) => m === n)?.[1]).filter((t) => t !== undefined))])
      .sort((a, b) => a[1] - b[1]);
    console.error(`Boot of \`${path}\`, median ms since navigation start over ${LOADS} loads:`);
    for (const [n, t] of rows) console.error(`  ${t.toFixed(1).padStart(7)}  ${n}`);
  }
}
