// Ingest under load (issue #33): TASKS tasks of the demo agent's `flood` variant streaming at once
// (status updates and artifact chunks mixed, `mix=chunks`), sent through the console's HTTP API
// and followed by its workers. An event counts once the console committed it
// (`taskbay_ingest_events_total` on /metrics): nothing is acknowledged before commit.
//
// Each offered rate (BENCH_FLOOD_RATES, events per second per task, default 50,100,200) runs
// for BENCH_FLOOD_SECONDS (default 5) of agent time. Reported per rate: when every send had been
// dispatched (its task known), the events the agents
// emitted and the console stored, the stored rate from the first send to the last task finished,
// the best one-second rate, how long after the agents' last event the console finished, CPU per
// event (the console's process, and the whole machine: console, agent and database), and the
// console's RSS before and at its peak.
//
// Also per rate: the CPU ceiling, what the machine's cores could store per second at the
// machine's CPU per event (when it is below the offered rate, the machine is the limit).
//
// BENCH_SOAK_SECONDS=600 then repeats one rate (BENCH_SOAK_RATE, default the last) for ten
// minutes and reports RSS over time (BENCH_SOAK_REPORT names a file for that table).
//
// The console needs A2A_MAX_AGENT_STREAMS >= TASKS (else tasks over the cap are polled).
// Usage: node flood-tasks.mjs <base url> <demo origin> <console pid> [tasks]
import { readFileSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";

const [base, demo, pidText, tasksText] = process.argv.slice(2);
const pid = Number(pidText);
const TASKS = Number(tasksText ?? 100);
const RATES = (process.env.BENCH_FLOOD_RATES ?? "50,100,200").split(",").map(Number);
const SECONDS = Number(process.env.BENCH_FLOOD_SECONDS ?? 5);
const LABEL = process.env.BENCH_FLOOD_LABEL ?? "";
const CORES = availableParallelism();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))[1]) / 1024;
// utime + stime of the console, in seconds (USER_HZ 100).
const processCpu = () => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
};
// Busy time of the whole machine (every core), in seconds.
const machineCpu = () => {
  const [, ...ticks] = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/);
  const [user, nice, system, , , irq, softirq, steal] = ticks.map(Number);
  return (user + nice + system + irq + softirq + steal) / 100;
};
const stored = async () => {
  const text = await (await fetch(`${base}/metrics`)).text();
  return Number(/^taskbay_ingest_events_total (\d+)/m.exec(text)?.[1] ?? NaN);
};
const api = async (method, path, body, headers = {}) => {
  const res = await fetch(base + path, {
    method,
    headers: { "content-type": "application/json", ...headers },
    body: body && JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
};

const { agent } = await api("POST", "/api/agents", { cardUrl: `${demo}/flood/card.json` });

async function round(rate) {
  const count = rate * SECONDS;
  const [events0, process0, machine0, rss0] = [await stored(), processCpu(), machineCpu(), rss()];
  let peak = rss0;
  const t0 = performance.now();
  const commands = await Promise.all(
    Array.from({ length: TASKS }, (_, n) =>
      api(
        "POST",
        `/api/agents/${agent.id}/commands`,
        { text: `rate=${rate} count=${count} mix=chunks` },
        { "idempotency-key": `flood-tasks-${Date.now()}-${rate}-${n}` },
      ).then(({ command }) => command.id),
    ),
  );
  // Every command dispatched (it names its task), then no task active: every event stored.
  const samples = [[t0, events0]];
  let pending = [...commands];
  let dispatched = null;
  for (;;) {
    await sleep(100);
    samples.push([performance.now(), await stored()]);
    peak = Math.max(peak, rss());
    if (pending.length) {
      const settled = await Promise.all(pending.map((id) => api("GET", `/api/commands/${id}`)));
      pending = pending.filter((_, i) => !settled[i].command.result?.localId);
      if (!pending.length) dispatched = (performance.now() - t0) / 1000;
      if (settled.some(({ command }) => ["failed", "uncertain"].includes(command.status))) {
        throw new Error("a flood command failed");
      }
      continue;
    }
    const { tasks } = await api("GET", "/api/tasks?filter=active&limit=1");
    if (!tasks.length) break;
  }
  const elapsed = (performance.now() - t0) / 1000;
  const events = (await stored()) - events0;
  let best = 0;
  for (let i = 0, j = 0; i < samples.length; i++) {
    while (samples[i][0] - samples[j][0] > 1000) j++;
    if (j < i && samples[i][0] - samples[j][0] >= 900) {
      best = Math.max(best, ((samples[i][1] - samples[j][1]) * 1000) / (samples[i][0] - samples[j][0]));
    }
  }
  const perEvent = (seconds) => (seconds * 1e6) / events;
  const machinePerEvent = perEvent(machineCpu() - machine0);
  // The agent emits the flood, a WORKING announcement and COMPLETED per task; the console also
  // stores the send's first answer and may read the task once more.
  return {
    rate,
    dispatched,
    emitted: TASKS * (count + 2),
    events,
    elapsed,
    best,
    consoleCpu: perEvent(processCpu() - process0),
    machineCpu: machinePerEvent,
    // What the machine's cores could store per second at the CPU this load took per event.
    ceiling: (CORES * 1e6) / machinePerEvent,
    rss0,
    peak,
  };
}

const row = (r) =>
  `| ${LABEL} | ${TASKS} × ${r.rate}/s = ${TASKS * r.rate}/s | ${r.dispatched.toFixed(1)} s | ${r.emitted} | ` +
  `${r.events} | ${Math.round(r.events / r.elapsed)}/s | ${Math.round(r.best)}/s | ` +
  `${(r.elapsed - SECONDS).toFixed(1)} s | ${r.consoleCpu.toFixed(0)} µs | ${r.machineCpu.toFixed(0)} µs | ` +
  `${Math.round(r.ceiling)}/s | ${Math.round(r.rss0)} MB | ${Math.round(r.peak)} MB |`;

for (const rate of RATES) {
  console.log(row(await round(rate)));
}

// A soak (BENCH_SOAK_SECONDS): rounds at one rate until that much time has passed; it stops
// by itself. Its table (BENCH_SOAK_REPORT, a file, else standard output) reads the console's RSS
// over time: when each of eleven evenly spaced rounds began (the first: when it ended), and the
// stored rate of every round.
const soak = Number(process.env.BENCH_SOAK_SECONDS ?? 0);
if (soak > 0) {
  const soakRate = Number(process.env.BENCH_SOAK_RATE ?? RATES.at(-1));
  const rounds = [];
  const soakStart = performance.now();
  while ((performance.now() - soakStart) / 1000 < soak) {
    rounds.push(await round(soakRate));
  }
  const picks = [...new Set(Array.from({ length: 11 }, (_, i) => Math.round((i * (rounds.length - 1)) / 10)))];
  const rssAt = (i) => (i === 0 ? rounds[0].peak : rounds[i].rss0);
  const rates = rounds.map((r) => r.events / r.elapsed).sort((a, b) => a - b);
  const minutes = ((performance.now() - soakStart) / 60000).toFixed(1);
  const lines = [
    `${rounds.length} rounds of ${TASKS} tasks × ${soakRate} events/s for ${SECONDS} s in ${minutes} min, ` +
      `${rounds.reduce((sum, r) => sum + r.events, 0)} events stored (${LABEL || "this database"}). ` +
      `Highest RSS: ${Math.round(Math.max(...rounds.map((r) => r.peak)))} MB. Stored rate per round: median ` +
      `${Math.round(rates[Math.floor(rates.length / 2)])}/s, lowest ${Math.round(rates[0])}/s, highest ` +
      `${Math.round(rates.at(-1))}/s.`,
    "",
    `| Round | ${picks.map((i) => i + 1).join(" | ")} |`,
    `| --- | ${picks.map(() => "---:").join(" | ")} |`,
    `| RSS | ${picks.map((i) => `${Math.round(rssAt(i))} MB`).join(" | ")} |`,
  ];
  const text = lines.join("\n") + "\n";
  if (process.env.BENCH_SOAK_REPORT) writeFileSync(process.env.BENCH_SOAK_REPORT, text);
  else process.stdout.write(text);
}
