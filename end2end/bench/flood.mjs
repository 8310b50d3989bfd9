// Event-to-screen latency (issue #6, item 3): the demo agent's `flood` variant emits status
// events stamped with `metadata.emittedAtMs` at 50, 200 and 1000 per second into a chat whose
// Wire panel is open; in Chromium a MutationObserver records when each event's entry appears in
// the DOM (same machine, same clock). The page's own live stream tells which ledger sequence
// carries which stamped event (one JSON.parse per event on the page's main thread), and the
// Wire panel's line for that sequence is what must appear. Reports p50 / p99 / max latency,
// events missing from the screen, and the longest gap between animation frames
// (responsiveness). Each rate runs ROUNDS times (BENCH_ROUNDS, default 3) and every column is
// the median over the rounds.
//
// *Painted*: when the frame that shows the line had been painted, for both pages alike. A line
// added between frames (the bare page adds one per event as it arrives) waits for the next
// frame; one added by an animation-frame callback (the console hands its events over once per
// frame) is painted by that same frame. Each frame the harness posts a message from its
// animation-frame callback; the message is handled after that frame's rendering, and stamps
// every line that was in the DOM by then. The DOM time alone would count a frame's wait against
// a page that adds lines just before the paint and not against one that adds them earlier only
// to wait for the same paint.
//
// The floor (BENCH_SCREEN_FLOOR=1): the same floods, sent through the HTTP API into one
// conversation, followed by a bare page of the console's origin that adds one line per ledger
// event as it arrives and keeps the newest 100 (no app, no framework), measured the same way.
// What the machine gives any page under the same load: the console's rows are read beside it.
// Usage: node flood.mjs <base url> <demo origin>  (BENCH_RATES=1000 runs only the rates listed)
//
// Profiling: BENCH_TRACE=<rate> records a Chromium performance trace of the first round at that
// rate and prints to stderr where the page's main thread spent its time (script, style, layout,
// paint, garbage collection) and its longest tasks. The trace is kept in BENCH_TRACE_FILE.
import { chromium } from "@playwright/test";
import { TRACE_CATEGORIES, summarizeTrace } from "./trace.mjs";

const [base, demo] = process.argv.slice(2);
const SECONDS = 5;
const RATES = (process.env.BENCH_RATES ?? "50,200,1000").split(",").map(Number);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const FLOOR = Boolean(process.env.BENCH_SCREEN_FLOOR);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

const api = async (method, path, body) => {
  const res = await fetch(base + path, { method, headers: { "content-type": "application/json" }, body: body && JSON.stringify(body) });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
};
const registered = await api("POST", "/api/agents", { cardUrl: `${demo}/flood/card.json` });
const agentId = registered.agent.id;

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu"],
});
const page = await browser.newPage();
// Listens on the app's own live streams (no second connection): ledger sequence → the flood
// event's key and emission time. Runs before the app's listener, so it is known by the time
// the line renders.
await page.addInitScript(() => {
  window.__emitted = new Map();
  window.__arrived = new Map();
  const Native = window.EventSource;
  window.EventSource = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener("ledger", (e) => {
        const event = JSON.parse(e.data);
        const meta = event.payload?.statusUpdate?.metadata;
        if (meta?.emittedAtMs) {
          window.__emitted.set(event.sequence, [`${meta.count}:${meta.seq}`, meta.emittedAtMs]);
          // When the committed event reached the page (before the page decodes it): the
          // server's share of the latency.
          window.__arrived.set(`${meta.count}:${meta.seq}`, Date.now() - meta.emittedAtMs);
        }
      });
    }
  };
});
// A send: through the chat's composer, or (the floor) the HTTP API into the same context.
let send;
if (FLOOR) {
  // A bare document of the console's origin (so the stream is same-origin) holding only the list.
  await page.goto(`${base}/healthz`);
  await api("POST", `/api/agents/${agentId}/messages`, { text: "rate=10 count=1" });
  let task;
  while (!(task = (await api("GET", `/api/tasks?agentId=${agentId}&limit=1`)).tasks?.[0])) await sleep(50);
  const contextId = task.remoteContextId;
  await page.evaluate((conversation) => {
    document.body.innerHTML = '<ol class="wire-list"></ol>';
    const list = document.querySelector(".wire-list");
    // One line per ledger event, as it arrives, and only the newest 100 kept: the least a page
    // can do to show each one.
    new EventSource(`/api/live/conversations/${conversation}?after=0`).addEventListener("ledger", (e) => {
      const line = document.createElement("li");
      line.dataset.direction = "in";
      line.innerHTML = `<p class="wire-head"> seq ${JSON.parse(e.data).sequence}</p>`;
      list.append(line);
      if (list.childElementCount > 100) list.firstElementChild.remove();
    });
  }, task.conversationId);
  send = (text) => api("POST", `/api/agents/${agentId}/messages`, { text, contextId });
} else {
  await page.goto(`${base}/chat/new?agent=${agentId}`);
  await page.waitForFunction(() => document.body.dataset.hydrated === "true");
  // A first tiny flood creates the conversation.
  await page.getByTestId("composer-input").fill("rate=10 count=1");
  await page.getByTestId("composer-input").press("Enter");
  await page.waitForURL(/\/chat\/[0-9a-f-]{36}$/);
  await page.waitForFunction(() => document.body.dataset.hydrated === "true");
  await page.getByTestId("wire-toggle").click();
  await page.locator(".wire-list").waitFor();
  send = async (text) => {
    await page.getByTestId("composer-input").fill(text);
    await page.getByTestId("composer-input").press("Enter");
  };
}

await page.evaluate(() => {
  window.__seen = new Map();
  window.__painted = new Map();
  // Lines in the DOM whose frame has not been painted yet: [key, emitted at].
  let unpainted = [];
  window.__maxGap = 0;
  const list = document.querySelector(".wire-list");
  new MutationObserver((records) => {
    const now = Date.now();
    for (const record of records) {
      for (const node of record.addedNodes) {
        if (!(node instanceof HTMLElement)) continue;
        // A line, or a new block of lines.
        const lines = node.dataset.direction ? [node] : node.querySelectorAll("[data-direction]");
        for (const line of lines) {
          if (line.dataset.direction !== "in") continue;
          const sequence = / seq (\d+)/.exec(line.querySelector(".wire-head")?.textContent ?? "");
          const stamped = sequence && window.__emitted.get(Number(sequence[1]));
          if (stamped && !window.__seen.has(stamped[0])) {
            window.__seen.set(stamped[0], now - stamped[1]);
            unpainted.push(stamped);
          }
        }
      }
    }
  }).observe(list, { childList: true, subtree: true });
  // Handled after the rendering of the frame whose callback posted it: every line in the DOM by
  // then has been painted.
  const painted = new MessageChannel();
  painted.port1.onmessage = () => {
    const now = Date.now();
    for (const [key, emitted] of unpainted) window.__painted.set(key, now - emitted);
    unpainted = [];
  };
  let last = performance.now();
  const frame = (t) => {
    window.__maxGap = Math.max(window.__maxGap, t - last);
    last = t;
    painted.port2.postMessage(null);
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
});

// BENCH_MAIN_THREAD=1 prints each round's main-thread time by kind (Chromium's own counters,
// no tracer), to stderr.
const cdp = process.env.BENCH_MAIN_THREAD ? await page.context().newCDPSession(page) : null;
if (cdp) await cdp.send("Performance.enable");
const counters = async () =>
  cdp && Object.fromEntries((await cdp.send("Performance.getMetrics")).metrics.map((m) => [m.name, m.value]));

// One flood of `count` events; the count (unique per round) tells its events apart.
const flood = async (rate, count, trace) => {
  const before = await counters();
  await page.evaluate(() => { window.__maxGap = 0; });
  if (trace) await browser.startTracing(page, { categories: TRACE_CATEGORIES });
  // A new task in the same conversation (the previous one has finished).
  await send(`rate=${rate} count=${count}`);
  const deadline = Date.now() + (SECONDS + 30) * 1000;
  while (Date.now() < deadline) {
    const seen = await page.evaluate((c) => [...window.__seen.keys()].filter((k) => k.startsWith(`${c}:`)).length, count);
    if (seen >= count) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  // The last lines' frame is painted shortly after they are seen.
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 50))));
  const { latencies, painted, arrivals, maxGap } = await page.evaluate((c) => ({
    latencies: [...window.__seen.entries()].filter(([k]) => k.startsWith(`${c}:`)).map(([, v]) => v).sort((a, b) => a - b),
    painted: [...window.__painted.entries()].filter(([k]) => k.startsWith(`${c}:`)).map(([, v]) => v).sort((a, b) => a - b),
    arrivals: [...window.__arrived.entries()].filter(([k]) => k.startsWith(`${c}:`)).map(([, v]) => v).sort((a, b) => a - b),
    maxGap: window.__maxGap,
  }), count);
  if (trace) {
    summarizeTrace(await browser.stopTracing(), `the ${rate}/s flood`, `/tmp/flood-${rate}.trace.json`);
    const worst = await page.evaluate((c) => [...window.__seen.entries()].filter(([k]) => k.startsWith(`${c}:`))
      .map(([k, v]) => [Number(k.split(":")[1]), v]).sort((a, b) => b[1] - a[1]).slice(0, 12), count);
    process.stderr.write(`  slowest events (seq: ms): ${worst.map(([seq, ms]) => `${seq}: ${ms}`).join(", ")}\n`);
  }
  if (cdp) {
    const after = await counters();
    const ms = (key) => `${((after[key] - before[key]) * 1000).toFixed(0)} ms`;
    process.stderr.write(`  ${rate}/s round: main thread busy ${ms("TaskDuration")}: script ${ms("ScriptDuration")}, ` +
      `style ${ms("RecalcStyleDuration")} (${after.RecalcStyleCount - before.RecalcStyleCount} passes), ` +
      `layout ${ms("LayoutDuration")} (${after.LayoutCount - before.LayoutCount}); ${after.Nodes} DOM nodes\n`);
  }
  const pctOf = (values, p) => (values.length ? values[Math.min(values.length - 1, Math.floor(values.length * p))] : NaN);
  const pct = (p) => pctOf(latencies, p);
  // Let the task finish before the next flood.
  await new Promise((r) => setTimeout(r, 1500));
  return {
    p50: pct(0.5), p99: pct(0.99), max: latencies.at(-1) ?? NaN, missing: count - latencies.length, gap: maxGap,
    inP50: pctOf(arrivals, 0.5), inP99: pctOf(arrivals, 0.99),
    paintedP50: pctOf(painted, 0.5), paintedP99: pctOf(painted, 0.99),
  };
};

for (const rate of RATES) {
  const rounds = [];
  for (let round = 0; round < ROUNDS; round++) {
    rounds.push(await flood(rate, rate * SECONDS + round, round === 0 && String(rate) === process.env.BENCH_TRACE));
  }
  const m = (key) => median(rounds.map((r) => r[key]));
  console.log(`| ${rate}/s${FLOOR ? " (bare page)" : ""} | ${rate * SECONDS} | ${ROUNDS} | ${m("inP50")} ms | ${m("inP99")} ms | ${m("p50")} ms | ${m("p99")} ms | ${m("max")} ms | ${m("missing")} (worst ${Math.max(...rounds.map((r) => r.missing))}) | ${m("gap").toFixed(0)} ms | ${m("paintedP50")} ms | ${m("paintedP99")} ms |`);
}
await browser.close();
