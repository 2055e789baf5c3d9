import { expect, test } from "@playwright/test";
import { Api, ChatPage } from "./chat-page";

/** The session settings panel: the project's rules and the session's, live in every tab, removable. */

test.describe("the permissions panel", () => {
  test("lists project defaults and the session's rules, follows changes from another tab, removes a rule", async ({ context, request }) => {
    const session = await new Api(request).createSession();
    const added = await request.post(`/api/sessions/${session.id}/rules`, { data: { tool: "shell", pattern: "npm test*", decision: "allow" } });
    expect(added.status()).toBe(201);
    const rule = await added.json();

    const [one, two] = [await ChatPage.open(context, session.id), await ChatPage.open(context, session.id)];
    for (const tab of [one, two]) {
      await tab.page.getByTestId("permissions-button").click();
      await expect(tab.page.getByRole("dialog", { name: "Permissions" })).toBeVisible();
    }
    const sessionRules = (tab: ChatPage) => tab.page.getByTestId("permissions-session").getByTestId("permission-rule");
    const project = one.page.getByTestId("permissions-project").getByTestId("permission-rule");
    await expect(project.first()).toBeVisible();
    await expect(project.first().getByTestId("permission-rule-source")).toHaveText("project default");
    await expect(project.getByTestId("permission-rule-remove")).toHaveCount(0);

    const row = one.page.locator(`[data-rule-id="${rule.id}"]`);
    await expect(row).toContainText("shell");
    await expect(row.getByTestId("permission-rule-pattern")).toHaveText("npm test*");
    await expect(row.getByTestId("permission-rule-decision")).toHaveText("Allow");
    await expect(row.getByTestId("permission-rule-source")).toHaveText("added here");
    await expect(row.getByTestId("permission-rule-words")).toHaveText("shell: npm test with any further arguments, in any folder");

    // Parley's own rules: listed, marked, not removable.
    const builtin = one.page.getByTestId("permissions-builtin").getByTestId("permission-rule");
    await expect(builtin.filter({ hasText: "write_file: any file under a .git/ folder, anywhere (any case)" })).toHaveCount(1);
    await expect(builtin.first().getByTestId("permission-rule-source")).toHaveText("built into Parley");
    await expect(builtin.getByTestId("permission-rule-remove")).toHaveCount(0);

    // A rule for a tool the catalogue does not have: kept, flagged, in both tabs at once.
    await request.post(`/api/sessions/${session.id}/rules`, { data: { tool: "browser", pattern: "*", decision: "deny" } });
    for (const tab of [one, two]) {
      await expect(sessionRules(tab)).toHaveCount(2);
      await expect(sessionRules(tab).nth(1).getByTestId("permission-rule-unknown-tool")).toBeVisible();
    }

    // Removed in one tab: gone in the other.
    await one.page.locator(`[data-rule-id="${rule.id}"]`).getByTestId("permission-rule-remove").click();
    for (const tab of [one, two]) await expect(sessionRules(tab)).toHaveCount(1);
    const listed = await (await request.get(`/api/sessions/${session.id}/rules`)).json();
    expect(listed.session.map((r: { tool: string }) => r.tool)).toEqual(["browser"]);

    await one.page.keyboard.press("Escape");
    await expect(one.page.getByTestId("permissions-panel")).toHaveCount(0);
    await expect(one.page.getByTestId("permissions-button")).toBeFocused();
  });
});

test.describe("the permissions panel on a phone", () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

  test("opens as a sheet from the bottom", async ({ context, request }) => {
    const session = await new Api(request).createSession();
    const tab = await ChatPage.open(context, session.id);
    await tab.page.getByTestId("permissions-button").tap();
    const panel = tab.page.getByTestId("permissions-panel");
    await expect(panel).toBeVisible();
    await expect(panel).toContainText("No rules yet");
    const box = (await panel.boundingBox())!;
    expect(box.width).toBe(390);
    expect(Math.round(box.y + box.height)).toBe(844);
    await tab.page.getByTestId("permissions-close").tap();
    await expect(panel).toHaveCount(0);
  });
});
