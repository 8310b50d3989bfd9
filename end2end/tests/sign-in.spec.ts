import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

import type { Browser, BrowserContext, Page } from "@playwright/test";

import { test, expect } from "./fixtures";
import { waitUntilReady } from "./helpers";

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


type TeamConsole = {
  origin: string;
  provider: Provider;
  front: https.Server;
  console_?: ChildProcess;
  data: string;
  env: NodeJS.ProcessEnv;
};

// A console with sign-in behind its TLS front, its provider running; `first` is provisioned
// before the console starts (subject, name, role).
async function startTeamConsole(first: [string, string, string], extra: NodeJS.ProcessEnv = {}): Promise<TeamConsole> {
  if (!bin) throw new Error("E2E_SERVER_BIN is not set (scripts/test sets it)");
  const data = mkdtempSync(join(tmpdir(), "taskbay-sign-in-"));
  // The front's port is the console's public origin, which the provider must know first
  // (its certificate then serves the front too).
  const frontPort = await freePort();
  const origin = `https://127.0.0.1:${frontPort}`;
  const provider = await startProvider(`${origin}/api/auth/callback`);
  const front = await startFront(provider.dir, frontPort);
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
    ...extra,
  };
  const team: TeamConsole = { origin, provider, front, data, env };
  const [subject, name, role] = first;
  const provisioned = spawnSync(
    bin,
    ["auth", "provision", "--issuer", provider.issuer, "--subject", subject, "--organization", "acme", "--name", name, "--role", role],
    { env, encoding: "utf8" },
  );
  expect(provisioned.stdout).toBe("Identity membership provisioned.\n");
  team.console_ = spawn(bin, ["serve", "--host", "127.0.0.1", "--port", String(consolePort)], { env, stdio: "ignore" });
  await waitUntilReady(`http://127.0.0.1:${consolePort}/readyz`);
  return team;
}

// Stops the console process and starts a new one on the same database.
async function restartConsole(team: TeamConsole): Promise<void> {
  const exited = new Promise((resolve) => team.console_!.once("exit", resolve));
  team.console_!.kill("SIGTERM");
  await exited;
  team.console_ = spawn(bin!, ["serve", "--host", "127.0.0.1", "--port", String(consolePort)], { env: team.env, stdio: "ignore" });
  await waitUntilReady(`http://127.0.0.1:${consolePort}/readyz`);
}

// A team console whose one agent is the demo agent's `variant`, Ada Lovelace its admin.
async function startDemoTeam(variant: string): Promise<TeamConsole> {
  const demo = process.env.DEMO_ORIGIN ?? "http://127.0.0.1:4092";
  return startTeamConsole(["ada", "Ada Lovelace", "admin"], {
    A2A_ALLOW_PRIVATE_NETWORKS: "true",
    A2A_REGISTERED_AGENTS: `${demo}/${variant}/card.json`,
  });
}

async function stopTeamConsole(team: TeamConsole | undefined): Promise<void> {
  if (!team) return;
  if (team.console_) {
    const exited = new Promise((resolve) => team.console_!.once("exit", resolve));
    team.console_.kill("SIGTERM");
    await exited;
  }
  team.front.close();
  team.provider.child.kill();
  rmSync(team.data, { recursive: true, force: true });
  rmSync(team.provider.dir, { recursive: true, force: true });
}

// Signs `subject` in through the provider's form from `path`, in a new browser context.
async function signIn(browser: Browser, team: TeamConsole, subject: string, path: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ ignoreHTTPSErrors: true });
  const page = await context.newPage();
  await page.goto(`${team.origin}${path}`);
  await page.getByLabel("Subject").fill(subject);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(`${team.origin}${path}`);
  await expect(page.locator("body")).toHaveAttribute("data-hydrated", "true");
  return { context, page };
}

test("a provisioned person signs in through the provider and signs out; a stranger is refused", async ({ browser }) => {
  test.setTimeout(90_000);
  let team: TeamConsole | undefined;
  try {
    team = await startTeamConsole(["ada", "Ada Lovelace", "operator"]);
    const origin = team.origin;
    // A page without a session goes to the provider's sign-in form, then back to the page.
    const { context, page } = await signIn(browser, team, "ada", "/tasks");
    await expect(page.getByRole("heading", { name: "Tasks", level: 1 })).toBeVisible();
    const cookies = await context.cookies(origin);
    const session = cookies.find((c) => c.name === "__Host-a2a-session");
    expect(session).toMatchObject({ httpOnly: true, secure: true, sameSite: "Lax", path: "/" });
    const me = await page.evaluate(async () => (await fetch("/api/auth/session")).json());
    expect(me).toEqual({ user: { displayName: "Ada Lovelace", role: "operator" }, mode: "oidc" });

    // Sessions live in the database: a new console process knows this one.
    await restartConsole(team);
    const again = await page.evaluate(async () => (await fetch("/api/auth/session")).json());
    expect(again).toEqual(me);

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
    await stopTeamConsole(team);
  }
});

// The Access screen (issue #29, security-and-durability §1.3–§1.4): an admin adds a colleague,
// who then sees nothing; a team and a grant give them the agent; revoking takes it away again.
test("an admin gives a new colleague access through a team on the Access screen", async ({ browser }) => {
  test.setTimeout(120_000);
  let team: TeamConsole | undefined;
  try {
    team = await startDemoTeam("form");
    // The admin sees the agent (its card is discovered), then opens Settings → Access.
    const admin = await signIn(browser, team, "ada", "/agents");
    const a = admin.page;
    await expect(a.getByText("Form fixture (form)").first()).toBeVisible();
    await a.goto(`${team.origin}/settings`);
    await expect(a.locator("body")).toHaveAttribute("data-hydrated", "true");
    await a.getByRole("link", { name: "Manage access" }).click();
    await expect(a).toHaveURL(`${team.origin}/settings/access`);
    await expect(a.locator("body")).toHaveAttribute("data-hydrated", "true");
    await expect(a.getByRole("heading", { name: "Access", level: 1 })).toBeVisible();

    // Add Bea as an operator, from the keyboard.
    const add = a.getByRole("form", { name: "Add a member" });
    await add.getByLabel("Issuer").fill(team.provider.issuer);
    await add.getByLabel("Subject").fill("bea");
    await add.getByLabel("Name").fill("Bea");
    await add.getByLabel("Name").press("Enter");
    await expect(a.getByTestId("access-status")).toHaveText("Saved.");
    await expect(a.getByTestId("access-members")).toContainText("Bea");

    // Bea signs in and, without a grant, sees no agent; the Settings page offers her no Access.
    const bea = await signIn(browser, team, "bea", "/agents");
    await expect(bea.page.getByRole("heading", { name: "No agents yet" })).toBeVisible();
    await bea.page.goto(`${team.origin}/settings`);
    await expect(bea.page.getByRole("heading", { name: "Request defaults" })).toBeVisible();
    await expect(bea.page.getByRole("link", { name: "Manage access" })).toHaveCount(0);

    // A team, Bea in it, and the team's grant on the form fixture.
    const create = a.getByRole("form", { name: "Create a team" });
    await create.getByLabel("New team").fill("Support");
    await create.getByLabel("New team").press("Enter");
    await expect(a.getByTestId("access-teams")).toContainText("Support");
    // The grant is chosen first: the choices stay while adding Bea saves and the page reads access again.
    const give = a.getByRole("form", { name: "Give access" });
    await give.getByLabel("Who").selectOption({ label: "Team Support" });
    await give.getByLabel("Agent").selectOption({ label: "Form fixture (form)" });
    await give.getByLabel("Permission").selectOption({ label: "Operate" });
    await a.getByLabel("Member to add to Support").selectOption({ label: "Bea" });
    await a.getByRole("form", { name: "Add a member to Support" }).getByRole("button", { name: "Add" }).click();
    // Her chip, not the picker's option with her name.
    await expect(a.locator('[data-team="Support"] .access-chips')).toContainText("Bea");
    await expect(give.getByLabel("Who").locator("option:checked")).toHaveText("Team Support");
    await expect(give.getByLabel("Agent").locator("option:checked")).toHaveText("Form fixture (form)");
    await expect(give.getByLabel("Permission").locator("option:checked")).toHaveText("Operate");
    await give.getByRole("button", { name: "Give access" }).click();
    await expect(a.getByTestId("access-grants")).toContainText("Team Support");
    await expect(a.getByTestId("access-grants")).toContainText("Form fixture (form)");

    // Her next page has the agent.
    await bea.page.goto(`${team.origin}/agents`);
    await expect(bea.page.getByText("Form fixture (form)").first()).toBeVisible();

    // Made a viewer, she still reads the agent, and the composer says why she cannot send.
    await a.getByLabel("Role of Bea").selectOption("viewer");
    await expect(a.getByTestId("access-status")).toHaveText("Saved.");
    const href = await bea.page.getByRole("link", { name: "Form fixture (form)" }).getAttribute("href");
    await bea.page.goto(`${team.origin}/chat/new?agent=${href!.split("/").pop()}`);
    await expect(bea.page.getByTestId("read-only")).toHaveText("Your role is Viewer: you can read, but not send, cancel or decide.");
    await expect(bea.page.getByTestId("send-button")).toBeDisabled();

    // Revoked: gone on her next page.
    await a.getByRole("button", { name: /^Revoke Operate on Form fixture \(form\) for Team Support$/ }).click();
    await expect(a.getByTestId("access-grants")).not.toContainText("Team Support");
    await bea.page.goto(`${team.origin}/agents`);
    await expect(bea.page.getByRole("heading", { name: "No agents yet" })).toBeVisible();

    // The last admin cannot demote herself.
    await a.getByLabel("Role of Ada Lovelace").selectOption("operator");
    await expect(a.getByTestId("access-status")).toHaveText("The organization needs at least one enabled admin.");
    await admin.context.close();
    await bea.context.close();
  } finally {
    await stopTeamConsole(team);
  }
});

// Approvals with people (issue #29, security-and-durability §4.1): a reviewer delegates a request
// to a named colleague on the review page; it then shows who it is assigned to, and who decided.
test("a reviewer delegates an approval to a colleague, who decides it", async ({ browser }) => {
  test.setTimeout(120_000);
  let team: TeamConsole | undefined;
  try {
    team = await startDemoTeam("approver");
    const issuer = team.provider.issuer;
    const admin = await signIn(browser, team, "ada", "/agents");
    await expect(admin.page.getByText("Form fixture (approver)").first()).toBeVisible();
    // Two operators, and everyone may operate the approver (through the JSON API, as a script would).
    const agentId = await admin.page.evaluate(
      async ({ issuer }) => {
        const change = (body: object) =>
          fetch("/api/admin/security", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
        await change({ action: "provisionMember", issuer, subject: "bea", name: "Bea", role: "operator" });
        await change({ action: "provisionMember", issuer, subject: "carl", name: "Carl", role: "operator" });
        const { agents } = await (await fetch("/api/agents")).json();
        const overview = await (await fetch("/api/admin/security")).json();
        await change({ action: "grant", subjectType: "organization", subjectId: overview.organizationId, agentId: agents[0].id, permission: "operate" });
        return agents[0].id as string;
      },
      { issuer },
    );

    // Bea asks the agent for something that needs approval, then opens the request.
    const bea = await signIn(browser, team, "bea", "/approvals");
    const id = await bea.page.evaluate(async (agentId) => {
      await fetch(`/api/agents/${agentId}/messages`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ text: "please approve" }),
      });
      for (let i = 0; i < 100; i++) {
        const { requests } = await (await fetch("/api/decisions")).json();
        if (requests.length) return requests[0].id as string;
        await new Promise((r) => setTimeout(r, 200));
      }
      throw new Error("no approval request");
    }, agentId);
    await bea.page.goto(`${team.origin}/approvals/${id}`);
    // The choice is made once the page has hydrated: a select changed before that is not seen.
    await expect(bea.page.locator("body")).toHaveAttribute("data-hydrated", "true");
    await expect(bea.page.getByTestId("approval-status")).toHaveText("Pending");
    // The agent's task may still be moving, and the page reads the request again until a decision
    // is under way: an input that landed on the page being replaced is made again (the draft kept
    // by the page shows in the new one, the Delegate choice included). Both inputs are checked:
    // CI saw the text typed into the page being replaced and the choice made in the new one.
    await expect(async () => {
      await bea.page.getByLabel("Rationale").fill("Carl owns staging.");
      await bea.page.getByLabel("Delegate to").selectOption({ label: "Carl (Operator)" });
      await expect(bea.page.getByRole("button", { name: "Delegate", exact: true })).toBeEnabled({ timeout: 1000 });
      await expect(bea.page.getByLabel("Rationale")).toHaveValue("Carl owns staging.", { timeout: 1000 });
    }).toPass();
    await bea.page.getByRole("button", { name: "Delegate", exact: true }).click();
    await expect(bea.page.getByTestId("approval-assignee")).toHaveText("assigned to Carl");
    await expect(bea.page.getByTestId("decisions")).toContainText("delegate");
    await expect(bea.page.getByTestId("decisions")).toContainText("by Bea · to Carl");
    await expect(bea.page.getByTestId("approval-status")).toHaveText("Pending");
    await expect(bea.page.getByTestId("read-only")).toHaveText(
      "This request is assigned to Carl: only they or an admin can decide it.",
    );

    // Carl decides it.
    const carl = await signIn(browser, team, "carl", `/approvals/${id}`);
    await carl.page.getByLabel("Rationale").fill("Not during the freeze.");
    await carl.page.getByRole("button", { name: "Reject" }).click();
    await expect(carl.page.getByTestId("approval-status")).toHaveText("Rejected");
    await expect(carl.page.getByTestId("decisions")).toContainText("by Carl");

    // Bea asks Carl, from the task page, to approve a message of her own; she cannot decide it.
    const { requests } = await bea.page.evaluate(async () => (await fetch("/api/decisions")).json());
    await bea.page.goto(`${team.origin}/tasks/${requests[0].taskId}`);
    await expect(bea.page.locator("body")).toHaveAttribute("data-hydrated", "true");
    await bea.page.getByRole("button", { name: "Ask for approval…" }).click();
    const ask = bea.page.getByRole("form", { name: "Ask for approval" });
    await ask.getByLabel("Title").fill("Scale staging down tonight");
    await ask.getByLabel("Message to send once approved").fill("Scale staging to one replica.");
    await ask.getByLabel("Expires in").selectOption({ label: "8 hours" });
    await ask.getByLabel("Assign to").selectOption({ label: "Carl" });
    await ask.getByRole("button", { name: "Ask for approval" }).click();
    await bea.page.getByTestId("approval-asked").getByRole("link", { name: "Open the request" }).click();
    await expect(bea.page.getByRole("heading", { name: "Scale staging down tonight", level: 1 })).toBeVisible();
    await expect(bea.page.getByTestId("approval-assignee")).toHaveText("assigned to Carl");
    await expect(bea.page.getByTestId("read-only")).toHaveText(
      "This request is assigned to Carl: only they or an admin can decide it.",
    );
    for (const who of [admin, bea, carl]) await who.context.close();
  } finally {
    await stopTeamConsole(team);
  }
});

async function freePort(): Promise<number> {
  const probe = http.createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const port = (probe.address() as AddressInfo).port;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}
