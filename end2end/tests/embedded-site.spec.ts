import { spawn, type ChildProcess } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { test, expect, openHydrated } from "./fixtures";
import { waitUntilReady } from "./helpers";

// One binary to deploy (issue #31): the binary built with the `embed-site` feature, copied alone
// into an empty directory and started from another one, with no LEPTOS_SITE_ROOT and no hash
// file beside it, serves the whole console: the page hydrates from the wasm inside the binary,
// the content-hashed files are brotli-compressed and immutable, and a revalidation gets 304.
// When it stops, the directory it wrote its files to is gone.

const built = process.env.E2E_EMBEDDED_BIN;
const port = Number(process.env.E2E_EMBEDDED_PORT ?? 3100);
const base = `http://127.0.0.1:${port}`;

function siteDirs(): string[] {
  return readdirSync(tmpdir()).filter((name) => name.startsWith("agent-taskbay-site-"));
}

test("the binary alone, run from an empty directory, serves and hydrates the console from the site inside it", async ({ page }) => {
  test.setTimeout(90_000);
  if (!built) throw new Error("E2E_EMBEDDED_BIN is not set (scripts/e2e builds it)");
  const home = mkdtempSync(join(tmpdir(), "taskbay-install-"));
  const cwd = mkdtempSync(join(tmpdir(), "taskbay-cwd-"));
  const bin = join(home, "agent-taskbay");
  copyFileSync(built, bin, 0);
  const before = new Set(siteDirs());
  const env: NodeJS.ProcessEnv = { ...process.env, A2A_DATA_DIR: join(cwd, "data") };
  delete env.LEPTOS_SITE_ROOT;
  delete env.LEPTOS_HASH_FILES;
  const server: ChildProcess = spawn(bin, ["serve", "--host", "127.0.0.1", "--port", String(port)], {
    cwd,
    env,
    stdio: "ignore",
  });
  try {
    await waitUntilReady(`${base}/readyz`);
    expect(existsSync(join(home, "hash.txt")), "no hash file beside the binary").toBe(false);

    const wasm: { url: string; encoding?: string; cache?: string }[] = [];
    page.on("response", (response) => {
      if (response.url().endsWith(".wasm")) {
        const headers = response.headers();
        wasm.push({ url: response.url(), encoding: headers["content-encoding"], cache: headers["cache-control"] });
      }
    });
    await openHydrated(page, `${base}/chat`);
    await expect(page.getByRole("navigation").first()).toBeVisible();
    expect(wasm.length).toBeGreaterThan(0);
    expect(wasm[0].url).toMatch(/\/pkg\/agent-taskbay\.[0-9a-f]{16}\.wasm$/);
    expect(wasm[0].encoding).toBe("br");
    expect(wasm[0].cache).toBe("public, max-age=31536000, immutable");

    // An unhashed file revalidates: its Last-Modified is the build's, and asking again with it
    // answers 304.
    const favicon = await fetch(`${base}/favicon.svg`);
    expect(favicon.status).toBe(200);
    const modified = favicon.headers.get("last-modified");
    expect(modified).toBeTruthy();
    const again = await fetch(`${base}/favicon.svg`, { headers: { "if-modified-since": modified! } });
    expect(again.status).toBe(304);

    const created = siteDirs().filter((name) => !before.has(name));
    expect(created, "the binary wrote its site into one private directory").toHaveLength(1);
    const hashes = readFileSync(join(tmpdir(), created[0], "hash.txt"), "utf8");
    expect(wasm[0].url).toContain(hashes.match(/^wasm: ([0-9a-f]{16})$/m)![1]);

    const exited = new Promise((resolve) => server.once("exit", resolve));
    server.kill("SIGTERM");
    await exited;
    expect(siteDirs().filter((name) => !before.has(name)), "the site directory is removed at shutdown").toHaveLength(0);
  } finally {
    server.kill("SIGKILL");
    rmSync(home, { recursive: true, force: true });
    rmSync(cwd, { recursive: true, force: true });
  }
});
