import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunDetail } from "../lib/protocol/entities";
import type { PermissionRule, SessionRules } from "../lib/protocol/permissions";
import type { Question } from "../lib/protocol/question";
import { addPeople } from "./helpers/people";
import { eventOn, isFinalStatus, openTab, poll, restClient, type RestClient, type Tab } from "./helpers/remote";
import { freePort, startServerProcess, type ServerProcess } from "./helpers/server-process";

/** Permission rules over REST and sockets against the production build, with a project rules file of the test's own. */

const TIMEOUT = 60_000;
let dir: string;
let server: ServerProcess;
const tabs: Tab[] = [];

const PROJECT_RULES = {
  rules: [
    { tool: "read_file", pattern: "**", decision: "allow" },
    { tool: "shell", pattern: "rm -rf*", decision: "deny" },
    { tool: "browser", pattern: "*", decision: "ask" },
    { tool: "shell", pattern: "git push*--force*", decision: "deny" },
  ],
};

async function tab(url: string, options: Parameters<typeof openTab>[1] = {}): Promise<Tab> {
  const t = await openTab(url, options);
  tabs.push(t);
  return t;
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "parley-rules-"));
  writeFileSync(path.join(dir, "rules.json"), JSON.stringify(PROJECT_RULES));
  server = await startServerProcess({ port: await freePort(), databaseFile: path.join(dir, "p.db"), env: { PARLEY_PERMISSIONS_FILE: path.join(dir, "rules.json") } });
}, TIMEOUT);
afterAll(async () => {
  for (const t of tabs) t.disconnect();
  await server?.kill("SIGTERM");
  rmSync(dir, { recursive: true, force: true });
});

describe("permission rules over REST", () => {
  it("lists the project's rules and the session's, adds and removes a rule, and tells the session's tabs", { timeout: TIMEOUT }, async () => {
    const rest = restClient(server.url);
    const session = await rest.ok(rest.post("/api/sessions", {}));
    const other = await rest.ok(rest.post("/api/sessions", {}));
    const rulesOf = (id: string) => rest.ok(rest.get<SessionRules>(`/api/sessions/${id}/rules`));

    const before = await rulesOf(session.id);
    expect(before.session).toEqual([]);
    expect(before.project.map((r) => [r.tool, r.pattern, r.decision, r.source, r.unknownTool])).toEqual([
      ["read_file", "**", "allow", "project", false],
      ["shell", "rm -rf*", "deny", "project", false],
      ["browser", "*", "ask", "project", true],
      ["shell", "git push*--force*", "deny", "project", false],
    ]);
    // Parley's own rules: every path tool of the catalogue denies .git and .env files.
    expect(before.builtin.map((r) => [r.tool, r.pattern, r.decision, r.source])).toEqual(
      expect.arrayContaining([
        ["write_file", "**/.git/**", "deny", "builtin"],
        ["read_file", "**/.env*", "deny", "builtin"],
      ]),
    );
    expect((await rest.del(`/api/sessions/${session.id}/rules/${before.builtin[0]!.id}`)).status).toBe(400);

    const mine = await tab(server.url);
    expect(await mine.emitWithAck("session.join", { sessionId: session.id })).toMatchObject({ ok: true });
    const elsewhere = await tab(server.url);
    expect(await elsewhere.emitWithAck("session.join", { sessionId: other.id })).toMatchObject({ ok: true });
    const seenElsewhere: unknown[] = [];
    elsewhere.on("rules.updated", (e) => seenElsewhere.push(e));

    const added = eventOn(mine, "rules.updated");
    const created = await rest.post<PermissionRule>(`/api/sessions/${session.id}/rules`, { tool: "shell", pattern: " npm test* ", decision: "allow" });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ sessionId: session.id, tool: "shell", pattern: "npm test*", decision: "allow", source: "manual", unknownTool: false });
    expect(await added).toEqual({ sessionId: session.id });

    // A rule limited to a working folder: stored normalised, listed with it.
    const inFolder = await rest.post<PermissionRule>(`/api/sessions/${session.id}/rules`, { tool: "shell", pattern: "make *", decision: "allow", cwd: "./packages/app/" });
    expect(inFolder.status).toBe(201);
    expect(inFolder.body).toMatchObject({ pattern: "make *", cwd: "packages/app", subjectKind: "command" });
    expect((await rest.del(`/api/sessions/${session.id}/rules/${inFolder.body.id}`)).status).toBe(200);

    // A tool the catalogue does not have is kept, flagged.
    const unknown = await rest.post<PermissionRule>(`/api/sessions/${session.id}/rules`, { tool: "browser", pattern: "https://example.com/*", decision: "deny" });
    expect(unknown.status).toBe(201);
    expect(unknown.body.unknownTool).toBe(true);
    expect((await rulesOf(session.id)).session.map((r) => r.id)).toEqual([created.body.id, unknown.body.id]);
    expect((await rulesOf(other.id)).session).toEqual([]);

    const removed = eventOn(mine, "rules.updated");
    expect(await rest.del(`/api/sessions/${session.id}/rules/${created.body.id}`)).toEqual({ status: 200, body: { removed: true } });
    await removed;
    expect((await rulesOf(session.id)).session.map((r) => r.id)).toEqual([unknown.body.id]);
    expect(seenElsewhere).toEqual([]);

    // Gone, of another session, or a project default: nothing removed.
    const again = await rest.del(`/api/sessions/${session.id}/rules/${created.body.id}`);
    expect(again.status).toBe(404);
    expect(again.body.error.code).toBe("not_found:rule");
    expect((await rest.del(`/api/sessions/${other.id}/rules/${unknown.body.id}`)).status).toBe(404);
    expect((await rest.del(`/api/sessions/${session.id}/rules/${before.project[0]!.id}`)).status).toBe(400);
    expect((await rulesOf(session.id)).session.map((r) => r.id)).toEqual([unknown.body.id]);
  });

  it("refuses an invalid pattern with a 400 naming it, and bodies that are not a rule", { timeout: TIMEOUT }, async () => {
    const rest = restClient(server.url);
    const session = await rest.ok(rest.post("/api/sessions", {}));
    const url = `/api/sessions/${session.id}/rules`;

    const bad = await rest.post(url, { tool: "write_file", pattern: "docs/[draft/**", decision: "allow" });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: "bad_request", message: expect.stringContaining('"docs/[draft/**"') });
    for (const body of [
      { tool: "shell", pattern: "", decision: "allow" },
      { tool: "shell", pattern: "ls*", decision: "maybe" },
      { tool: "shell", pattern: "ls*", decision: "allow", extra: 1 },
      { tool: "1shell", pattern: "ls*", decision: "allow" },
      { tool: "shell", pattern: "x".repeat(201), decision: "allow" },
      { tool: "shell", decision: "allow" },
      { tool: "shell", pattern: "git * status", decision: "allow" },
      { tool: "shell", pattern: "ls", decision: "allow", cwd: "" },
    ]) {
      const res = await rest.post(url, body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
    }
    expect((await rest.ok(rest.get<SessionRules>(url))).session).toEqual([]);
    expect((await rest.post(`/api/sessions/no-such-session/rules`, { tool: "shell", pattern: "ls*", decision: "allow" })).status).toBe(404);
  });

  it("keeps one owner's rules invisible to another owner (404, as for a session that does not exist)", { timeout: TIMEOUT }, async () => {
    const owner = restClient(server.url);
    const session = await owner.ok(owner.post("/api/sessions", {}));
    const rule = await owner.ok(owner.post<PermissionRule>(`/api/sessions/${session.id}/rules`, { tool: "shell", pattern: "ls*", decision: "allow" }));

    const ann = restClient(server.url, { token: (await addPeople(`file:${path.join(dir, "p.db")}`, ["ann"]))[0]!.token });
    for (const res of [
      await ann.get(`/api/sessions/${session.id}/rules`),
      await ann.post(`/api/sessions/${session.id}/rules`, { tool: "shell", pattern: "*", decision: "allow" }),
      await ann.del(`/api/sessions/${session.id}/rules/${rule.id}`),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe("not_found:session");
    }
    expect((await owner.ok(owner.get<SessionRules>(`/api/sessions/${session.id}/rules`))).session).toEqual([rule]);
    // Without a credential: 401.
    expect((await restClient(server.url, { token: null }).get(`/api/sessions/${session.id}/rules`)).status).toBe(401);
  });
});

/** Starts test.tool on one call; resolves when it ran or was denied without a card (`asked: null`), or with the card it asks. */
async function call(rest: RestClient, sessionId: string, tool: string, input: Record<string, unknown>) {
  const run = await rest.ok(rest.post<{ id: string }>(`/api/sessions/${sessionId}/runs`, { function: "test.tool", input: { tool, input } }));
  return poll(`the call ${JSON.stringify(input)}`, async () => {
    const detail = (await rest.get<RunDetail>(`/api/runs/${run.id}`)).body;
    if (isFinalStatus(detail.status)) return { result: detail.result as { outcome: string }, asked: null as Question | null };
    const asked = detail.pendingQuestions.find((q) => q.kind === "approval");
    return asked ? { result: null, asked } : undefined;
  });
}

describe("Allow always over the real server", () => {
  it("stores exactly the option answered (always_wider, then always) and asks again for every call it does not cover", { timeout: TIMEOUT }, async () => {
    const rest = restClient(server.url);
    const session = await rest.ok(rest.post("/api/sessions", {}));
    const shell = (command: string, cwd?: string) => call(rest, session.id, "shell", cwd === undefined ? { command } : { command, cwd });

    // git push origin main: the card offers exactly it, or `git push` with any further arguments; the person takes the wider one.
    const push = await shell("git push origin main");
    expect(push.asked!.approval!.always.map((o) => [o.pattern, o.cwd, o.label])).toEqual([
      ["git push origin main", ".", "`git push origin main` exactly, in the workspace's top folder"],
      ["git push *", ".", "`git push` with any further arguments, in the workspace's top folder"],
    ]);
    await rest.ok(rest.post(`/api/questions/${push.asked!.id}/reply`, { value: "always_wider" }));
    await poll("the approved push ran", async () => (await rest.get<RunDetail>(`/api/runs/${push.asked!.runId}`)).body.result);

    // npm test -- --watch: the person takes exactly it.
    const test = await shell("npm test -- --watch");
    await rest.ok(rest.post(`/api/questions/${test.asked!.id}/reply`, { value: "always" }));

    const rules = (await rest.ok(rest.get<SessionRules>(`/api/sessions/${session.id}/rules`))).session;
    expect(rules.map((r) => [r.tool, r.pattern, r.decision, r.cwd, r.source])).toEqual([
      ["shell", "git push *", "allow", ".", "always"],
      ["shell", "npm test -- --watch", "allow", ".", "always"],
    ]);

    const expectations: Array<[string, string | undefined, "allowed" | "asks" | "denied"]> = [
      ["git push origin feature", undefined, "allowed"],
      ["git push", undefined, "allowed"],
      ["npm test -- --watch", undefined, "allowed"],
      ["git push --force", undefined, "denied"],
      ["git push -f", undefined, "asks"],
      ["git push origin +main", undefined, "asks"],
      ["git push origin main; rm -r build", undefined, "asks"],
      // The project's `rm -rf*` reads every simple command of a chain.
      ["git push origin main; rm -rf build", undefined, "denied"],
      ["git push origin main", "elsewhere", "asks"],
      ["npm test", undefined, "asks"],
      ["npm test -- --watch", "packages/app", "asks"],
    ];
    for (const [command, cwd, expected] of expectations) {
      const outcome = await shell(command, cwd);
      const seen = outcome.asked ? "asks" : outcome.result?.outcome === "allowed" ? "allowed" : "denied";
      expect([command, cwd, seen]).toEqual([command, cwd, expected]);
      if (outcome.asked) await rest.ok(rest.post(`/api/questions/${outcome.asked.id}/reject`, {}));
    }

    // An ask rule for every `make` call: the card offers no wider rule it would stop anyway.
    await rest.ok(rest.post(`/api/sessions/${session.id}/rules`, { tool: "shell", pattern: "make*", decision: "ask" }));
    const make = await shell("make build");
    expect(make.asked!.approval!.always.map((o) => o.pattern)).toEqual(["make build"]);
    const wider = await rest.post(`/api/questions/${make.asked!.id}/reply`, { value: "always_wider" });
    expect(wider.status).toBe(422);
    await rest.ok(rest.post(`/api/questions/${make.asked!.id}/reject`, {}));
  });

  it("an Allow always for a time: the rule names who made it and when it ends, counts its uses; a grant's time is checked", { timeout: TIMEOUT }, async () => {
    const rest = restClient(server.url);
    const session = await rest.ok(rest.post("/api/sessions", {}));
    const shell = (command: string) => call(rest, session.id, "shell", { command });
    const first = await shell("npm run lint");
    const reply = (body: Record<string, unknown>) => rest.post(`/api/questions/${first.asked!.id}/reply`, body);
    const inAnHour = new Date(Date.now() + 3_600_000).toISOString();
    expect(await reply({ value: "once", until: inAnHour })).toMatchObject({ status: 422, body: { error: { code: "invalid_answer", message: expect.stringContaining("Allow always") } } });
    expect(await reply({ value: "always", until: new Date(Date.now() - 1_000).toISOString() })).toMatchObject({ status: 422, body: { error: { message: expect.stringContaining("already passed") } } });
    expect(await reply({ value: "always", until: new Date(Date.now() + 400 * 86_400_000).toISOString() })).toMatchObject({
      status: 422,
      body: { error: { message: expect.stringContaining("a year") } },
    });
    expect(await reply({ value: "always", until: "tomorrow" })).toMatchObject({ status: 400 });
    await rest.ok(reply({ value: "always", until: inAnHour }));

    for (let i = 0; i < 2; i++) expect((await shell("npm run lint")).result?.outcome).toBe("allowed");
    const [rule] = (await rest.ok(rest.get<SessionRules>(`/api/sessions/${session.id}/rules`))).session;
    expect(rule).toMatchObject({ pattern: "npm run lint", source: "always", createdBy: "local", expiresAt: new Date(inAnHour).toISOString(), uses: 2 });

    // A rule added over REST may end too; one for good has no end.
    const manual = await rest.ok(rest.post<PermissionRule>(`/api/sessions/${session.id}/rules`, { tool: "shell", pattern: "pwd", decision: "allow", until: inAnHour }));
    expect(manual).toMatchObject({ createdBy: "local", expiresAt: new Date(inAnHour).toISOString() });
    expect(await rest.post(`/api/sessions/${session.id}/rules`, { tool: "shell", pattern: "ls", decision: "allow", until: "2001-01-01T00:00:00Z" })).toMatchObject({ status: 400 });
    expect(await rest.ok(rest.post<PermissionRule>(`/api/sessions/${session.id}/rules`, { tool: "shell", pattern: "ls", decision: "allow" }))).toMatchObject({ expiresAt: null });
  });

  it("a test runner's card names the rules that let the agent change the code it runs; another command's does not", { timeout: TIMEOUT }, async () => {
    const rest = restClient(server.url);
    const session = await rest.ok(rest.post("/api/sessions", {}));
    const shell = (command: string) => call(rest, session.id, "shell", { command });
    const plain = await shell("npm test");
    expect(plain.asked!.approval!.preview).not.toHaveProperty("chain");
    await rest.ok(rest.post(`/api/questions/${plain.asked!.id}/reject`, {}));

    await rest.ok(rest.post(`/api/sessions/${session.id}/rules`, { tool: "write_file", pattern: "src/**", decision: "allow" }));
    const test = await shell("npm test");
    expect(test.asked!.approval!.preview).toMatchObject({ type: "command", command: "npm test", chain: ["write_file src/**"] });
    await rest.ok(rest.post(`/api/questions/${test.asked!.id}/reject`, {}));
    const list = await shell("ls -la");
    expect(list.asked!.approval!.preview).not.toHaveProperty("chain");
    await rest.ok(rest.post(`/api/questions/${list.asked!.id}/reject`, {}));
  });

  it("denies a path tool .git and .env files by the builtin rules, whatever allow rule a session has", { timeout: TIMEOUT }, async () => {
    const rest = restClient(server.url);
    const session = await rest.ok(rest.post("/api/sessions", {}));
    await rest.ok(rest.post(`/api/sessions/${session.id}/rules`, { tool: "write_file", pattern: "**", decision: "allow" }));
    for (const [tool, input] of [
      ["write_file", { path: ".git/hooks/pre-commit", content: "rm -rf ~\n" }],
      ["read_file", { path: ".ENV" }],
    ] as const) {
      const outcome = await call(rest, session.id, tool, input);
      expect(outcome.asked).toBeNull();
      expect(outcome.result).toMatchObject({ outcome: "denied", message: expect.stringContaining("**/") });
    }
    expect((await call(rest, session.id, "write_file", { path: "README.md", content: "hi\n" })).result).toEqual({ outcome: "allowed" });
  });
});

describe("the project's rules file", () => {
  it("stops a server whose file is invalid, naming the file and the problem", { timeout: TIMEOUT }, async () => {
    const file = path.join(dir, "bad-rules.json");
    writeFileSync(file, JSON.stringify({ rules: [{ tool: "shell", pattern: "echo [x", decision: "allow" }] }));
    const start = startServerProcess({ port: await freePort(), databaseFile: path.join(dir, "bad.db"), env: { PARLEY_PERMISSIONS_FILE: file } });
    await expect(start).rejects.toThrow(/Invalid permission rules file .*bad-rules\.json: rules\.0 \(shell\): Invalid pattern "echo \[x"/);
  });
});
