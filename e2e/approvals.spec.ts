import { expect, test, type APIRequestContext } from "@playwright/test";
import type { SessionRules } from "../lib/protocol/permissions";
import { Api, ChatPage } from "./chat-page";
import { restoreSampleFile } from "./workspace";

/** Approvals are questions of kind "approval": answered Allow once / Allow always, or rejected with feedback. */

const approvalCard = (tab: ChatPage) => tab.page.locator('[data-testid="question-card"][data-kind="approval"]');
const approvalRecords = (tab: ChatPage) => tab.page.locator('[data-testid="question-record"][data-kind="approval"]');

async function sessionRules(request: APIRequestContext, sessionId: string): Promise<SessionRules> {
  const res = await request.get(`/api/sessions/${sessionId}/rules`);
  expect(res.ok()).toBe(true);
  return res.json();
}

test.describe("approvals shared by the tabs of one session", () => {
  test("Allow once in one tab retracts the card in the other two, and the run goes on", async ({ context, request }) => {
    const api = new Api(request);
    const session = await api.createSession();
    const tabs = await Promise.all([0, 1, 2].map(() => ChatPage.open(context, session.id)));
    // The third tab is a phone.
    await tabs[2]!.page.setViewportSize({ width: 390, height: 844 });

    await tabs[0]!.send("/tests");
    for (const tab of tabs) {
      await expect(approvalCard(tab)).toBeVisible();
      await expect(approvalCard(tab)).toHaveAttribute("data-tool", "shell");
      await expect(tab.page.getByTestId("approval-title")).toHaveText(/Run tests\s*wants to run\s*shell/);
      await expect(tab.page.getByTestId("question-prompt")).toHaveText("Run npm test?");
      await expect(tab.page.getByTestId("approval-command")).toHaveText("npm test");
      await expect(tab.page.getByTestId("approval-always-hint")).toContainText("Allow shell for npm test* in this chat");
      await expect(tab.composer()).toHaveCount(0);
    }
    // On the phone every answer is on screen without scrolling.
    for (const id of ["approval-allow-once", "approval-allow-always", "approval-reject"]) await expect(tabs[2]!.page.getByTestId(id)).toBeInViewport();

    await tabs[1]!.page.getByTestId("approval-allow-once").click();

    for (const tab of tabs) {
      await tab.expectNoCard();
      const record = approvalRecords(tab);
      await expect(record).toHaveAttribute("data-status", "answered");
      await expect(record).toHaveAttribute("data-closed-by", "socket");
      await expect(record.getByTestId("question-record-asked")).toContainText("shell npm test");
      await expect(record.getByTestId("question-record-outcome")).toHaveText("Allowed once");
      await expect(record.getByTestId("question-record-via")).toHaveText("in a browser tab");
      await expect(record.getByTestId("question-record-when")).toHaveText(/\d/);
      // The tool ran: the workspace's real tests.
      await expect(tab.messages("agent").filter({ hasText: "tests passed" })).toBeVisible();
    }
    expect(await api.pending(session.id)).toEqual([]);
    // Allow once adds no rule.
    expect((await sessionRules(request, session.id)).session).toEqual([]);
  });

  test("Allow always on one of two approvals settles both cards in every tab and adds the rule", async ({ context, request }) => {
    const api = new Api(request);
    const session = await api.createSession();
    const tabs = await Promise.all([0, 1, 2].map(() => ChatPage.open(context, session.id)));

    await tabs[0]!.send("/approvals");
    await api.waitForPending(session.id, 2);
    for (const tab of tabs) {
      await expect(approvalCard(tab)).toBeVisible();
      await expect(tab.page.getByTestId("question-position")).toHaveText(/1 of 2/);
      await expect(approvalCard(tab)).toHaveAttribute("data-tool", "write_file");
      await expect(tab.page.getByTestId("approval-always-hint")).toContainText("Allow write_file on docs/** in this chat");
    }

    await tabs[2]!.page.getByTestId("approval-allow-always").click();

    // Both cards leave every tab (tabs apply settlements that arrive together in one render; whether a tab
    // ever paints the second card alone depends on timing, so it is not asserted here).
    await Promise.all(tabs.map((tab) => expect(approvalCard(tab)).toHaveCount(0, { timeout: 3_000 })));
    for (const tab of tabs) {
      await expect(tab.composer()).toBeVisible();
      const records = approvalRecords(tab);
      await expect(records).toHaveCount(2);
      await expect(records.filter({ hasText: "Allowed always" })).toHaveAttribute("data-closed-by", "socket");
      const settled = records.filter({ hasText: "from Allow always" });
      await expect(settled).toHaveAttribute("data-closed-by", "rule");
      await expect(settled.getByTestId("question-record-outcome")).toHaveText("Allowed by rule “write_file docs/**” (from Allow always)");
      await expect(tab.messages("agent").filter({ hasText: "Wrote docs/getting-started.md and docs/approvals.md" })).toBeVisible();
    }
    expect(await api.pending(session.id)).toEqual([]);

    const rules = await sessionRules(request, session.id);
    expect(rules.session).toEqual([expect.objectContaining({ tool: "write_file", pattern: "docs/**", decision: "allow", source: "always" })]);
    // The rule shows in the chat's Permissions panel of another tab.
    await tabs[1]!.page.getByTestId("permissions-button").click();
    const rule = tabs[1]!.page.getByTestId("permissions-session").getByTestId("permission-rule");
    await expect(rule).toHaveCount(1);
    await expect(rule).toHaveAttribute("data-source", "always");
    await expect(rule.getByTestId("permission-rule-tool")).toHaveText("write_file");
    await expect(rule.getByTestId("permission-rule-pattern")).toHaveText("docs/**");
    await tabs[1]!.page.keyboard.press("Escape");

    // The rule answers the next write in docs/ without a card.
    restoreSampleFile("docs/changelog.md");
    await tabs[0]!.send("/changelog");
    await expect(tabs[0]!.messages("agent").filter({ hasText: "Wrote docs/changelog.md" })).toBeVisible();
    await expect(approvalCard(tabs[0]!)).toHaveCount(0);
    const byRule = approvalRecords(tabs[1]!).filter({ hasText: "write_file docs/changelog.md" });
    await expect(byRule.getByTestId("question-record-outcome")).toHaveText(/^Allowed by rule “write_file docs\/\*\*”/);
  });

  test("Reject with feedback from the keyboard: the function reads the feedback", async ({ context, request }) => {
    const api = new Api(request);
    const session = await api.createSession();
    const tabs = await Promise.all([0, 1].map(() => ChatPage.open(context, session.id)));
    const feedback = "Put it under 0.1.1 and keep 0.2.0 for the release";

    restoreSampleFile("docs/changelog.md");
    await tabs[0]!.send("/changelog");
    for (const tab of tabs) {
      await expect(approvalCard(tab)).toBeVisible();
      const preview = tab.page.getByTestId("approval-preview");
      await expect(preview).toHaveAttribute("data-preview-type", "diff");
      await expect(tab.page.getByTestId("approval-diff-path")).toHaveText("docs/changelog.md");
      await expect(preview.locator('[data-line="add"]').filter({ hasText: "## 0.2.0" })).toBeVisible();
      await expect(preview.locator('[data-line="context"]').filter({ hasText: "## 0.1.0" })).toBeVisible();
    }

    const page = tabs[0]!.page;
    await page.keyboard.press("3");
    const message = page.getByTestId("approval-reject-message");
    await expect(message).toBeFocused();
    await expect(message).toHaveAttribute("placeholder", "Tell the agent what to do instead");
    // Escape goes back to the answers without sending; 3 opens the field again.
    await page.keyboard.press("Escape");
    await expect(message).toHaveCount(0);
    await expect(page.getByTestId("approval-allow-once")).toBeFocused();
    await page.keyboard.press("3");
    await message.fill(feedback);
    await message.press("Enter");

    for (const tab of tabs) {
      await tab.expectNoCard();
      // The demo read the changelog first (read_file, allowed by default): its write is the record that was rejected.
      await expect(approvalRecords(tab).filter({ hasText: "read_file docs/changelog.md" })).toHaveAttribute("data-status", "answered");
      const record = approvalRecords(tab).filter({ hasText: "write_file docs/changelog.md" });
      await expect(record).toHaveAttribute("data-status", "declined");
      await expect(record.getByTestId("question-record-outcome")).toHaveText(`Rejected: ${feedback}`);
      await expect(record.getByTestId("question-record-via")).toHaveText("in a browser tab");
      await expect(tab.messages("agent").filter({ hasText: `You said: "${feedback}"` })).toBeVisible();
    }
    expect((await sessionRules(request, session.id)).session).toEqual([]);
  });
});
