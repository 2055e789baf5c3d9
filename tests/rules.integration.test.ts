import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PermissionRule, SessionRules } from "../lib/protocol/permissions";
import { eventOn, openTab, restClient, type Tab } from "./helpers/remote";
import { freePort, startServerProcess, type ServerProcess } from "./helpers/server-process";

/** Permission rules over REST and sockets against the production build, with a project rules file of the test's own. */

const root = path.resolve(import.meta.dirname, "..");
const TIMEOUT = 60_000;
let dir: string;
let server: ServerProcess;
const tabs: Tab[] = [];

const PROJECT_RULES = {
  rules: [
    { tool: "read_file", pattern: "**", decision: "allow" },
    { tool: "shell", pattern: "rm -rf*", decision: "deny" },
    { tool: "browser", pattern: "*", decision: "ask" },
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
    ]);

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

    const { stdout } = await promisify(execFile)(process.execPath, [path.join(root, "bin/parley.mjs"), "token", "create", "--name", "ann", "--owner", "ann", "--database", `file:${path.join(dir, "p.db")}`], {
      env: { ...process.env, PARLEY_URL: "", PARLEY_TOKEN: "" },
    });
    const ann = restClient(server.url, { token: stdout.split("\n")[0]! });
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

describe("the project's rules file", () => {
  it("stops a server whose file is invalid, naming the file and the problem", { timeout: TIMEOUT }, async () => {
    const file = path.join(dir, "bad-rules.json");
    writeFileSync(file, JSON.stringify({ rules: [{ tool: "shell", pattern: "echo [x", decision: "allow" }] }));
    const start = startServerProcess({ port: await freePort(), databaseFile: path.join(dir, "bad.db"), env: { PARLEY_PERMISSIONS_FILE: file } });
    await expect(start).rejects.toThrow(/Invalid permission rules file .*bad-rules\.json: rules\.0 \(shell\): Invalid pattern "echo \[x"/);
  });
});
