// Fan-out (issue #33): CLIENTS concurrent SSE clients follow live task streams while the demo
// agent's `slow` variant streams 20 chunks (500 ms apart) into each of TASKS tasks; the clients
// are spread evenly over the tasks (TASKS 1: every client on one task; TASKS = CLIENTS: one
// client per task). Reports the server's RSS before and at its peak, its CPU time over the run,
// how long the clients took to connect, and the delivery latency of each ledger event committed
// after its client connected (client receive time minus the event's committed `receivedAt`;
// same machine, same clock). Events committed before a client connected reach it by catching up;
// they are not counted as deliveries. The clients' own CPU time is reported beside the server's:
// one Node.js thread reads every client's socket (plain sockets, see `follow`), so with thousands
// of clients part of the latency is the clients' queue.
// *Frame*: the mean size of a ledger frame as received (the floor's frames are sized to match).
// Runs ROUNDS times (BENCH_ROUNDS, default 3), each on new tasks; every column is the median.
// "RSS before" is the server's RSS before the first round; "Extra" is each round's peak above it.
// The server needs A2A_MAX_LIVE_CONNECTIONS >= CLIENTS and a file limit above it.
// With BENCH_FANOUT_FLOOR=1 the server is `server/examples/sse_floor.rs` (the floor: the same
// streams from a bare axum server), and each task is a new id whose first client starts it.
// Usage: node fanout.mjs <base url> <server pid> [clients] [tasks]
import net from "node:net";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";

const [base, pidText, clientsText, tasksText] = process.argv.slice(2);
const pid = Number(pidText);
const CLIENTS = Number(clientsText ?? 1000);
const TASKS = Number(tasksText ?? 1);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
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

const FLOOR = process.env.BENCH_FANOUT_FLOOR === "1";
const slow = FLOOR ? null : (await json("GET", "/api/agents")).agents.find((a) => /\/slow\//.test(a.cardUrl));
if (!FLOOR && !slow) throw new Error("register the demo agent's slow variant first");

// A task of the slow agent, started and followed by the workers; its local id. On the floor
// server, a new id: its first client starts its frames.
const startTask = async (n) => {
  if (FLOOR) return randomUUID();
  const { command } = await json("POST", `/api/agents/${slow.id}/commands`, { text: `fan-out benchmark ${n}` }, { "idempotency-key": `fanout-${Date.now()}-${n}` });
  for (;;) {
    const { command: c } = await json("GET", `/api/commands/${command.id}`);
    if (c.result?.localId) return c.result.localId;
    await sleep(50);
  }
};

// The committed time of a ledger frame's event, read without parsing the whole frame.
const RECEIVED = '"receivedAt":"';
const receivedAt = (frame) => {
  const at = frame.indexOf(RECEIVED);
  return at < 0 ? NaN : Date.parse(frame.slice(at + RECEIVED.length, frame.indexOf('"', at + RECEIVED.length)));
};

// One client: a plain socket with a hand-written request, its bytes scanned for frames. Node's
// HTTP client (parser, chunked decoding, a stream per response) cost the clients more CPU than
// the server spent delivering, on the same two cores; this reads the same frames for less.
// A frame is a piece of the body ending in a blank line; the chunked encoding's size lines
// between frames do not matter to what is looked for in it.
const url = new URL(base);
const follow = (task, on) => {
  const socket = net.connect(Number(url.port), url.hostname);
  socket.setNoDelay(true);
  socket.setEncoding("utf8");
  let connectedAt = 0;
  let buffer = "";
  let over = false;
  const finish = () => { if (!over) { over = true; socket.destroy(); on.end(); } };
  socket.on("connect", () => {
    socket.write(`GET /api/live/tasks/${task}?after=0 HTTP/1.1\r\nHost: ${url.host}\r\nAccept: text/event-stream\r\n\r\n`);
  });
  socket.on("data", (chunk) => {
    const now = Date.now();
    buffer += chunk;
    if (!connectedAt) {
      const head = buffer.indexOf("\r\n\r\n");
      if (head < 0) return;
      if (!buffer.startsWith("HTTP/1.1 200")) return finish();
      connectedAt = now;
      on.connected(now);
      buffer = buffer.slice(head + 4);
    }
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      if (!frame.includes("event: ledger")) continue;
      on.ledger(frame, connectedAt, now);
      if (frame.includes("TASK_STATE_COMPLETED")) return finish();
    }
  });
  socket.on("error", finish);
  socket.on("close", finish);
  return socket;
};

const round = async () => {
  const before = rss();
  const cpuBefore = cpu();
  const clientCpuBefore = process.cpuUsage();
  const tasks = await Promise.all(Array.from({ length: TASKS }, (_, n) => startTask(n)));
  const latencies = [];
  let frameBytes = 0;
  let frames = 0;
  let connected = 0;
  let ended = 0;
  let lastConnected = 0;
  const started = Date.now();
  const sockets = [];
  const done = new Promise((resolve) => {
    const end = () => { if (++ended === CLIENTS) resolve(); };
    for (let i = 0; i < CLIENTS; i++) {
      sockets.push(follow(tasks[i % TASKS], {
        connected: (at) => { lastConnected = at; connected++; },
        ledger: (frame, connectedAt, now) => {
          frameBytes += frame.length + 2;
          frames++;
          const committed = receivedAt(frame);
          if (committed > connectedAt) latencies.push(now - committed);
        },
        end,
      }));
    }
  });
  let peak = before;
  const sampler = setInterval(() => { peak = Math.max(peak, rss()); }, 200);
  await Promise.race([done, sleep(90_000)]);
  clearInterval(sampler);
  const cpuUsed = cpu() - cpuBefore;
  const clientCpu = process.cpuUsage(clientCpuBefore);
  const clientCpuUsed = (clientCpu.user + clientCpu.system) / 1e6;
  latencies.sort((a, b) => a - b);
  const pct = (p) => latencies.length ? latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] : NaN;
  for (const socket of sockets) socket.destroy();
  // Let the closed connections go before the next round measures its baseline.
  await sleep(2000);
  return {
    connected, peak, cpuUsed, clientCpuUsed, connect: (lastConnected - started) / 1000,
    frameBytes: frames ? Math.round(frameBytes / frames) : NaN,
    p50: pct(0.5), p99: pct(0.99), max: latencies.length ? latencies[latencies.length - 1] : NaN, deliveries: latencies.length,
  };
};

const baseline = rss();
const rounds = [];
for (let i = 0; i < ROUNDS; i++) rounds.push(await round());
for (const r of rounds) r.extra = r.peak - baseline;
const m = (key) => median(rounds.map((r) => r[key]));
console.log(`| ${CLIENTS} | ${TASKS} | ${ROUNDS} | ${m("connected")} | ${m("connect").toFixed(1)} s | ${baseline.toFixed(0)} MB | ${m("peak").toFixed(0)} MB | ${m("extra") < 0 ? "" : "+"}${m("extra").toFixed(0)} MB | ${m("cpuUsed").toFixed(1)} s | ${m("clientCpuUsed").toFixed(1)} s | ${m("p50")} ms | ${m("p99")} ms | ${m("max")} ms | ${m("deliveries")} | ${m("frameBytes")} B |`);

process.exit(0);
