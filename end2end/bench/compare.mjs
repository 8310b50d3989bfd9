// Navigation to hydrated for two builds of the console, in one browser, alternating (ADR 0018:
// on 2 cores runs minutes apart differ by up to 50 ms, so variants are only compared within one
// run). Each build is served by its own server; each load is cold (a new context), and the
// page reports its own hydration as in hydrate.mjs. Prints, per page and build, the median and
// the spread of the middle half, and how many wasm requests a load made.
//
// Usage: node compare.mjs <base url A> <base url B> <path> [path ...]
// BENCH_LOADS: loads per page and build (default 21).
import { chromium } from "@playwright/test";
import { median, probe } from "./boot.mjs";

const [a, b, ...paths] = process.argv.slice(2);
if (!a || !b || paths.length === 0) {
  console.error("usage: node compare.mjs <base url A> <base url B> <path> [path ...]");
  process.exit(2);
}
const LOADS = Number(process.env.BENCH_LOADS ?? 21);
const bases = [a, b];

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu"],
});

const load = async (url) => {
  const context = await browser.newContext();
  const page = await context.newPage();
  let wasm = 0;
  page.on("request", (request) => {
    if (new URL(request.url()).pathname.endsWith(".wasm")) wasm += 1;
  });
  await page.addInitScript(probe, false);
  const hydrated = page.waitForEvent("console", { predicate: (m) => m.text().startsWith("hydrated "), timeout: 30_000 });
  await page.goto(url, { waitUntil: "commit" });
  const ms = Number((await hydrated).text().split(" ")[1]);
  await context.close();
  return { ms, wasm };
};

const results = paths.map(() => bases.map(() => ({ ms: [], wasm: [] })));
for (let i = 0; i < LOADS; i++) {
  for (const [k, path] of paths.entries()) {
    // A before B on even rounds, B before A on odd ones.
    for (const j of i % 2 === 0 ? [0, 1] : [1, 0]) {
      const { ms, wasm } = await load(bases[j] + path);
      results[k][j].ms.push(ms);
      results[k][j].wasm.push(wasm);
    }
  }
}
await browser.close();

const quartiles = (xs) => {
  const s = [...xs].sort((x, y) => x - y);
  return [s[Math.floor(s.length / 4)], s[Math.floor((3 * s.length) / 4)]];
};
console.log("| Page | Build | Hydrated (median) | Middle half | Wasm requests | Loads |");
console.log("| --- | --- | ---: | ---: | ---: | ---: |");
for (const [k, path] of paths.entries()) {
  for (const [j, base] of bases.entries()) {
    const { ms, wasm } = results[k][j];
    const [q1, q3] = quartiles(ms);
    console.log(`| \`${path}\` | ${"AB"[j]} (${base}) | ${median(ms).toFixed(0)} ms | ${q1.toFixed(0)}–${q3.toFixed(0)} ms | ${median(wasm)} | ${LOADS} |`);
  }
}
