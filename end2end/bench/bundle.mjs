// The whole app as a browser downloads it (issue #28): every file of the built site (the wasm,
// its JS glue, the CSS, fonts and icons), raw, gzip -9 and brotli 11, each compressed on its own
// as the server sends it (fonts are sent as they are). Budget: the whole app ≤ 1.2 MB as brotli.
// Usage: node bundle.mjs <site root>
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

const [root] = process.argv.slice(2);
if (!root) {
  console.error("usage: node bundle.mjs <site root>");
  process.exit(2);
}
const BUDGET = 1.2 * 1024 * 1024;
const walk = (dir) =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
// The site's own files: not the precompressed copies, the hash file or benchmark leftovers.
const files = walk(root)
  .filter((p) => !/\.(br|gz)$/.test(p) && !p.endsWith("hash.txt") && !relative(root, p).startsWith("bench"))
  .sort();
const compressible = (p) => /\.(wasm|js|css|svg|html)$/.test(p);
console.log("| File | Raw | gzip -9 | brotli 11 (as sent) |");
console.log("| --- | ---: | ---: | ---: |");
let total = { raw: 0, gz: 0, br: 0 };
for (const path of files) {
  const bytes = readFileSync(path);
  const gz = compressible(path) ? Math.min(gzipSync(bytes, { level: 9 }).length, bytes.length) : bytes.length;
  const br = compressible(path)
    ? Math.min(brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length, bytes.length)
    : bytes.length;
  total = { raw: total.raw + bytes.length, gz: total.gz + gz, br: total.br + br };
  console.log(`| \`${relative(root, path)}\` | ${kb(bytes.length)} | ${kb(gz)} | ${kb(br)} |`);
}
console.log(`| **Whole app** | ${kb(total.raw)} | ${kb(total.gz)} | **${kb(total.br)}** |`);
console.log("");
console.log(`Budget: the whole app ≤ ${kb(BUDGET)} as brotli: ${total.br <= BUDGET ? "within" : "**over**"}.`);
