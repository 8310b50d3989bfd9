// Fan-out (issue #6, item 5): CLIENTS concurrent SSE clients follow one task's live stream
// while the demo agent's `slow` variant streams 20 chunks into it. Reports the server's RSS
// before and during, its CPU time over the run, and the delivery latency of each ledger event
// (client receive time minus the event's committed `receivedAt`; same machine, same clock).
// Runs ROUNDS times (BENCH_ROUNDS, default 3), each on a new task; every column is the median.
// "RSS before" is the server's RSS before the first round; "Extra" is each round's peak above it.
// Usage: node fanout.mjs <base url> <server pid> [clients]
import http from "node:http";
import { readFileSync } from "node:fs";

const [base, pidText, clientsText] = process.argv.slice(2);
const pid = Number(pidText);
const CLIENTS = Number(clientsText ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};
const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))[1]) / 1024;
const cpu = () => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in seconds (USER_HZ 100)
};
const json = async (method, path, body, headers = {}) => {
  const res = await fetch(base + path, { method, headers: { "content-type": "application/json", ...headers }, body: body && JSON.stringify(body) });
  return res.json();
};

const { agents } = await json("GET", "/api/agents");
const slow = agents.find((a) => /\/slow\//.test(a.cardUrl));
if (!slow) throw new Error("register the demo agent's slow variant first");
const round = async () => {
const before = rss();
const cpuBefore = cpu();

// One task, started and followed by the workers.
const { command } = await json("POST", `/api/agents/${slow.id}/commands`, { text: "fan-out benchmark" }, { "idempotency-key": `fanout-${Date.now()}` });
let taskId = null;
while (!taskId) {
  const { command: c } = await json("GET", `/api/commands/${command.id}`);
  taskId = c.result?.localId ?? null;
  if (!taskId) await new Promise((r) => setTimeout(r, 50));
}

const latencies = [];
let connected = 0;
let ended = 0;
const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
const done = new Promise((resolve) => {
  for (let i = 0; i < CLIENTS; i++) {
    http.get(`${base}/api/live/tasks/${taskId}?after=0`, { agent }, (res) => {
      connected++;
      let buffer = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => {
        const now = Date.now();
        buffer += chunk;
        let end;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = frame.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trim()).join("");
          if (!frame.includes("event: ledger") || !data) continue;
          const event = JSON.parse(data);
          const committed = Date.parse(event.receivedAt);
          if (committed > startedAt) latencies.push(now - committed);
          if (JSON.stringify(event.payload).includes("TASK_STATE_COMPLETED")) {
            res.destroy();
            if (++ended === CLIENTS) resolve();
          }
        }
      });
    }).on("error", () => { if (++ended === CLIENTS) resolve(); });
  }
});
const startedAt = Date.now();
let peak = before;
const sampler = setInterval(() => { peak = Math.max(peak, rss()); }, 200);
await Promise.race([done, new Promise((r) => setTimeout(r, 60_000))]);
clearInterval(sampler);
const cpuUsed = cpu() - cpuBefore;
latencies.sort((a, b) => a - b);
const pct = (p) => latencies.length ? latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] : NaN;
agent.destroy();
// Let the closed connections go before the next round measures its baseline.
await new Promise((r) => setTimeout(r, 2000));
return { connected, before, peak, extra: peak - before, cpuUsed, p50: pct(0.5), p99: pct(0.99), max: latencies.length ? latencies[latencies.length - 1] : NaN, deliveries: latencies.length };
};

const baseline = rss();
const rounds = [];
for (let i = 0; i < ROUNDS; i++) rounds.push(await round());
for (const r of rounds) r.extra = r.peak - baseline;
const m = (key) => median(rounds.map((r) => r[key]));
console.log(`| ${CLIENTS} | ${ROUNDS} | ${m("connected")} | ${baseline.toFixed(0)} MB | ${m("peak").toFixed(0)} MB | +${m("extra").toFixed(0)} MB | ${m("cpuUsed").toFixed(1)} s | ${m("p50")} ms | ${m("p99")} ms | ${m("max")} ms | ${m("deliveries")} |`);

process.exit(0);
