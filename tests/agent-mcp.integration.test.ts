import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { isFinalRunStatus, type Run } from "../lib/protocol/entities";
import type { Question } from "../lib/protocol/question";
import { suiteServer } from "./helpers/suite-server";

/**
 * Parley's own agent with an MCP server of the tests' own (tests/fixtures/mcp-deployer-server.mjs,
 * stdio) against the production build: the server's tools go through the permission rules, and its
 * elicitation is a form card answered over REST.
 */
const configDir = mkdtempSync(path.join(tmpdir(), "parley-agent-mcp-"));
const configFile = path.join(configDir, "mcp.json");
writeFileSync(configFile, JSON.stringify({ servers: { deployer: { command: process.execPath, args: [path.resolve("tests/fixtures/mcp-deployer-server.mjs")] } } }));
const suite = suiteServer("agent-mcp", { PARLEY_MCP_SERVERS: configFile, PARLEY_PROVIDER: "scripted" });
const TIMEOUT = 60_000;

async function waitFor<T>(check: () => Promise<T | undefined | false>, ms = 20_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > until) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function newChat() {
  return suite.rest.ok(suite.rest.post<{ id: string }>("/api/sessions", {}));
}

const say = (sessionId: string, text: string) => suite.rest.ok(suite.rest.post<Run>(`/api/sessions/${sessionId}/messages`, { text }));

/** The one pending question of the chat, once there is one. */
const pending = (sessionId: string) =>
  waitFor(async () => {
    const list = await suite.rest.ok(suite.rest.get<Question[]>(`/api/questions?session_id=${sessionId}`));
    const open = list.filter((q) => q.status === "pending");
    return open.length === 1 && open[0]!;
  });

async function finished(runId: string): Promise<Run> {
  return waitFor(async () => {
    const run = await suite.rest.ok(suite.rest.get<Run>(`/api/runs/${runId}`));
    return isFinalRunStatus(run.status) && run;
  });
}

async function agentText(sessionId: string, runId: string): Promise<string> {
  const snapshot = await suite.rest.ok(suite.rest.get<{ messages: Array<{ role: string; runId?: string | null; text: string }> }>(`/api/sessions/${sessionId}`));
  return snapshot.messages
    .filter((m) => m.role === "agent" && m.runId === runId)
    .map((m) => m.text)
    .join("\n");
}

describe("MCP servers used by Parley's own agent", () => {
  it("a call asks an approval card first; the tool's elicitation is a form card whose answer reaches the tool, and its result the model", { timeout: TIMEOUT }, async () => {
    const chat = await newChat();
    const run = await say(chat.id, 'call mcp__deployer__deploy with {"service":"api"}');
    const approval = await pending(chat.id);
    expect(approval).toMatchObject({ kind: "approval", prompt: "Use mcp__deployer__deploy?" });
    expect(approval.approval).toMatchObject({ tool: "mcp__deployer__deploy", subject: '{"service":"api"}', dangerous: true });
    await suite.rest.ok(suite.rest.post(`/api/questions/${approval.id}/reply`, { value: "once" }));

    const form = await waitFor(async () => {
      const q = await pending(chat.id);
      return q.id !== approval.id && q;
    });
    expect(form).toMatchObject({ kind: "question", prompt: "Where should api be deployed?", detail: "The MCP server deployer asks this while its tool deploy runs." });
    expect(form.replySchema).toMatchObject({ properties: { environment: { default: "staging" }, regions: { type: "array", default: ["eu"] } }, required: ["environment", "replicas"] });
    // The server checks the content against the form: a wrong one is refused and the card stays.
    expect((await suite.rest.post(`/api/questions/${form.id}/reply`, { value: { environment: "moon", replicas: 9 } })).status).toBe(422);
    await suite.rest.ok(suite.rest.post(`/api/questions/${form.id}/reply`, { value: { environment: "production", replicas: 3, notify: true, regions: ["eu", "us"] } }));

    expect(await finished(run.id)).toMatchObject({ status: "succeeded" });
    expect(await agentText(chat.id, run.id)).toMatch(/Deployed api to production with 3 replicas in eu\+us, notify=true/);
  });

  it("a session rule that allows the tool skips the approval card; a declined form is decline for the tool", { timeout: TIMEOUT }, async () => {
    const chat = await newChat();
    await suite.rest.ok(suite.rest.post(`/api/sessions/${chat.id}/rules`, { tool: "mcp__deployer__deploy", pattern: "*", decision: "allow" }));
    const run = await say(chat.id, 'call mcp__deployer__deploy with {"service":"web"}');
    const form = await pending(chat.id);
    expect(form).toMatchObject({ kind: "question", prompt: "Where should web be deployed?" });
    await suite.rest.ok(suite.rest.post(`/api/questions/${form.id}/reject`, { message: "not today" }));
    expect(await finished(run.id)).toMatchObject({ status: "succeeded" });
    expect(await agentText(chat.id, run.id)).toMatch(/Deploy of web: decline/);
    // The rule decided the approval: it was answered by the rule, never shown as a card.
    const { journal } = await suite.rest.ok(suite.rest.get<Run & { journal: Array<{ kind: string; name: string; questionId: string | null }> }>(`/api/runs/${run.id}`));
    const approval = journal.find((e) => e.kind === "question" && e.name === "Use mcp__deployer__deploy?")!;
    const decided = await suite.rest.ok(suite.rest.get<Question>(`/api/questions/${approval.questionId}`));
    expect(decided).toMatchObject({ kind: "approval", status: "answered", answer: "once", closedBy: "rule" });
  });

  it("a session rule that denies the tool: nothing is asked or called, the model reads why", { timeout: TIMEOUT }, async () => {
    const chat = await newChat();
    await suite.rest.ok(suite.rest.post(`/api/sessions/${chat.id}/rules`, { tool: "mcp__deployer__echo", pattern: "*", decision: "deny" }));
    const run = await say(chat.id, 'call mcp__deployer__echo with {"text":"hi"}');
    expect(await finished(run.id)).toMatchObject({ status: "succeeded" });
    const text = await agentText(chat.id, run.id);
    expect(text).toMatch(/mcp__deployer__echo: .*[Dd]enied/);
    expect(text).not.toContain("echo: hi");
  });
});
