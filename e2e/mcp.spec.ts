import { expect, test } from "@playwright/test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Question } from "../lib/protocol/question";
import type { Session } from "../lib/protocol/entities";
import { TEST_TOKEN } from "../tests/helpers/server-process";
import { ChatPage } from "./chat-page";

/** An agent elsewhere (Claude Code through MCP) asks for approval: an ordinary approval card in every tab of its chat. */

test("Claude Code's permission prompt is an approval card in two tabs (one a phone); allowed always on the phone, it retracts everywhere, Claude Code reads allow, and the next such call is not asked", async ({
  context,
  request,
  baseURL,
}) => {
  const name = `claude-code-e2e-${test.info().repeatEachIndex}-${test.info().retry}`;
  const client = new Client({ name, version: "2.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${baseURL}/mcp`), { requestInit: { headers: { authorization: `Bearer ${TEST_TOKEN}` } } }));
  try {
    const prompt = (command: string, id: string) =>
      client.callTool(
        { name: "permission_prompt", arguments: { tool_name: "Bash", input: { command, description: "Run the tests" }, tool_use_id: id } },
        CallToolResultSchema,
      ) as Promise<CallToolResult>;
    const first = prompt("npm test -- --run a.test.ts", `toolu_${Date.now()}`);

    let session: Session | undefined;
    await expect.poll(async () => (session = ((await (await request.get("/api/sessions")).json()) as Session[]).find((s) => s.title === name)), { timeout: 10_000 }).toBeTruthy();
    const sessionId = session!.id;
    const tabs = await Promise.all([0, 1].map(() => ChatPage.open(context, sessionId)));
    await tabs[1]!.page.setViewportSize({ width: 390, height: 844 });
    for (const tab of tabs) {
      const card = tab.page.locator('[data-testid="question-card"][data-kind="approval"]');
      await expect(card).toBeVisible();
      await expect(card).toHaveAttribute("data-tool", "Bash");
      await expect(tab.page.getByTestId("question-prompt")).toHaveText("Run npm test -- --run a.test.ts?");
      await expect(tab.page.getByTestId("approval-command")).toHaveText("npm test -- --run a.test.ts");
      await expect(tab.page.getByTestId("question-owner")).toHaveText(`${name} (MCP)`);
    }
    await tabs[0]!.page.screenshot({ path: "test-results/mcp-approval-desktop.png" });
    await tabs[1]!.page.screenshot({ path: "test-results/mcp-approval-phone.png" });

    const phone = tabs[1]!.page;
    await tabs[1]!.keysReady();
    await phone.getByTestId("approval-allow-always").click();
    await phone.getByTestId("approval-always-option").last().locator("input").check();
    await phone.getByTestId("approval-always-confirm").click();
    for (const tab of tabs) await tab.expectNoCard();
    expect(JSON.parse(((await first).content[0] as { text: string }).text)).toEqual({ behavior: "allow", updatedInput: { command: "npm test -- --run a.test.ts", description: "Run the tests" } });

    // npm test with other arguments: allowed by the rule just added, no card.
    const second = await prompt("npm test -- --run b.test.ts", `toolu_${Date.now()}_2`);
    expect(JSON.parse((second.content[0] as { text: string }).text)).toMatchObject({ behavior: "allow" });
    const pending = (await (await request.get(`/api/questions?session_id=${sessionId}`)).json()) as Question[];
    expect(pending.filter((q) => q.status === "pending")).toEqual([]);
  } finally {
    await client.close();
  }
});
