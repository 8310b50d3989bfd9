// Bundle sizes (issue #6, item 4): the hydrate wasm and its JS glue, raw / gzip -9 / brotli q11,
// as a Markdown table. Usage: node bundle.mjs <site pkg dir>
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { gzipSync, brotliCompressSync, constants } from "node:zlib";

const dir = process.argv[2];
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
console.log("| File | Raw | gzip -9 | brotli 11 |");
console.log("| --- | ---: | ---: | ---: |");
for (const name of readdirSync(dir).filter((f) => /\.(wasm|js|css)$/.test(f)).sort()) {
  const bytes = readFileSync(join(dir, name));
  const gz = gzipSync(bytes, { level: 9 }).length;
  const br = brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
  console.log(`| \`${name}\` | ${kb(bytes.length)} | ${kb(gz)} | ${kb(br)} |`);
}
