import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Question } from "../lib/protocol/question";
import type { Run, Session } from "../lib/protocol/entities";
import { poll } from "./helpers/remote";
import { TEST_TOKEN } from "./helpers/server-process";
import { suiteServer } from "./helpers/suite-server";

/** Parley's MCP server with the official MCP client: an agent elsewhere asks, a person answers in Parley. */

const suite = suiteServer("mcp", { PARLEY_MCP_PROGRESS_MS: "300" });
const root = path.resolve(import.meta.dirname, "..");
let apiToken = "";
const open: Client[] = [];

beforeAll(async () => {
  const { stdout } = await promisify(execFile)(process.execPath, [path.join(root, "bin/parley.mjs"), "token", "create", "--name", "laptop", "--database", `file:${path.join(suite.dir, "p.db")}`], {
    env: { ...process.env, PARLEY_URL: "", PARLEY_TOKEN: "" },
  });
  apiToken = stdout.split("\n")[0]!.trim();
}, 60_000);

afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close().catch(() => {})));
});

async function connect(name = "test-agent", token = apiToken): Promise<Client> {
  const client = new Client({ name, version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${suite.server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  open.push(client);
  return client;
}

const call = (client: Client, name: string, args: Record<string, unknown>, options: Parameters<Client["callTool"]>[2] = {}) =>
  client.callTool({ name, arguments: args }, CallToolResultSchema, { timeout: 30_000, ...options }) as Promise<CallToolResult>;

const textOf = (result: CallToolResult) => (result.content[0] as { text: string }).text;

/** Every pending question, of every chat. */
async function pending(): Promise<Question[]> {
  const sessions = await suite.rest.ok(suite.rest.get<Session[]>("/api/sessions"));
  return (await Promise.all(sessions.map((s) => suite.rest.ok(suite.rest.get<Question[]>(`/api/questions?session_id=${s.id}`))))).flat();
}

/** The pending question the ask put, once it is stored. */
async function pendingOf(prompt: string): Promise<Question> {
  return poll(`"${prompt}" is pending`, async () => (await pending()).find((q) => q.prompt === prompt && q.status === "pending"));
}

const reply = (q: Question, value: unknown) => suite.rest.ok(suite.rest.post(`/api/questions/${q.id}/reply`, { value }));
const reject = (q: Question, message: string) => suite.rest.ok(suite.rest.post(`/api/questions/${q.id}/reject`, { message }));
const question = (id: string) => suite.rest.ok(suite.rest.get<Question>(`/api/questions/${id}`));

describe("the MCP server at /mcp", { timeout: 60_000 }, () => {
  it("lists its three tools; needs a credential; a session belongs to the credential that opened it", async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["ask_user", "permission_prompt", "request_approval"]);
    const ask = tools.find((t) => t.name === "ask_user")!;
    expect(Object.keys(ask.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(["question", "options", "multiple", "allow_custom", "default", "timeout_seconds", "form", "session", "idempotency_key"]));
    expect(ask.outputSchema?.properties).toHaveProperty("outcome");

    const anonymous = await fetch(`${suite.server.url}/mcp`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: "{}" });
    expect(anonymous.status).toBe(401);
    const sessionId = (client.transport as StreamableHTTPClientTransport).sessionId!;
    const other = await fetch(`${suite.server.url}/mcp`, {
      method: "POST",
      headers: { authorization: `Bearer ${TEST_TOKEN}`, "mcp-session-id": sessionId, "mcp-protocol-version": "2025-06-18", "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list" }),
    });
    expect(other.status).toBe(404);
  });

  it("ask_user: a card naming the client and the token, in the client's own chat; the answer comes back as text and structured content, with progress meanwhile", async () => {
    const client = await connect("Deploy Bot");
    const progress: number[] = [];
    const result = call(client, "ask_user", { question: "Ship 1.4 today?", options: ["yes", "no"] }, { onprogress: (p) => progress.push(p.progress), resetTimeoutOnProgress: true });
    const q = await pendingOf("Ship 1.4 today?");
    expect(q).toMatchObject({ owner: "Deploy Bot (laptop)", options: ["yes", "no"] });
    const sessions = await suite.rest.ok(suite.rest.get<Session[]>("/api/sessions"));
    expect(sessions.find((s) => s.id === q.sessionId)?.title).toBe("Deploy Bot");
    const run = await suite.rest.ok(suite.rest.get<Run>(`/api/runs/${q.runId}`));
    expect(run.startedBy).toMatchObject({ surface: "mcp", via: "api_token", tokenName: "laptop", mcpClient: "Deploy Bot" });
    await poll("a progress notification", async () => progress.length >= 2 || undefined);
    await reply(q, "yes");
    const answered = await result;
    expect(answered.structuredContent).toEqual({ outcome: "answered", value: "yes" });
    expect(textOf(answered)).toBe("yes");
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
  });

  it("ask_user: declined with feedback; timed out with its default; a form's answer is its content; a bad ask is a tool error", async () => {
    const client = await connect();
    const declined = call(client, "ask_user", { question: "Delete the cache?" });
    await reject(await pendingOf("Delete the cache?"), "not today");
    expect((await declined).structuredContent).toEqual({ outcome: "declined", feedback: "not today" });

    const timedOut = await call(client, "ask_user", { question: "Which region?", options: ["eu", "us"], default: "eu", timeout_seconds: 1 });
    expect(timedOut.structuredContent).toMatchObject({ outcome: "timed_out", value: "eu" });

    const form = call(client, "ask_user", { question: "Release details", form: { type: "object", properties: { version: { type: "string" }, notify: { type: "boolean" } }, required: ["version"] } });
    await reply(await pendingOf("Release details"), { version: "1.4.0", notify: true });
    expect((await form).structuredContent).toEqual({ outcome: "answered", value: { version: "1.4.0", notify: true } });

    const bad = await call(client, "ask_user", { question: "Pick", options: ["a"], multiple: true, form: { type: "object", properties: {} } });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/form/);
  });

  it("a client that times out and comes back with the same idempotency_key waits on the same question; one that cancels withdraws it", async () => {
    const first = await connect("Flaky Agent");
    await expect(call(first, "ask_user", { question: "Keep waiting?", idempotency_key: "k-1" }, { timeout: 1_000 })).rejects.toThrow(/timed out/i);
    const q = await pendingOf("Keep waiting?");
    await first.close();
    // The client's own timeout is not a withdrawal.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await question(q.id)).toMatchObject({ status: "pending" });

    const again = await connect("Flaky Agent");
    const waiting = call(again, "ask_user", { question: "Keep waiting?", idempotency_key: "k-1" });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await pending()).filter((x) => x.prompt === "Keep waiting?")).toHaveLength(1);
    await reply(q, "yes, still");
    expect((await waiting).structuredContent).toEqual({ outcome: "answered", value: "yes, still" });
    // Asked again after it settled: its stored outcome, at once.
    expect((await call(again, "ask_user", { question: "Keep waiting?", idempotency_key: "k-1" })).structuredContent).toEqual({ outcome: "answered", value: "yes, still" });

    const abort = new AbortController();
    const cancelled = call(again, "ask_user", { question: "Cancel me?" }, { signal: abort.signal });
    const c = await pendingOf("Cancel me?");
    abort.abort("the agent moved on");
    await expect(cancelled).rejects.toThrow();
    expect(await poll("the cancelled ask is withdrawn", async () => ((await question(c.id)).status === "cancelled" ? true : undefined))).toBe(true);
  });

  it("permission_prompt answers Claude Code's JSON; request_approval's \"always\" answers later calls it covers without asking", async () => {
    const client = await connect("claude-code");
    const input = { command: "npm test -- --run", description: "Run the tests" };
    const allowed = call(client, "permission_prompt", { tool_name: "Bash", input, tool_use_id: "toolu_1" });
    const card = await pendingOf("Run `npm test -- --run`?");
    expect(card).toMatchObject({ kind: "approval", owner: "claude-code (laptop)", approval: { tool: "Bash", subjectKind: "command", preview: { type: "command", command: "npm test -- --run" } } });
    await reply(card, "once");
    expect(JSON.parse(textOf(await allowed))).toEqual({ behavior: "allow", updatedInput: input });

    const denied = call(client, "permission_prompt", { tool_name: "Write", input: { file_path: "/etc/hosts", content: "x" }, tool_use_id: "toolu_2" });
    await reject(await pendingOf("Use Write on /etc/hosts?"), "never touch /etc");
    expect(JSON.parse(textOf(await denied))).toEqual({ behavior: "deny", message: "Rejected. never touch /etc" });

    const always = call(client, "request_approval", { tool_name: "mcp__github__create_issue", input: { repo: "acme/app", title: "Flaky test" }, idempotency_key: "a-1" });
    const approval = await pendingOf("Use mcp__github__create_issue?");
    expect(approval.approval?.always.map((o) => o.pattern)).toContain("*");
    await reply(approval, "always_wider");
    expect((await always).structuredContent).toEqual({ outcome: "answered", decision: "always" });
    const covered = await call(client, "request_approval", { tool_name: "mcp__github__create_issue", input: { repo: "acme/app", title: "Another" } });
    expect(covered.structuredContent).toMatchObject({ outcome: "answered", decision: "once", feedback: expect.stringMatching(/^Allowed by the rule/) });
    // Another client's chat has its own rules: the same call asks there.
    const elsewhere = call(await connect("cursor"), "request_approval", { tool_name: "mcp__github__create_issue", input: { repo: "acme/app", title: "Third" } });
    const asked = await pendingOf("Use mcp__github__create_issue?");
    expect(asked.owner).toBe("cursor (laptop)");
    await reject(asked, "no");
    expect((await elsewhere).structuredContent).toEqual({ outcome: "declined", decision: "reject", feedback: "no" });
  });
});
