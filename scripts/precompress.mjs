// Writes a gzip (-9) and a brotli (quality 11) copy beside each text or wasm file of the built
// site, which the server sends to browsers that accept them (the router's tower-http ServeDir,
// precompressed gzip and brotli). A copy that is not smaller is not written; a file whose copies
// are newer than it is skipped (a second build compresses only what changed).
// Usage: node scripts/precompress.mjs <site root>
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

const root = process.argv[2];
if (!root) {
  console.error("usage: node scripts/precompress.mjs <site root>");
  process.exit(2);
}
const walk = (dir) =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
const mtime = (path) => { try { return statSync(path).mtimeMs; } catch { return -1; } };
let files = 0, raw = 0, br = 0, skipped = 0;
for (const path of walk(root).filter((p) => /\.(wasm|js|css|svg|html)$/.test(p))) {
  const changed = mtime(path);
  if (["gz", "br"].every((ext) => mtime(`${path}.${ext}`) >= changed)) {
    skipped += 1;
    continue;
  }
  const bytes = readFileSync(path);
  const copies = {
    gz: gzipSync(bytes, { level: 9 }),
    br: brotliCompressSync(bytes, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length },
    }),
  };
  for (const [ext, copy] of Object.entries(copies)) {
    // An old copy of a file that no longer compresses must not be served instead of it.
    if (copy.length < bytes.length) writeFileSync(`${path}.${ext}`, copy);
    else rmSync(`${path}.${ext}`, { force: true });
  }
  files += 1;
  raw += bytes.length;
  br += Math.min(copies.br.length, bytes.length);
}
console.log(`    precompressed ${files} files: ${(raw / 1024).toFixed(0)} KiB raw, ${(br / 1024).toFixed(0)} KiB as brotli; ${skipped} unchanged`);
