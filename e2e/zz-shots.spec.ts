import { expect, test } from "@playwright/test";
import { Api } from "./chat-page";
import { CARD_STATES, DESKTOP, PHONE } from "./ui-states";
import { people, share } from "./team-people";

test("screenshots of the team states", async ({ browser, request }) => {
  test.setTimeout(300_000);
  const api = new Api(request);
  const states = CARD_STATES.filter((s) => /read-only|1 of 2/.test(s.name));
  const paths: Array<[string, string]> = [];
  for (const s of states) paths.push([s.name, await s.prepare(api, request)]);
  await people("bob", "carol");
  const session = await api.createSession();
  await share(session.id, ["bob", "carol"]);
  await api.startRun(session.id, "test.team-tool", { tool: "shell", input: { command: "npm run deploy" }, answerers: ["local", "bob", "carol"], approvals: { required: 2 } });
  const [q] = await api.waitForPending(session.id);
  expect((await (await api.reply(q!.id, "once")).json()).outcome).toBe("voted");
  paths.push(["you voted", `/s/${session.id}`]);
  for (const [name, path] of paths) {
    for (const [screen, options] of [["desktop", DESKTOP], ["phone", PHONE]] as const) {
      const context = await browser.newContext({ ...options, storageState: "test-results/.auth/signed-in.json" });
      const page = await context.newPage();
      await page.goto(path);
      await expect(page.getByTestId("question-card")).toBeVisible();
      await page.waitForTimeout(1200);
      await page.screenshot({ path: `/tmp/cards-shots/${name.replace(/\W+/g, "-")}-${screen}.png` });
      await context.close();
    }
  }
});
