import { test, expect, openHydrated } from "./fixtures";
import { addAgent, startChat } from "./helpers";
import type { Locator, Page } from "@playwright/test";

// Issue #32's chat defects, each as the reader meets it, against the real demo agent.

/** Whether `item`'s bottom edge is above the composer's top edge: readable, not hidden under it. */
async function aboveComposer(page: Page, item: Locator): Promise<boolean> {
  const box = await item.boundingBox();
  const dock = await page.locator(".chat-dock").boundingBox();
  if (!box || !dock) return false;
  const viewport = page.viewportSize()!;
  return box.y + box.height <= dock.y + 1 && box.y + box.height > 0 && box.y < viewport.height;
}

test("the first send of a new chat keeps the page: the open Wire rail, its first entry, the Markdown choice", async ({
  page,
}) => {
  await addAgent(page, "form", "Form fixture (form)");
  await openHydrated(page, "/chat");
  await page.getByRole("region", { name: "Start a chat" }).getByRole("link", { name: "Form fixture (form)" }).click();
  await expect(page).toHaveURL(/\/chat\/new\?agent=/);
  // A new chat's message box has the keyboard; the tools wait behind "+".
  await expect(page.getByTestId("composer-input")).toBeFocused();
  await expect(page.getByRole("group", { name: "Text format" })).toHaveCount(0);
  await page.getByTestId("wire-toggle").click();
  await page.getByTestId("composer-tools-toggle").click();
  const format = page.getByRole("group", { name: "Text format" });
  await format.getByRole("button", { name: /Markdown/ }).click();
  const input = page.getByTestId("composer-input");
  await input.fill("choose an environment");
  await input.press("Enter");
  await expect(page).toHaveURL(/\/chat\/[0-9a-f-]{36}$/);
  // The agent's answer arrives live on the same page…
  await expect(page.getByTestId("quick-reply").first()).toBeVisible({ timeout: 20_000 });
  // …which kept its rail, its log from the first line, and the composer's choice.
  await expect(page.getByTestId("wire-toggle")).toHaveAttribute("aria-pressed", "true");
  const rail = page.getByRole("complementary", { name: "Wire inspector" });
  await expect(rail).toBeVisible();
  await expect(rail.getByTestId("wire-entry").first()).toContainText("→ SendMessage");
  await expect(format.getByRole("button", { name: /Markdown/ })).toHaveAttribute("aria-pressed", "true");
  await expect(input).toBeFocused();
});

test("a send whose answer arrives after the live update leaves no 'Sending…' behind", async ({ page }) => {
  await addAgent(page, "form", "Form fixture (form)");
  await startChat(page, "Form fixture (form)", "choose an environment");
  await expect(page.getByTestId("quick-reply").first()).toBeVisible({ timeout: 20_000 });
  // The server's answer to the send is held until the command has settled and the page has
  // shown the outcome: the stale "pending" answer then arrives last.
  await page.route("**/api/fn/send_message", async (route) => {
    const response = await route.fetch();
    const command = await response.json();
    await expect
      .poll(async () => (await (await page.request.get(`/api/commands/${command.id}`)).json()).command?.status, {
        timeout: 20_000,
      })
      .toBe("succeeded");
    await expect(page.getByTestId("task-card").last()).toHaveAttribute("data-state", "TASK_STATE_COMPLETED");
    await route.fulfill({ response });
  });
  const answered = page.waitForResponse("**/api/fn/send_message");
  await page.getByTestId("quick-reply").filter({ hasText: "production" }).click();
  await answered;
  await expect(page.getByTestId("message-bubble").last()).toContainText("Deploying to production.");
  // The page has handled the late answer once its send is over (the Send button reads "Send"
  // again in the same step that records the answer); only then does "no pending bubble" mean
  // something.
  await expect(page.getByTestId("send-button")).toHaveText("Send");
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await expect(page.getByTestId("pending-command")).toHaveCount(0);
});

test("the chat follows the newest item, and offers 'New activity' to a reader who scrolled up", async ({ page }) => {
  test.setTimeout(90_000);
  await page.setViewportSize({ width: 1280, height: 600 });
  await addAgent(page, "slow", "Demo agent (slow)");
  await startChat(page, "Demo agent (slow)", "a long report");
  const artifact = page.getByTestId("artifact").first();
  const card = page.getByTestId("task-card").last();
  await expect(artifact).toContainText("Chunk 8 of 20", { timeout: 20_000 });
  // Followed while the agent writes: the card under the growing artifact stays readable.
  await expect.poll(() => aboveComposer(page, card)).toBe(true);
  // A reader who scrolls up is left there; what arrives is announced instead.
  await page.evaluate(() => window.scrollTo(0, 0));
  await expect(page.getByTestId("new-activity")).toBeVisible({ timeout: 10_000 });
  expect(await aboveComposer(page, card)).toBe(false);
  await page.getByTestId("new-activity").click();
  await expect.poll(() => aboveComposer(page, card)).toBe(true);
  await expect(page.getByTestId("new-activity")).toHaveCount(0);
  await expect(card).toHaveAttribute("data-state", "TASK_STATE_COMPLETED", { timeout: 30_000 });
  // Opening the conversation shows its end.
  await openHydrated(page, new URL(page.url()).pathname);
  await expect.poll(() => aboveComposer(page, page.getByTestId("task-card").last())).toBe(true);
});

test("an A2UI surface stays where it arrived: the agent's answer to its action comes after it", async ({ page }) => {
  await addAgent(page, "a2ui", "Form fixture (a2ui)");
  await startChat(page, "Form fixture (a2ui)", "deploy");
  const surface = page.getByTestId("a2ui-surface");
  await surface.getByLabel("Reason").fill("order check");
  await surface.getByTestId("a2ui-button").filter({ hasText: "Confirm" }).click();
  const reply = page
    .getByTestId("message-bubble")
    .and(page.locator('[data-role="agent"]'))
    .filter({ hasText: "Deploy confirmed: order check" });
  await expect(reply).toBeVisible({ timeout: 20_000 });
  const user = page.getByTestId("message-bubble").and(page.locator('[data-role="user"]')).last();
  // Event order in the page: surface, then the action as sent, then the answer.
  const order = await page.evaluate(() => {
    const items = [...document.querySelectorAll('[data-testid="a2ui-surface"], [data-testid="message-bubble"]')];
    return items.map((el) => (el.getAttribute("data-testid") === "a2ui-surface" ? "surface" : el.textContent ?? ""));
  });
  const surfaceAt = order.indexOf("surface");
  const replyAt = order.findIndex((text) => text.includes("Deploy confirmed: order check"));
  expect(surfaceAt).toBeGreaterThanOrEqual(0);
  expect(replyAt).toBeGreaterThan(surfaceAt);
  // The action is shown as what was sent, not as a JSON tree.
  await expect(user).toContainText("Action “confirm_deploy”");
  await expect(user).toContainText("reason: order check");
});

test("each part the chat understands is shown once: quick replies, an answered form, an approval request", async ({
  page,
}) => {
  await addAgent(page, "form", "Form fixture (form)");
  await startChat(page, "Form fixture (form)", "choose an environment");
  const agent = page.getByTestId("message-bubble").and(page.locator('[data-role="agent"]'));
  await expect(page.getByTestId("quick-reply")).toHaveText(["staging", "production"], { timeout: 20_000 });
  // Open: buttons only, no `{options}` tree beside them.
  await expect(agent.last()).not.toContainText("options");
  await page.getByTestId("quick-reply").filter({ hasText: "staging" }).click();
  await expect(agent.last()).toContainText("Deploying to staging.");
  // Answered: one line, and the JSON behind Raw.
  const offered = agent.filter({ hasText: "Choices: staging · production" });
  await expect(offered).toBeVisible();
  await offered.getByRole("button", { name: "Raw" }).last().click();
  await expect(offered.locator(".content-raw")).toContainText('"options"');

  // A form, once answered: its title in the prompt, the values in the reply.
  await startChat(page, "Form fixture (form)", "deploy please");
  const form = page.getByTestId("prompt-form").getByTestId("structured-form");
  await form.getByLabel("Environment").selectOption("production");
  await form.getByLabel("Replicas").fill("3");
  await form.getByRole("button", { name: "Request deploy" }).click();
  await expect(agent.last()).toContainText("Deploying 3 replica(s) to production.", { timeout: 20_000 });
  await expect(agent.filter({ hasText: "Form “Deploy request”" })).toBeVisible();
  await expect(page.getByTestId("message-bubble").filter({ hasText: "schema" })).toHaveCount(0);
  const reply = page.getByTestId("message-bubble").and(page.locator('[data-role="user"]')).last();
  await expect(reply).toContainText("environment: production");
  await expect(reply).toContainText("replicas: 3");

  // An approval request: the card, not also its payload.
  await addAgent(page, "approver", "Form fixture (approver)");
  await startChat(page, "Form fixture (approver)", "please approve the cleanup");
  await expect(page.getByTestId("approval-card")).toContainText("Delete the staging cluster");
  await expect(agent.last()).toContainText("Approval needed: Delete the staging cluster.");
  await expect(page.getByTestId("message-bubble").filter({ hasText: "This deletes every workload" })).toHaveCount(0);
});

test("the Inbox badge counts what the Inbox lists", async ({ page }) => {
  await addAgent(page, "approver", "Form fixture (approver)");
  await startChat(page, "Form fixture (approver)", "approve the badge check");
  await expect(page.getByTestId("approval-card")).toBeVisible({ timeout: 20_000 });
  await openHydrated(page, "/inbox");
  const listed = page.getByTestId("inbox-approval").or(page.getByTestId("inbox-task"));
  await expect(listed.first()).toBeVisible();
  const count = await listed.count();
  const badge = page.getByRole("navigation", { name: "Primary", exact: true }).getByTestId("pending-approvals");
  await expect(badge).toHaveText(count > 99 ? "99+" : String(count));
  // The approval's own task is not listed a second time.
  const titles = await page.getByTestId("inbox-task").allInnerTexts();
  expect(titles.filter((t) => t.includes("approve the badge check"))).toEqual([]);
});

// Issue #33: the badge is beside the page. While an agent streams, the freshness stream signals
// up to four times a second; the badge re-reads the Inbox at once, then at most once per window
// (live::BESIDE_PAGE_EVERY_MS, 2 s), not on every signal.
test("while an agent streams, the Inbox badge re-reads the Inbox at most once every two seconds", async ({ page }) => {
  test.setTimeout(60_000);
  await addAgent(page, "flood", "Demo agent (flood)");
  const reads: number[] = [];
  page.on("request", (request) => {
    // The badge's query: pending requests of every task (a chat's approval cards name their task).
    if (request.url().endsWith("/api/fn/list_approvals") && (request.postData() ?? "").includes("pending")) {
      reads.push(Date.now());
    }
  });
  await startChat(page, "Demo agent (flood)", "rate=200 count=1000");
  const started = Date.now();
  await page.getByTestId("wire-toggle").click();
  await expect(page.locator(".wire-list")).toContainText("TaskStatusUpdate · TASK_STATE_COMPLETED", {
    timeout: 30_000,
  });
  const during = reads.filter((at) => at >= started);
  // Five seconds of events: it follows them (at once, then when windows end) ...
  expect(during.length).toBeGreaterThanOrEqual(2);
  // ... but never twice within a window (unthrottled, reads came about 250 ms apart).
  const gaps = during.slice(1).map((at, i) => at - during[i]);
  expect(gaps.every((gap) => gap >= 1_800), `gaps ${gaps.join(", ")} ms`).toBe(true);
});

test("files dropped on the composer or pasted into the message box are attached", async ({ page }) => {
  await addAgent(page, "files", "Demo agent (files)");
  await openHydrated(page, "/chat");
  await page.getByRole("region", { name: "Start a chat" }).getByRole("link", { name: "Demo agent (files)" }).click();
  await expect(page.getByTestId("composer-input")).toBeFocused();
  await page.getByRole("region", { name: "Composer" }).evaluate((composer) => {
    const dropped = new DataTransfer();
    dropped.items.add(new File(["a,b\n1,2\n"], "numbers.csv", { type: "text/csv" }));
    composer.dispatchEvent(new DragEvent("drop", { dataTransfer: dropped, bubbles: true, cancelable: true }));
  });
  await page.getByTestId("composer-input").evaluate((box) => {
    const pasted = new DataTransfer();
    pasted.items.add(new File(["hello"], "notes.txt", { type: "text/plain" }));
    box.dispatchEvent(new ClipboardEvent("paste", { clipboardData: pasted, bubbles: true, cancelable: true }));
  });
  const chips = page.getByRole("list", { name: "Attached parts" });
  await expect(chips).toContainText("numbers.csv");
  await expect(chips).toContainText("notes.txt");
  // Pasting text still types it.
  await page.getByTestId("composer-input").fill("two files");
  await page.getByTestId("composer-input").press("Enter");
  await expect(page).toHaveURL(/\/chat\/[0-9a-f-]{36}$/);
  const sent = page.getByTestId("message-bubble").and(page.locator('[data-role="user"]')).first();
  await expect(sent).toContainText("two files");
  await expect(sent).toContainText("numbers.csv");
});

test("an empty chat offers the agent's skill examples as starter prompts", async ({ page }) => {
  await addAgent(page, "form", "Form fixture (form)");
  await openHydrated(page, "/chat");
  await page.getByRole("region", { name: "Start a chat" }).getByRole("link", { name: "Form fixture (form)" }).click();
  const starters = page.getByRole("group", { name: "Starter prompts" }).getByTestId("starter-prompt");
  await expect(starters).toHaveText(["deploy please", "choose an environment"]);
  await starters.filter({ hasText: "choose an environment" }).click();
  const input = page.getByTestId("composer-input");
  await expect(input).toHaveValue("choose an environment");
  await expect(input).toBeFocused();
  await input.press("Enter");
  await expect(page.getByTestId("quick-reply")).toHaveText(["staging", "production"], { timeout: 20_000 });
  await expect(page.getByRole("group", { name: "Starter prompts" })).toHaveCount(0);
});

test("ids are shown whole, each with a button that copies it", async ({ page, context: browserContext }) => {
  await browserContext.grantPermissions(["clipboard-read", "clipboard-write"]);
  await addAgent(page, "form", "Form fixture (form)");
  await startChat(page, "Form fixture (form)", "copy my ids");
  const href = await page.getByTestId("task-card").last().locator("a.task-card-title").getAttribute("href");
  await openHydrated(page, href!);
  const ids = page.getByRole("region", { name: "Identifiers" });
  const local = href!.split("/").pop()!;
  const context = ids.getByRole("button", { name: "Copy the context id" }).locator("xpath=preceding-sibling::code");
  const contextId = await context.innerText();
  await expect(ids.locator("code").first()).toHaveText(local);
  await ids.getByRole("button", { name: "Copy the local task id" }).click();
  await expect(ids.getByRole("button", { name: "Copy the local task id" })).toHaveText("Copied");
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(local);
  // The chat header shows the whole context id too.
  await page.getByRole("link", { name: "Open in chat" }).click();
  await expect(page.locator(".chat-header .copy-id code")).toHaveText(contextId);
});

test("Tasks and Chat's recent conversations are searched by words and narrowed to one agent", async ({ page }) => {
  const token = `n${Date.now().toString(36)}`;
  await addAgent(page, "form", "Form fixture (form)");
  await startChat(page, "Form fixture (form)", `${token} alpha deploy`);
  await addAgent(page, "files", "Demo agent (files)");
  await startChat(page, "Demo agent (files)", `${token} beta files`);

  await openHydrated(page, "/tasks");
  await page.keyboard.press("/");
  await page.keyboard.type(`${token.toUpperCase()} ALPHA`);
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(new RegExp(`[?&]q=${token.toUpperCase()}(\\+|%20)ALPHA`));
  const rows = page.getByTestId("task-row");
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText(`${token} alpha deploy`);

  const search = page.getByRole("main").getByRole("searchbox");
  await search.fill(token);
  await page.getByLabel("Agent").selectOption({ label: "Demo agent (files)" });
  await page.getByRole("button", { name: "Search" }).click();
  // Only the named fields: no empty pair for the unnamed Search button.
  await expect(page).toHaveURL(new RegExp(`/tasks\\?q=${token}&agent=[0-9a-f-]{36}$`));
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText(`${token} beta files`);
  // A filter chip keeps the search.
  await page.getByRole("navigation", { name: "Filter tasks" }).getByRole("link", { name: "Done" }).click();
  await expect(page).toHaveURL(new RegExp(`filter=done&q=${token}&agent=`));
  await expect(search).toHaveValue(token);
  await search.fill(`${token} nothing-like-it`);
  await search.press("Enter");
  await expect(page.getByText("No task matches this search.")).toBeVisible();

  await openHydrated(page, "/chat");
  const recent = page.getByRole("region", { name: "Recent conversations" });
  await recent.getByRole("searchbox").fill(`${token} BETA`);
  await expect(recent.getByRole("listitem")).toHaveCount(1);
  await expect(recent.getByRole("listitem")).toContainText(`${token} beta files`);
  // A commit anywhere re-reads the list; the search typed is kept and applies to the new list.
  const filesId = await recent.getByLabel("Agent").locator("option", { hasText: "Demo agent (files)" }).getAttribute("value");
  const sent = await page.request.post(`/api/agents/${filesId}/commands`, {
    headers: { "idempotency-key": `${token}-again` },
    data: { text: `${token} beta again` },
  });
  expect(sent.status()).toBe(202);
  await expect(recent.getByRole("listitem")).toHaveCount(2);
  await expect(recent.getByRole("searchbox")).toHaveValue(`${token} BETA`);
  await expect(recent.getByRole("listitem").first()).toContainText(`${token} beta again`);
  // The re-read list is rendered into the same elements: the keyboard is still in the box, typing goes on.
  await expect(recent.getByRole("searchbox")).toBeFocused();
  await page.keyboard.type(" AGAIN");
  await expect(recent.getByRole("listitem")).toHaveCount(1);
  await expect(recent.getByRole("listitem")).toContainText(`${token} beta again`);
  await recent.getByRole("searchbox").fill(token);
  await expect(recent.getByRole("listitem")).toHaveCount(3);
  await recent.getByLabel("Agent").selectOption({ label: "Form fixture (form)" });
  await expect(recent.getByRole("listitem")).toHaveCount(1);
  await expect(recent.getByRole("listitem")).toContainText(`${token} alpha deploy`);
});

test("the Wire panel lists the HTTP requests made to the agent, filters by kind and copies what it shows", async ({
  page,
  context: browserContext,
}) => {
  await browserContext.grantPermissions(["clipboard-read", "clipboard-write"]);
  await addAgent(page, "form", "Form fixture (form)");
  await startChat(page, "Form fixture (form)", "choose an environment");
  await expect(page.getByTestId("quick-reply").first()).toBeVisible({ timeout: 20_000 });
  await page.getByTestId("wire-toggle").click();
  const rail = page.getByRole("complementary", { name: "Wire inspector" });
  // The worker's request to the agent, with its status and time to the answer's head.
  const http = rail.getByTestId("wire-http").first();
  await expect(http).toContainText(/POST (SendMessage|SendStreamingMessage) · 200 · \d+ ms/, { timeout: 10_000 });
  await http.locator("summary").click();
  await expect(http.locator("summary")).toContainText("/form/");
  await expect(http.locator(".wire-headers").first()).toContainText("a2a-version");
  await expect(http.locator(".wire-headers").last()).toContainText("content-type");
  // Filter by kind: HTTP only hides the events; Sent only hides the HTTP list and what came in.
  await rail.getByLabel("HTTP", { exact: true }).check();
  await expect(rail.getByTestId("wire-entry").first()).toBeHidden();
  await expect(http).toBeVisible();
  await rail.getByLabel("Sent", { exact: true }).check();
  await expect(http).toBeHidden();
  await expect(rail.locator('[data-testid="wire-entry"][data-direction="out"]').first()).toBeVisible();
  await expect(rail.locator('[data-testid="wire-entry"][data-direction="in"]').first()).toBeHidden();
  // Copy as JSON copies what the filter shows.
  // The clipboard is written asynchronously: read it until it holds what was copied.
  const copied = async () => {
    const text = await page.evaluate(() => navigator.clipboard.readText());
    try {
      return JSON.parse(text) as { kind: string; body?: { text: string } }[];
    } catch {
      return [];
    }
  };
  const kindsOf = async () => [...new Set((await copied()).map((entry) => entry.kind))].sort();
  await page.evaluate(() => navigator.clipboard.writeText(""));
  await rail.getByRole("button", { name: "Copy the shown Wire log as JSON" }).click();
  await expect.poll(kindsOf).toEqual(["sent"]);
  expect((await copied())[0].body?.text).toBe("choose an environment");
  await rail.getByLabel("All", { exact: true }).check();
  await rail.getByRole("button", { name: "Copy the shown Wire log as JSON" }).click();
  await expect.poll(kindsOf).toEqual(["event", "http", "sent"]);
});
