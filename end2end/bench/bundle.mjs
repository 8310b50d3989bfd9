// Bundle sizes (issue #6, item 4) as Markdown tables, raw / gzip -9 / brotli q11.
// The wasm is split at its lazily loaded routes (ADR 0010, 0014): the first table lists the files
// every page loads (main wasm, JS glue, chunk loader, CSS); the second what each screen adds (its
// own file and the shared chunks it loads, from __wasm_split_manifest.json, as one pack when the
// build packed them, ADR 0019) and the total wasm a browser fetches to hydrate it; the third the
// views a page loads after hydrating (ADR 0015). Each file is compressed on its own, as a server
// sends it.
// Usage: node bundle.mjs <site pkg dir> <output name>
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { gzipSync, brotliCompressSync, constants } from "node:zlib";

const [dir, name = "agent-taskbay"] = process.argv.slice(2);
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
const sizes = (file) => {
  const bytes = readFileSync(join(dir, file));
  return {
    raw: bytes.length,
    gz: gzipSync(bytes, { level: 9 }).length,
    br: brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
  };
};
const add = (a, b) => ({ raw: a.raw + b.raw, gz: a.gz + b.gz, br: a.br + b.br });
const zero = { raw: 0, gz: 0, br: 0 };
const row = (label, s, extra = "") => console.log(`| ${label} | ${kb(s.raw)} | ${kb(s.gz)} | ${kb(s.br)} |${extra}`);

const loader = readdirSync(dir).find((f) => f.startsWith("__wasm_split") && f.endsWith(".js"));
const always = [`${name}.wasm`, `${name}.js`, loader, `${name}.css`].filter(Boolean);
console.log("Loaded by every page:");
console.log("");
console.log("| File | Raw | gzip -9 | brotli 11 |");
console.log("| --- | ---: | ---: | ---: |");
for (const file of always) row(`\`${file}\``, sizes(file));

// The wasm modules; packs hold copies of some of them.
const wasmFiles = readdirSync(dir).filter((f) => f.endsWith(".wasm") && !f.startsWith("pack_"));
const allWasm = wasmFiles.map(sizes).reduce(add, zero);
const main = sizes(`${name}.wasm`);
const manifestPath = join(dir, "__wasm_split_manifest.json");
if (existsSync(manifestPath)) {
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
  const cache = new Map();
  const sized = (stem) => {
    if (!cache.has(stem)) cache.set(stem, existsSync(join(dir, `${stem}.wasm`)) ? sizes(`${stem}.wasm`) : zero);
    return cache.get(stem);
  };
  console.log("");
  console.log("What each screen adds (its own file and the shared chunks it loads; ADR 0014), and the wasm");
  console.log("fetched to hydrate it (main + those files), gzip -9:");
  console.log("");
  console.log("| Screen | Files | Raw | gzip -9 | brotli 11 | Wasm to hydrate (gzip) |");
  console.log("| --- | ---: | ---: | ---: | ---: | ---: |");
  const splits = Object.entries(manifest)
    .map(([split, stems]) => [split.replace(/^_+/, "").replace(/_\d+$/, ""), stems, `pack_${split.replace(/^_+/, "")}`])
    .sort(([a], [b]) => a.localeCompare(b));
  // Views whose code loads after hydration are `#[lazy]` functions named `…_split` (ADR 0015).
  const deferred = ([name]) => name.endsWith("_split");
  // A screen's files arrive as one pack when the build packed them (ADR 0019): the pack is
  // what is sent, compressed as one file.
  for (const [screen, stems, pack] of splits.filter((s) => !deferred(s))) {
    const packed = existsSync(join(dir, `${pack}.wasm`));
    const s = packed ? sized(pack) : stems.map(sized).reduce(add, zero);
    row(`${screen} | ${stems.length}${packed ? " in 1 pack" : ""}`, s, ` ${kb(main.gz + s.gz)} |`);
  }
  const views = splits.filter(deferred);
  if (views.length > 0) {
    console.log("");
    console.log("Views loaded after hydration, when a page shows one (ADR 0015): their files, and the wasm fetched");
    console.log("for one with everything it needs (main + those files), gzip -9. A screen has most of them already:");
    console.log("");
    console.log("| View | Files | Raw | gzip -9 | brotli 11 | With main (gzip) |");
    console.log("| --- | ---: | ---: | ---: | ---: | ---: |");
    for (const [view, stems] of views) {
      const s = stems.map(sized).reduce(add, zero);
      row(`${view.replace(/_split$/, "")} | ${stems.length}`, s, ` ${kb(main.gz + s.gz)} |`);
    }
  }
}
console.log("");
console.log(`All ${wasmFiles.length} wasm files together: ${kb(allWasm.raw)} raw, ${kb(allWasm.gz)} gzip -9, ${kb(allWasm.br)} brotli 11.`);
