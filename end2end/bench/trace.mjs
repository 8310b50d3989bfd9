// Chromium performance traces for the benchmarks' profiling switch (BENCH_TRACE): what the
// page's main thread did while a benchmark ran. Not a measurement of its own; it says where
// the time of one run went.
import { writeFileSync } from "node:fs";

// BENCH_TRACE_LIGHT=1 leaves the sampling profiler out: it slows the page's scripts several times
// over, so frames traced without it are closer to untraced ones (no busiest-functions list then).
export const TRACE_CATEGORIES = process.env.BENCH_TRACE_LIGHT
  ? ["devtools.timeline", "disabled-by-default-devtools.timeline", "blink.user_timing"]
  : ["devtools.timeline", "disabled-by-default-devtools.timeline", "v8", "blink.user_timing",
  "disabled-by-default-v8.cpu_profiler", "v8.wasm", "disabled-by-default-v8.wasm.detailed"];

// Kinds of work reported (nested slices are counted under each name, so kinds overlap).
const NAMES = ["RunTask", "FireAnimationFrame", "FunctionCall", "v8.callFunction", "EventDispatch", "TimerFire",
  "v8.compile", "v8.wasm.compiledModule", "wasm.CompileLazy", "ParseHTML", "UpdateLayoutTree", "Layout", "PrePaint",
  "Paint", "Layerize", "Commit", "MajorGC", "MinorGC"];

// Writes the trace to BENCH_TRACE_FILE (or `file`) and prints to stderr the renderer main
// thread's time by kind of work and its five longest tasks.
export const summarizeTrace = (buffer, label, file) => {
  const path = process.env.BENCH_TRACE_FILE ?? file;
  writeFileSync(path, buffer);
  const events = JSON.parse(buffer.toString()).traceEvents ?? [];
  const mains = events.filter((e) => e.name === "thread_name" && e.args?.name === "CrRendererMain");
  const isMain = (e) => mains.some((m) => m.pid === e.pid && m.tid === e.tid);
  const slices = events.filter((e) => e.ph === "X" && isMain(e));
  const by = new Map();
  for (const e of slices) by.set(e.name, (by.get(e.name) ?? 0) + (e.dur ?? 0) / 1000);
  const log = (line) => process.stderr.write(line + "\n");
  log(`trace of ${label} (${path}):`);
  for (const name of NAMES) if (by.has(name)) log(`  ${name.padEnd(24)} ${by.get(name).toFixed(1).padStart(8)} ms`);
  const tasks = slices.filter((e) => e.name === "RunTask").sort((a, b) => b.dur - a.dur).slice(0, 5);
  for (const task of tasks) {
    const inside = slices.filter((e) => e !== task && e.ts >= task.ts && e.ts + (e.dur ?? 0) <= task.ts + task.dur);
    const kinds = new Map();
    for (const e of inside) if (NAMES.includes(e.name)) kinds.set(e.name, (kinds.get(e.name) ?? 0) + e.dur / 1000);
    log(`  long task ${(task.dur / 1000).toFixed(1)} ms: ${[...kinds].map(([k, v]) => `${k} ${v.toFixed(1)}`).join(", ")}`);
  }
  // V8 keeps only optimised (TurboFan) wasm code in its code cache: every function a visit runs
  // that never got hot is compiled again (Liftoff) on its first call, on the main thread.
  const lazy = slices.filter((e) => e.name === "wasm.CompileLazy");
  if (lazy.length > 0) {
    const ms = lazy.reduce((sum, e) => sum + (e.dur ?? 0), 0) / 1000;
    log(`  wasm functions compiled on their first call: ${lazy.length} (${ms.toFixed(1)} ms with tracing)`);
  }
  // The sampling profiler writes its chunks from a thread of its own, in the renderer's process.
  topFunctions(events.filter((e) => e.name === "ProfileChunk" && mains.some((m) => m.pid === e.pid)), log);
};

// The sampling profiler's busiest functions on the main thread, by self time. Wasm functions
// have names only when the wasm kept its name section (wasm-opt without -g drops it).
const topFunctions = (chunks, log) => {
  const frames = new Map();
  const self = new Map();
  for (const chunk of chunks) {
    const profile = chunk.args?.data?.cpuProfile ?? {};
    for (const node of profile.nodes ?? []) frames.set(node.id, node.callFrame);
    const deltas = chunk.args?.data?.timeDeltas ?? [];
    (profile.samples ?? []).forEach((id, i) => {
      const frame = frames.get(id);
      const name = frame ? frame.functionName || "(anonymous)" : "?";
      self.set(name, (self.get(name) ?? 0) + (deltas[i] ?? 0) / 1000);
    });
  }
  if (self.size === 0) return;
  log("  busiest functions (self time, sampled):");
  for (const [name, ms] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 30)) {
    log(`    ${ms.toFixed(1).padStart(8)} ms  ${name.slice(0, 160)}`);
  }
};
