import { test, expect, openHydrated } from "./fixtures";
import { addAgent, startChat } from "./helpers";
import type { Page } from "@playwright/test";

// The extensions (shared/spec/reference.md §1–§3) in Chromium against the real demo agent:
// forms, start forms, approvals, A2UI v0.9 and v0.8, skill routing, the Trace panel, and the
// variants that must fall back to ordinary content.

/** The newest agent bubble's text, once it contains `text`. */
async function agentSays(page: Page, text: string | RegExp): Promise<void> {
  const agent = page.getByTestId("message-bubble").and(page.locator('[data-role="agent"]'));
  await expect(agent.filter({ hasText: text }).first()).toBeVisible({ timeout: 20_000 });
}

test("a prompt's form validates in the browser, then its answer completes the task", async ({ page }) => {
  await addAgent(page, "form", "Form fixture (form)");
  await startChat(page, "Form fixture (form)", "deploy please");
  const form = page.getByTestId("prompt-form").getByTestId("structured-form");
  await expect(form.getByRole("heading", { name: "Deploy request" })).toBeVisible();
  // The form's data part is not shown as raw data while the form renders.
  await expect(page.getByTestId("message-bubble").filter({ hasText: "schema" })).toHaveCount(0);
  await form.getByLabel("Replicas").fill("11");
  await form.getByRole("button", { name: "Request deploy" }).click();
  await expect(form.locator('[data-field="environment"] .field-error')).toHaveText("Required");
  await expect(form.locator('[data-field="replicas"] .field-error')).toHaveText("At most 10");
  await form.getByLabel("Environment").selectOption("production");
  await form.getByLabel("Replicas").fill("3");
  await form.getByRole("button", { name: "Request deploy" }).click();
  await agentSays(page, "Deploying 3 replica(s) to production.");
  await expect(page.getByTestId("task-card").last()).toHaveAttribute("data-state", "TASK_STATE_COMPLETED");
  // The answered form is gone; the composer still works.
  await expect(page.getByTestId("prompt-form")).toHaveCount(0);
});

test("a start form begins a new task with the agent's own form", async ({ page }) => {
  await addAgent(page, "form", "Form fixture (form)");
  await openHydrated(page, "/chat");
  await page.getByRole("region", { name: "Start a chat" }).getByRole("link", { name: "Form fixture (form)" }).click();
  await page.getByTestId("composer-tools-toggle").click();
  await page.getByTestId("start-form-toggle").click();
  const form = page.getByTestId("structured-form");
  await form.getByLabel("Service").fill("billing-api");
  await form.getByLabel("Priority").selectOption("high");
  await form.getByRole("button", { name: "Start task" }).click();
  await expect(page).toHaveURL(/\/chat\/[0-9a-f-]{36}$/);
  await agentSays(page, "Started billing-api at high priority.");
});

test("an approval request is reviewed, approved once, and the agent echoes the revision digest", async ({ page }) => {
  await addAgent(page, "approver", "Form fixture (approver)");
  await startChat(page, "Form fixture (approver)", "please approve the cleanup");
  const card = page.getByTestId("approval-card");
  await expect(card).toContainText("Delete the staging cluster");
  await expect(
    page.getByRole("navigation", { name: "Primary", exact: true }).getByTestId("pending-approvals"),
  ).toBeVisible();
  const chatUrl = page.url();
  await card.getByTestId("review-approval").click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Delete the staging cluster");
  await expect(page.getByTestId("approval-status")).toHaveText("Pending");
  // Issue #32: the task's state in the words every other screen uses.
  await expect(page.getByRole("main").getByTestId("state-chip").first()).toHaveText("Needs input");
  await expect(page.getByRole("main")).not.toContainText("TASK_STATE_");
  const digest = (await page.getByTestId("proposal-digest").innerText()).trim();
  expect(digest).toMatch(/^[0-9a-f]{64}$/);
  // Reject needs a rationale.
  await page.getByRole("button", { name: "Reject" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "A rationale is required for this decision." })).toBeVisible();
  await page.getByRole("button", { name: "Approve" }).click();
  await page.getByRole("button", { name: "Confirm: send it to the agent" }).click();
  await expect(page.getByTestId("approval-status")).toHaveText("Approved");
  await expect(page.getByTestId("decisions")).toContainText("approve");
  await openHydrated(page, new URL(chatUrl).pathname);
  await agentSays(page, `revisionDigest ${digest}`);
});

test("edit then approve sends the edited values as a new revision", async ({ page }) => {
  await addAgent(page, "approver", "Form fixture (approver)");
  await startChat(page, "Form fixture (approver)", "structured deploy");
  await page.getByTestId("approval-card").getByTestId("review-approval").click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Deploy billing-api to production");
  await page.getByRole("button", { name: "Edit…" }).click();
  const form = page.getByTestId("structured-form");
  await form.getByLabel("Replicas").fill("2");
  // Issue #32: without a rationale the refusal appears right under the button that was pressed.
  const approveEdited = form.getByRole("button", { name: "Approve edited version" });
  await approveEdited.click();
  const refusal = page.getByTestId("decision-error");
  await expect(refusal).toHaveText("A rationale is required for this decision.");
  const button = (await approveEdited.boundingBox())!;
  const alert = (await refusal.boundingBox())!;
  expect(alert.y).toBeGreaterThan(button.y);
  expect(alert.y - (button.y + button.height)).toBeLessThan(120);
  await page.getByLabel("Rationale").fill("Two replicas are enough for now.");
  // Issue #32: an edit approves, so it asks for the same confirmation as Approve.
  await approveEdited.click();
  const confirm = page.getByRole("group", { name: "Confirm the edited version" });
  await expect(confirm).toBeVisible();
  await expect(page.getByTestId("approval-status")).toHaveText("Pending");
  await confirm.getByRole("button", { name: "Confirm: send the edited version to the agent" }).click();
  await expect(page.getByTestId("approval-status")).toHaveText("Approved");
  await expect(page.getByRole("heading", { name: "Proposed action · revision 2" })).toBeVisible();
  await expect(page.getByTestId("decisions")).toContainText("Two replicas are enough for now.");
  await expect(page.getByTestId("delivery-status")).toHaveText(/pending|dispatching|succeeded/);
});

for (const [label, message, title] of [
  ["v0.9", "deploy", "Confirm deployment"],
  ["v0.8", "deploy v0.8", "Confirm deployment (v0.8)"],
] as const) {
  test(`an A2UI ${label} surface renders inert and its action answers on the same task`, async ({ page }) => {
    await addAgent(page, "a2ui", "Form fixture (a2ui)");
    await startChat(page, "Form fixture (a2ui)", message);
    const surface = page.getByTestId("a2ui-surface");
    await expect(surface.getByText(title, { exact: true })).toBeVisible();
    // Hostile text stays text; nothing is loaded from the agent.
    await expect(surface.getByText("<b>Release notes</b><img src=x onerror=alert(document.cookie)>")).toBeVisible();
    await expect(surface.locator("img")).toHaveCount(0);
    await surface.getByLabel("Reason").fill("hotfix 42");
    await surface.getByTestId("a2ui-button").filter({ hasText: "Confirm" }).click();
    await agentSays(page, /Deploy confirmed: hotfix 42/);
    await expect(page.getByTestId("task-card").last()).toHaveAttribute("data-state", "TASK_STATE_COMPLETED");
  });
}

test("a send restricted to a skill reaches the agent with that skill", async ({ page }) => {
  await addAgent(page, "skills", "Demo agent (skills)");
  await openHydrated(page, "/chat");
  await page.getByRole("region", { name: "Start a chat" }).getByRole("link", { name: "Demo agent (skills)" }).click();
  const picker = page.getByTestId("skill-picker");
  await picker.selectOption("rollback");
  await page.getByTestId("composer-tools-toggle").click();
  await page.getByTestId("extensions-summary").locator("summary").click();
  await expect(page.getByTestId("active-extension").filter({ hasText: "Roll back a release" })).toBeVisible();
  const input = page.getByTestId("composer-input");
  await input.fill("Roll back billing-api");
  await input.press("Enter");
  await agentSays(page, "[Roll back a release] Rollback prepared; the previous release is 1.41.2.");
});

test("the Trace panel fills while the agent works, debug hidden until asked for", async ({ page }) => {
  await addAgent(page, "trace", "Demo agent (trace)");
  await startChat(page, "Demo agent (trace)", "check staging health");
  await page.getByTestId("trace-toggle").click();
  const panel = page.getByTestId("trace-panel");
  // Issue #32: the waterfall first. The agent's run is one span holding the kubectl tool span
  // (paired started/completed, with a duration); a failed tool without a start is an instant.
  const agentSpan = panel.getByTestId("trace-span").filter({ hasText: "Agent execution" });
  await expect(agentSpan).toBeVisible({ timeout: 20_000 });
  await expect(page.getByTestId("task-card").last()).toHaveAttribute("data-state", "TASK_STATE_COMPLETED", {
    timeout: 20_000,
  });
  await expect(agentSpan).toHaveAttribute("data-outcome", "done");
  await expect(agentSpan.locator(".span-duration")).toHaveText(/^\d+(\.\d)? (ms|s)$/);
  const tool = panel.getByTestId("trace-span").filter({ hasText: "tool kubectl.get_pods" });
  await expect(tool).toHaveAttribute("data-outcome", "done");
  await expect(tool.locator(".span-duration")).toHaveText(/^\d+ ms$/);
  await expect(tool).toHaveAttribute("style", "--depth: 1");
  await expect(panel.getByTestId("trace-span").filter({ hasText: "tool http.get" })).toHaveAttribute(
    "data-outcome",
    "instant",
  );
  // The flat list is one toggle away.
  await panel.getByLabel("List").check();
  await expect(panel.getByTestId("trace-event").filter({ hasText: "Agent execution started" })).toBeVisible();
  await expect(panel.locator('[data-testid="trace-event"][data-level="debug"]')).toHaveCount(0);
  const shown = await panel.getByTestId("trace-event").count();
  await panel.getByTestId("trace-level").selectOption({ label: "Debug and up" });
  await expect(panel.locator('[data-testid="trace-event"][data-level="debug"]').first()).toBeVisible();
  expect(await panel.getByTestId("trace-event").count()).toBeGreaterThan(shown);
});

test("a task's page shows its A2UI surface once the code has loaded, and its action answers the task", async ({
  page,
}) => {
  await addAgent(page, "a2ui", "Form fixture (a2ui)");
  await startChat(page, "Form fixture (a2ui)", "deploy");
  await expect(page.getByTestId("a2ui-surface")).toBeVisible();
  const href = await page.getByTestId("task-card").last().locator("a.task-card-title").getAttribute("href");
  await openHydrated(page, href!);
  // The section is shown only for a task with A2UI parts.
  const section = page.getByTestId("task-interface");
  const surface = section.getByTestId("a2ui-surface");
  await expect(surface.getByText("Confirm deployment", { exact: true })).toBeVisible();
  await surface.getByLabel("Reason").fill("from the task page");
  await surface.getByTestId("a2ui-button").filter({ hasText: "Confirm" }).click();
  await expect(section.getByRole("status")).toHaveText("Sent to the agent.");
  await expect(page.locator("h1").getByTestId("state-chip")).toHaveAttribute("data-state", "TASK_STATE_COMPLETED", {
    timeout: 20_000,
  });
});

test("a task's page decodes its stored trace, and has no Interface section without A2UI parts", async ({ page }) => {
  await addAgent(page, "trace", "Demo agent (trace)");
  await startChat(page, "Demo agent (trace)", "check staging health");
  await expect(page.getByTestId("task-card").last()).toHaveAttribute("data-state", "TASK_STATE_COMPLETED", {
    timeout: 20_000,
  });
  const href = await page.getByTestId("task-card").last().locator("a.task-card-title").getAttribute("href");
  await openHydrated(page, href!);
  // The stored sideband events of this task, decoded by the panel once its code has loaded.
  const panel = page.getByTestId("trace-panel");
  await expect(panel.getByTestId("trace-span").filter({ hasText: "Agent execution" })).toBeVisible();
  await panel.getByLabel("List").check();
  await expect(panel.getByTestId("trace-event").filter({ hasText: "Agent execution started" })).toBeVisible();
  await expect(page.getByTestId("task-interface")).toHaveCount(0);
});

for (const [variant, name] of [
  ["plain", "Form fixture (plain)"],
  ["invalid", "Form fixture (invalid)"],
  ["rogue", "Form fixture (rogue)"],
  ["unknown", "Form fixture (unknown)"],
] as const) {
  test(`the ${variant} variant falls back to ordinary content and the composer keeps working`, async ({ page }) => {
    await addAgent(page, variant, name);
    await startChat(page, name, "please approve the deploy");
    const agent = page.getByTestId("message-bubble").and(page.locator('[data-role="agent"]'));
    await expect(agent.first()).toBeVisible({ timeout: 20_000 });
    await expect(page.getByTestId("task-card").last()).toHaveAttribute("data-state", "TASK_STATE_INPUT_REQUIRED");
    await expect(page.getByTestId("structured-form")).toHaveCount(0);
    await expect(page.getByTestId("a2ui-surface")).toHaveCount(0);
    await expect(page.getByTestId("approval-card")).toHaveCount(0);
    // The payload is still shown, as data.
    await expect(agent.first()).toContainText(/Deploy request|Delete the staging cluster/);
    const input = page.getByTestId("composer-input");
    await input.fill("staging, two replicas");
    await input.press("Enter");
    const user = page.getByTestId("message-bubble").and(page.locator('[data-role="user"]'));
    await expect(user.filter({ hasText: "staging, two replicas" })).toBeVisible();
    await expect(agent).toHaveCount(2, { timeout: 20_000 });
  });
}
