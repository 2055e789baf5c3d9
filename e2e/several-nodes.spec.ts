import { expect, test, type BrowserContext } from "@playwright/test";
import { authHeaders, TEST_TOKEN } from "../tests/helpers/server-process";
import { clusterPrerequisites, startCluster, type Cluster } from "../tests/helpers/cluster";
import { ChatPage } from "./chat-page";

// Two production nodes of their own on PostgreSQL and a Redis of their own, a tab on each: what a
// person sees when the load balancer put their tabs on different nodes.
let cluster: Cluster | undefined;
let context: BrowserContext;

test.beforeAll(async ({ browser }) => {
  const ready = await clusterPrerequisites();
  test.skip(!ready.ok, `SKIPPED: two nodes need PostgreSQL and Redis: ${ready.ok ? "" : ready.reason}`);
  test.setTimeout(120_000);
  cluster = await startCluster(2);
  // Its own browser context: the nodes share a database, so one node's sign-in cookie is the other's too.
  context = await browser.newContext();
});

test.afterAll(async () => {
  await context?.close();
  await cluster?.close();
});

async function tabsOnBothNodes(): Promise<[ChatPage, ChatPage]> {
  const [a, b] = cluster!.nodes;
  const res = await fetch(`${a!.url}/api/sessions`, { method: "POST", headers: { ...authHeaders(), "content-type": "application/json" }, body: "{}" });
  const session = (await res.json()) as { id: string };
  const onA = new ChatPage(await context.newPage());
  await onA.page.goto(`${a!.url}/s/${session.id}?token=${TEST_TOKEN}`);
  await expect(onA.page.getByTestId("connection-status")).toHaveAttribute("data-state", "connected");
  const onB = new ChatPage(await context.newPage());
  await onB.page.goto(`${b!.url}/s/${session.id}`);
  await expect(onB.page.getByTestId("connection-status")).toHaveAttribute("data-state", "connected");
  return [onA, onB];
}

test("a card asked on node A shows in a tab on node B; answered there, it is retracted on A and both see the run go on", async () => {
  const [onA, onB] = await tabsOnBothNodes();
  await onA.send("/deploy");
  await onA.expectCard("Which environment should I deploy to?");
  await onB.expectCard("Which environment should I deploy to?");

  await onB.option("staging").click();

  for (const tab of [onA, onB]) {
    await tab.expectNoCard();
    await expect(tab.page.locator('[data-testid="question-record"][data-status="answered"]')).toContainText("staging");
    await expect(tab.messages("agent").filter({ hasText: "Deployed to staging" })).toBeVisible();
  }
});

test("while Redis is away both tabs say so and still work; when it is back the banner goes and updates cross nodes again", async () => {
  const [onA, onB] = await tabsOnBothNodes();
  const banner = (tab: ChatPage) => tab.page.getByText("Live updates from other servers are paused");
  await cluster!.redis.stop();
  await expect(banner(onA)).toBeVisible({ timeout: 15_000 });
  await expect(banner(onB)).toBeVisible({ timeout: 15_000 });

  // Node A's own tab goes on: its question, its answer, the run's end.
  await onA.send("/coffee");
  await onA.expectCard("What would you like to drink?");
  await onA.option("Espresso").click();
  await onA.expectNoCard();
  await expect(onA.messages("agent").filter({ hasText: "One Espresso coming up" })).toBeVisible();

  await cluster!.redis.start();
  await expect(banner(onA)).toHaveCount(0, { timeout: 15_000 });
  await expect(banner(onB)).toHaveCount(0, { timeout: 15_000 });
  // Node B's tab caught up from a snapshot when Redis came back, and hears node A live again.
  await expect(onB.messages("agent").filter({ hasText: "One Espresso coming up" })).toBeVisible();
  await onA.send("/deploy");
  await onB.expectCard("Which environment should I deploy to?");
});

test("a tab on node B reloaded while node A streams a reply shows the text so far at once, then the rest", async () => {
  const [onA, onB] = await tabsOnBothNodes();
  const sessionId = new URL(onA.page.url()).pathname.split("/").at(-1)!;
  const res = await fetch(`${cluster!.nodes[0]!.url}/api/sessions/${sessionId}/runs`, {
    method: "POST",
    headers: { ...authHeaders(), "content-type": "application/json" },
    body: JSON.stringify({ function: "test.stream", input: { words: 260, delayMs: 30 } }),
  });
  expect(res.status).toBe(201);
  const streamingOn = (tab: ChatPage) => tab.page.getByTestId("streaming-message");
  await expect(streamingOn(onB)).toContainText("w25 ");

  await onB.page.reload();
  await expect(onB.page.getByTestId("connection-status")).toHaveAttribute("data-state", "connected");
  // Node B's snapshot asked node A for what it streams: the words before the reload are there at once,
  // in the first words the stream shows (without them, it would show only the words streamed since).
  await expect(streamingOn(onB)).toContainText(/w\d+ /);
  expect(await streamingOn(onB).getByTestId("message-text").innerText()).toContain("w25 ");
  await expect(onB.messages("agent").filter({ hasText: "w260." })).toHaveCount(1, { timeout: 20_000 });
  await expect(streamingOn(onB)).toHaveCount(0);
  await expect(onA.messages("agent").filter({ hasText: "w260." })).toHaveCount(1);
});
