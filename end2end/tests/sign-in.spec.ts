import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { test, expect } from "./fixtures";

// Sign-in in a real browser (issue #29, security-and-durability §1.1–§1.2): a real OpenID
// provider (oidc-provider over HTTPS, its CA trusted by the console through A2A_EXTRA_CA_CERTS),
// the console behind a TLS front as a team runs it (the session cookie is `__Host-`, Secure), a
// person provisioned with `agent-taskbay auth provision`, and Chromium going through the
// provider's sign-in form and back, then signing out.

const bin = process.env.E2E_SERVER_BIN;
const consolePort = Number(process.env.E2E_SIGN_IN_PORT ?? 3095);

type Provider = { child: ChildProcess; issuer: string; dir: string };

async function startProvider(redirect: string): Promise<Provider> {
  const dir = mkdtempSync(join(tmpdir(), "taskbay-oidc-"));
  const child = spawn("node", ["oidc/provider.mjs"], {
    env: { ...process.env, OP_DIR: dir, OP_REDIRECT_URI: redirect },
    stdio: ["ignore", "pipe", "ignore"],
  });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once("line", resolve);
    child.once("exit", (code) => reject(new Error(`the provider exited (${code})`)));
  });
  return { child, issuer: JSON.parse(line).issuer, dir };
}

// HTTPS in front of the console on `port` (the provider's certificate for 127.0.0.1 serves here
// too), passing every request and its Host through and streaming answers back.
async function startFront(dir: string, port: number): Promise<https.Server> {
  const front = https.createServer(
    { cert: readFileSync(join(dir, "server.pem")), key: readFileSync(join(dir, "server.key")) },
    (req, res) => {
      const upstream = http.request(
        { host: "127.0.0.1", port: consolePort, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on("error", () => res.writeHead(502).end());
      req.pipe(upstream);
    },
  );
  await new Promise<void>((resolve) => front.listen(port, "127.0.0.1", resolve));
  return front;
}

async function ready(url: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} not ready`);
}

test("a provisioned person signs in through the provider and signs out; a stranger is refused", async ({ browser }) => {
  test.setTimeout(90_000);
  if (!bin) throw new Error("E2E_SERVER_BIN is not set (scripts/test sets it)");
  const data = mkdtempSync(join(tmpdir(), "taskbay-sign-in-"));
  let provider: Provider | undefined;
  let front: https.Server | undefined;
  let console_: ChildProcess | undefined;
  try {
    // The front's port is the console's public origin, which the provider must know first
    // (its certificate then serves the front too).
    const frontPort = await freePort();
    const origin = `https://127.0.0.1:${frontPort}`;
    provider = await startProvider(`${origin}/api/auth/callback`);
    front = await startFront(provider.dir, frontPort);
    const env = {
      ...process.env,
      A2A_DATA_DIR: data,
      A2A_AUTH_MODE: "oidc",
      A2A_AUTH_ORIGIN: origin,
      A2A_OIDC_ISSUER: provider.issuer,
      A2A_OIDC_CLIENT_ID: "taskbay-test",
      A2A_OIDC_CLIENT_SECRET: "taskbay-test-secret",
      A2A_AUTH_ORGANIZATION_SLUG: "acme",
      A2A_EXTRA_CA_CERTS: join(provider.dir, "ca.pem"),
    };
    const provisioned = spawnSync(
      bin,
      ["auth", "provision", "--issuer", provider.issuer, "--subject", "ada", "--organization", "acme", "--name", "Ada Lovelace", "--role", "operator"],
      { env, encoding: "utf8" },
    );
    expect(provisioned.stdout).toBe("Identity membership provisioned.\n");
    console_ = spawn(bin, ["serve", "--host", "127.0.0.1", "--port", String(consolePort)], { env, stdio: "ignore" });
    await ready(`http://127.0.0.1:${consolePort}/readyz`);

    const context = await browser.newContext({ ignoreHTTPSErrors: true });
    const page = await context.newPage();
    // A page without a session goes to the provider's sign-in form, then back to the page.
    await page.goto(`${origin}/tasks`);
    await page.getByLabel("Subject").fill("ada");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page).toHaveURL(`${origin}/tasks`);
    await expect(page.locator("body")).toHaveAttribute("data-hydrated", "true");
    await expect(page.getByRole("heading", { name: "Tasks", level: 1 })).toBeVisible();
    const cookies = await context.cookies(origin);
    const session = cookies.find((c) => c.name === "__Host-a2a-session");
    expect(session).toMatchObject({ httpOnly: true, secure: true, sameSite: "Lax", path: "/" });
    const me = await page.evaluate(async () => (await fetch("/api/auth/session")).json());
    expect(me).toEqual({ user: { displayName: "Ada Lovelace", role: "operator" }, mode: "oidc" });

    // The identity menu names the person and role; its Sign out ends the console's session
    // (the provider keeps its own: a new visit would sign in again there without asking).
    const menu = page.getByTestId("identity");
    await expect(menu).toContainText("Ada Lovelace");
    await expect(menu).toContainText("Operator");
    await menu.getByRole("button", { name: "Sign out" }).click();
    await expect(page).toHaveURL(`${origin}/api/auth/signed-out`);
    await expect(page.getByRole("heading", { name: "You are signed out of Agent Taskbay." })).toBeVisible();
    expect((await context.cookies(origin)).find((c) => c.name === "__Host-a2a-session")).toBeUndefined();
    const after = await page.evaluate(async () => (await fetch("/api/agents")).status);
    expect(after).toBe(401);
    await context.close();

    // A person the provider knows but the console was never told of.
    const stranger = await browser.newContext({ ignoreHTTPSErrors: true });
    const strangerPage = await stranger.newPage();
    await strangerPage.goto(`${origin}/chat`);
    await strangerPage.getByLabel("Subject").fill("mallory");
    await strangerPage.getByRole("button", { name: "Sign in" }).click();
    await expect(strangerPage.getByRole("heading", { name: "Sign-in failed. Start a new sign-in attempt." })).toBeVisible();
    await expect(strangerPage.getByRole("link", { name: "Sign in again" })).toBeVisible();
    await stranger.close();
  } finally {
    console_?.kill("SIGTERM");
    front?.close();
    provider?.child.kill();
    rmSync(data, { recursive: true, force: true });
    if (provider) rmSync(provider.dir, { recursive: true, force: true });
  }
});

async function freePort(): Promise<number> {
  const probe = http.createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const port = (probe.address() as AddressInfo).port;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}
