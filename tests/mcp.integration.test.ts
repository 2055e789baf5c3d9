import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Question } from "../lib/protocol/question";
import type { Run, Session } from "../lib/protocol/entities";
import { createApiToken } from "./helpers/api-token";
import { poll } from "./helpers/remote";
import { TEST_TOKEN } from "./helpers/server-process";
import { suiteServer } from "./helpers/suite-server";

/** Parley's MCP server with the official MCP client: an agent elsewhere asks, a person answers in Parley. */

const suite = suiteServer("mcp", { PARLEY_MCP_PROGRESS_MS: "300" });
let apiToken = "";
const open: Client[] = [];

beforeAll(async () => {
  apiToken = await createApiToken(path.join(suite.dir, "p.db"), "laptop");
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
  it("a waiting ask_user ends with token_revoked when its token is revoked, never with the answer given later, and nothing more goes through", async () => {
    const token = await createApiToken(path.join(suite.dir, "p.db"), "to be revoked");
    const id = /^pat_([A-Za-z0-9]+)_/.exec(token)![1]!;
    const client = await connect("revoked-agent", token);
    const asked = call(client, "ask_user", { question: "Still allowed?", options: ["yes", "no"] });
    const q = await pendingOf("Still allowed?");
    await suite.rest.ok(suite.rest.post("/api/auth/revoke-token", { id }));
    const result = await asked;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^token_revoked: /);
    await reply(q, "yes");
    expect(JSON.stringify(result)).not.toContain('"yes"');
    await expect(call(client, "ask_user", { question: "Again?" })).rejects.toThrow();
  });

  it("lists its three tools; needs a credential; a session belongs to the credential that opened it", async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["ask_user", "permission_prompt", "request_approval"]);
    const ask = tools.find((t) => t.name === "ask_user")!;
    expect(Object.keys(ask.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(["question", "options", "multiple", "allow_custom", "default", "timeout_seconds", "form", "session", "idempotency_key"]),
    );
    expect(ask.outputSchema?.properties).toHaveProperty("outcome");

    const anonymous = await fetch(`${suite.server.url}/mcp`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: "{}" });
    expect(anonymous.status).toBe(401);
    const sessionId = (client.transport as StreamableHTTPClientTransport).sessionId!;
    const other = await fetch(`${suite.server.url}/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${TEST_TOKEN}`,
        "mcp-session-id": sessionId,
        "mcp-protocol-version": "2025-06-18",
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
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

  it("request_approval with input_schema: the person edits the call (a bad edit refused, nothing settled); the result carries the edited input; without a schema nothing is edited", async () => {
    const client = await connect("deployer");
    const input_schema = {
      type: "object",
      properties: { env: { type: "string", enum: ["staging", "production"] }, replicas: { type: "integer", minimum: 1, maximum: 10 } },
      required: ["env"],
      additionalProperties: false,
    };
    const asked = call(client, "request_approval", { tool_name: "deploy", input: { env: "production", replicas: 3 }, input_schema, idempotency_key: "e-1" });
    const card = await pendingOf("Use deploy?");
    expect(card.approval?.edit).toEqual({ schema: input_schema, reader: "outside" });
    const edit = (body: Record<string, unknown>) => suite.rest.post(`/api/questions/${card.id}/reply`, { value: "once", ...body });
    expect(await edit({ input: { env: "prod" } })).toMatchObject({ status: 422, body: { error: { code: "invalid_edit" } } });
    expect(await edit({ value: "always", input: { env: "staging" } })).toMatchObject({ status: 422, body: { error: { code: "invalid_edit" } } });
    expect((await question(card.id)).status).toBe("pending");
    await suite.rest.ok(edit({ input: { env: "staging", replicas: 1 } }));
    const result = await asked;
    expect(result.structuredContent).toEqual({ outcome: "answered", decision: "once", input: { env: "staging", replicas: 1 } });
    expect(textOf(result)).toContain('run it with this input instead: {"env":"staging","replicas":1}');
    expect(await question(card.id)).toMatchObject({ editedInput: { env: "staging", replicas: 1 }, approval: { input: { env: "production", replicas: 3 } } });

    // A path field: an edit may not climb out, nor leave the roots the asker declared.
    const write_schema = { type: "object", properties: { file_path: { type: "string" }, content: { type: "string" } }, required: ["file_path"] };
    const writing = call(client, "request_approval", { tool_name: "Write", input: { file_path: "/srv/app/a.txt", content: "x" }, input_schema: write_schema, roots: ["/srv/app"] });
    const writeCard = await pendingOf("Use Write on /srv/app/a.txt?");
    expect(writeCard.approval?.edit).toEqual({ schema: write_schema, reader: "outside", roots: ["/srv/app"] });
    const editWrite = (input: Record<string, unknown>) => suite.rest.post(`/api/questions/${writeCard.id}/reply`, { value: "once", input });
    expect(await editWrite({ file_path: "/etc/passwd" })).toMatchObject({ status: 422, body: { error: { code: "invalid_edit", message: expect.stringContaining("outside the asker's roots") } } });
    expect(await editWrite({ file_path: "../x" })).toMatchObject({ status: 422, body: { error: { code: "invalid_edit", message: expect.stringContaining("climbs out") } } });
    await suite.rest.ok(editWrite({ file_path: "/srv/app/b.txt", content: "x" }));
    expect((await writing).structuredContent).toMatchObject({ decision: "once", input: { file_path: "/srv/app/b.txt" } });

    const plain = call(client, "permission_prompt", { tool_name: "Bash", input: { command: "make release" }, tool_use_id: "toolu_e" });
    const fixed = await pendingOf("Run `make release`?");
    expect(fixed.approval?.edit ?? null).toBeNull();
    expect(await suite.rest.post(`/api/questions/${fixed.id}/reply`, { value: "once", input: { command: "make" } })).toMatchObject({ status: 422, body: { error: { code: "invalid_edit" } } });
    await reply(fixed, "once");
    expect(JSON.parse(textOf(await plain))).toEqual({ behavior: "allow", updatedInput: { command: "make release" } });
  });

  it("a token of scope ask asks (REST and MCP) and reads its own asks; nothing else: no other question, no answer, no chat, no socket", async () => {
    const askOnly = await createApiToken(path.join(suite.dir, "p.db"), "ci-job", ["--scope", "ask"]);
    const as = (token: string) => ({ authorization: `Bearer ${token}`, "content-type": "application/json" });
    const asked = await fetch(`${suite.server.url}/api/asks`, { method: "POST", headers: as(askOnly), body: JSON.stringify({ question: "Scoped?", from: "ci" }) });
    expect(asked.status).toBe(201);
    const mine = (await asked.json()) as Question;
    expect((await fetch(`${suite.server.url}/api/questions/${mine.id}?wait=0`, { headers: as(askOnly) })).status).toBe(200);
    const events = await fetch(`${suite.server.url}/api/questions/${mine.id}/events`, { method: "HEAD", headers: as(askOnly) });
    expect(events.status).toBe(200);

    // Someone else's question (the full token's) is not found; answering, listing and chats are refused.
    const theirs = (await (await fetch(`${suite.server.url}/api/asks`, { method: "POST", headers: as(apiToken), body: JSON.stringify({ question: "Not yours?", from: "other" }) })).json()) as Question;
    const notFound = await fetch(`${suite.server.url}/api/questions/${theirs.id}`, { headers: as(askOnly) });
    expect(notFound.status).toBe(404);
    for (const [method, url, body] of [
      ["POST", `/api/questions/${mine.id}/reply`, { value: "yes" }],
      ["GET", `/api/questions?session_id=${mine.sessionId}`, undefined],
      ["GET", "/api/sessions", undefined],
      ["GET", `/api/runs/${mine.runId}`, undefined],
      ["POST", `/api/runs/${mine.runId}/stop`, {}],
    ] as const) {
      const res = await fetch(`${suite.server.url}${url}`, { method, headers: as(askOnly), body: body && JSON.stringify(body) });
      expect([method, url, res.status]).toEqual([method, url, 403]);
      expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/scope ask/);
    }
    expect(await question(mine.id)).toMatchObject({ status: "pending" });

    // MCP works with it; the chat's socket does not.
    const client = await connect("scoped-agent", askOnly);
    const result = call(client, "ask_user", { question: "Scoped over MCP?" });
    await reply(await pendingOf("Scoped over MCP?"), "fine");
    expect((await result).structuredContent).toEqual({ outcome: "answered", value: "fine" });
    const { io } = await import("socket.io-client");
    const socket = io(suite.server.url, { auth: { token: askOnly }, transports: ["websocket"], reconnection: false });
    const refused = await new Promise<{ data?: { code: string } }>((resolve) => socket.on("connect_error", resolve));
    socket.close();
    expect(refused.data?.code).toBe("forbidden");
  });
});
