// Where navigation-to-hydrated time goes (issue #6, item 4): the same cold loads as hydrate.mjs,
// with the page's own clock read at each step of the boot. WebAssembly's compile and
// instantiate calls are wrapped by an init script (the app is not changed), and the
// navigation and resource timings give the document's and the files' arrival.
// Prints, per step, the median over RUNS loads of the time since navigation start.
// Usage: node phases.mjs <base url> [path]
import { chromium } from "@playwright/test";

const base = process.argv[2];
const path = process.argv[3] ?? "/agents";
const RUNS = Number(process.env.BENCH_RUNS ?? 9);

// Runs in the page before any of its scripts.
const probe = () => {
  const log = (window.__boot = []);
  const at = (what) => log.push([what, performance.now()]);
  const wrap = (name, label) => {
    const original = WebAssembly[name];
    WebAssembly[name] = function (...args) {
      at(`${label} start`);
      return original.apply(this, args).then((value) => {
        at(`${label} end`);
        return value;
      });
    };
  };
  wrap("compileStreaming", "compile main");
  wrap("instantiate", "instantiate");
  wrap("instantiateStreaming", "instantiateStreaming");
  document.addEventListener("DOMContentLoaded", () => at("DOMContentLoaded"));
  // Told through the console, so that Playwright injects nothing into the page while it boots.
  new MutationObserver((_, observer) => {
    if (document.body?.dataset.hydrated !== "true") return;
    observer.disconnect();
    at("hydrated");
    console.log("hydrated");
  }).observe(document, { attributes: true, subtree: true, attributeFilter: ["data-hydrated"] });
};

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu"],
});
const runs = [];
for (let i = 0; i < RUNS; i++) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.addInitScript(probe);
  const hydrated = page.waitForEvent("console", { predicate: (m) => m.text() === "hydrated", timeout: 30_000 });
  await page.goto(base + path, { waitUntil: "commit" });
  await hydrated;
  runs.push(
    await page.evaluate(() => {
      const nav = performance.getEntriesByType("navigation")[0];
      const files = performance.getEntriesByType("resource").filter((r) => /\.(wasm|js|css)$/.test(r.name));
      const wasm = files.filter((r) => r.name.endsWith(".wasm"));
      const steps = [
        ["document: first byte", nav.responseStart],
        ["document: last byte", nav.responseEnd],
        ["main wasm fetched", wasm.find((r) => /agent-taskbay\.wasm$/.test(r.name))?.responseEnd],
        ["last wasm fetched", Math.max(...wasm.map((r) => r.responseEnd))],
        ["css fetched", files.find((r) => r.name.endsWith(".css"))?.responseEnd],
      ];
      const seen = new Map();
      for (const [what, t] of window.__boot) {
        const n = (seen.get(what) ?? 0) + 1;
        seen.set(what, n);
        steps.push([what === "DOMContentLoaded" ? what : `${what} #${n}`, t]);
      }
      return { steps, wasmFiles: wasm.length };
    }),
  );
  await context.close();
}
await browser.close();

const names = [...new Set(runs.flatMap((r) => r.steps.map(([n]) => n)))];
const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rows = names
  .map((n) => [n, median(runs.map((r) => r.steps.find(([m]) => m === n)?.[1]).filter((t) => t !== undefined))])
  .sort((a, b) => a[1] - b[1]);
console.log(`Boot of \`${path}\`, median ms since navigation start over ${RUNS} cold loads (${runs[0].wasmFiles} wasm files):`);
for (const [n, t] of rows) console.log(`  ${t.toFixed(1).padStart(7)}  ${n}`);
