import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ApprovalSpec, PermissionRuleInput } from "../../protocol/permissions";
import { startFakeParley, type FakeParley } from "../../../tests/helpers/fakes";
import { createPermissionService, MAX_SESSION_RULES, type PermissionService } from "./permission-service";

const TOOLS = [
  { name: "shell", description: "Runs a command.", dangerous: true },
  { name: "write_file", description: "Writes a file.", dangerous: true },
  { name: "read_file", description: "Reads a file.", dangerous: false },
];
const PROJECT: PermissionRuleInput[] = [
  { tool: "read_file", pattern: "**", decision: "allow" },
  { tool: "shell", pattern: "rm -rf*", decision: "deny" },
  { tool: "browser", pattern: "*", decision: "ask" },
];

function shellCall(command: string): ApprovalSpec {
  return {
    tool: "shell",
    input: { command },
    preview: { type: "command", command },
    subject: command,
    subjectKind: "command",
    always: [],
    dangerous: true,
    fallback: "deny",
  };
}

let app: FakeParley;
let permissions: PermissionService;
let sessionId: string;
let otherSessionId: string;

beforeEach(async () => {
  app = await startFakeParley();
  permissions = createPermissionService({ db: app.parley.db, events: app.parley.events, projectRules: PROJECT, tools: TOOLS });
  sessionId = (await app.parley.sessions.createSession({ title: "rules" })).id;
  otherSessionId = (await app.parley.sessions.createSession({ title: "other" })).id;
});
afterEach(async () => {
  await app.close();
});

const add = (rule: PermissionRuleInput, source: "always" | "manual" = "manual", session = sessionId) =>
  app.parley.db.$transaction((tx) => permissions.addRule(tx, session, rule, source));

describe("the permission service", () => {
  it("applies the project's rules first, then the session's by age: the last match wins", async () => {
    expect(await permissions.decide(sessionId, shellCall("rm -rf /tmp/x"))).toMatchObject({ decision: "deny", rule: { id: "project:1", source: "project", sessionId: null } });
    expect(await permissions.decide(sessionId, shellCall("npm test"))).toEqual({ decision: "ask", rule: null });

    const everything = await add({ tool: "shell", pattern: "*", decision: "allow" });
    // A session rule comes after the project's: it wins over the project's deny.
    expect(await permissions.decide(sessionId, shellCall("rm -rf /tmp/x"))).toEqual({ decision: "allow", rule: everything });
    const noRm = await add({ tool: "shell", pattern: "rm*", decision: "deny" }, "always");
    expect(await permissions.decide(sessionId, shellCall("rm -rf /tmp/x"))).toEqual({ decision: "deny", rule: noRm });
    expect(await permissions.decide(sessionId, shellCall("ls"))).toEqual({ decision: "allow", rule: everything });

    // Another session has only the project's rules.
    expect((await permissions.decide(otherSessionId, shellCall("ls"))).decision).toBe("ask");

    const listed = await permissions.list(sessionId);
    expect(listed.project.map((r) => [r.id, r.tool, r.pattern, r.decision, r.source])).toEqual([
      ["project:0", "read_file", "**", "allow", "project"],
      ["project:1", "shell", "rm -rf*", "deny", "project"],
      ["project:2", "browser", "*", "ask", "project"],
    ]);
    expect(listed.session).toEqual([everything, noRm]);
    expect(listed.session.map((r) => r.source)).toEqual(["manual", "always"]);
    expect(Date.parse(noRm.createdAt!)).toBeGreaterThan(Date.parse(everything.createdAt!));
  });

  it("decides inside a transaction it is given", async () => {
    await app.parley.db.$transaction(async (tx) => {
      await permissions.addRule(tx, sessionId, { tool: "shell", pattern: "npm test*", decision: "allow" }, "always");
      expect((await permissions.decide(sessionId, shellCall("npm test -- a"), tx)).decision).toBe("allow");
    });
  });

  it("orders rules added in the same millisecond by when they were added", async () => {
    const rules = [];
    for (let i = 0; i < 20; i++) rules.push(await add({ tool: "shell", pattern: `cmd${i}*`, decision: i % 2 ? "allow" : "deny" }));
    expect((await permissions.list(sessionId)).session.map((r) => r.id)).toEqual(rules.map((r) => r.id));
  });

  it("moves a rule added again to the end instead of keeping two", async () => {
    const first = await add({ tool: "shell", pattern: "npm*", decision: "allow" });
    await add({ tool: "shell", pattern: "npm publish*", decision: "deny" });
    expect((await permissions.decide(sessionId, shellCall("npm publish"))).decision).toBe("deny");
    const again = await add({ tool: "shell", pattern: "npm*", decision: "allow" }, "always");
    expect((await permissions.list(sessionId)).session.map((r) => [r.pattern, r.source])).toEqual([
      ["npm publish*", "manual"],
      ["npm*", "always"],
    ]);
    expect(again.id).not.toBe(first.id);
    expect((await permissions.decide(sessionId, shellCall("npm publish"))).decision).toBe("allow");
  });

  it("flags rules of tools the catalogue does not have, and keeps them", async () => {
    const rule = await add({ tool: "browser", pattern: "https://*", decision: "allow" });
    expect(rule.unknownTool).toBe(true);
    expect((await add({ tool: "shell", pattern: "ls*", decision: "allow" })).unknownTool).toBe(false);
    const listed = await permissions.list(sessionId);
    expect(listed.project.map((r) => r.unknownTool)).toEqual([false, false, true]);
    expect(listed.session.map((r) => [r.tool, r.unknownTool])).toEqual([
      ["browser", true],
      ["shell", false],
    ]);
  });

  it("refuses an invalid pattern with a 400 naming it, and stores nothing", async () => {
    await expect(add({ tool: "shell", pattern: "echo [x", decision: "allow" })).rejects.toMatchObject({ code: "bad_request", message: expect.stringContaining('"echo [x"') });
    await expect(add({ tool: "shell", pattern: "", decision: "allow" })).rejects.toMatchObject({ code: "bad_request" });
    await expect(add({ tool: "shell", pattern: "ls*", decision: "maybe" as never })).rejects.toMatchObject({ code: "bad_request", message: expect.stringContaining("decision") });
    expect((await permissions.list(sessionId)).session).toEqual([]);
  });

  it("refuses a rule for a session that does not exist", async () => {
    await expect(add({ tool: "shell", pattern: "ls*", decision: "allow" }, "manual", "nope")).rejects.toMatchObject({ code: "not_found:session" });
  });

  it("holds at most MAX_SESSION_RULES rules per session", async () => {
    await app.parley.db.permissionRule.createMany({
      data: Array.from({ length: MAX_SESSION_RULES }, (_, i) => ({ id: `r${i}`, sessionId, tool: "shell", pattern: `c${i}`, decision: "allow", source: "manual" })),
    });
    await expect(add({ tool: "shell", pattern: "one more", decision: "allow" })).rejects.toMatchObject({ code: "bad_request", message: expect.stringContaining(`${MAX_SESSION_RULES}`) });
    // Adding one it already has only moves it.
    await expect(add({ tool: "shell", pattern: "c0", decision: "allow" })).resolves.toMatchObject({ pattern: "c0" });
  });

  it("removes a session's rule; an id of another session's rule or of none is not found and removes nothing", async () => {
    const mine = await add({ tool: "shell", pattern: "ls*", decision: "allow" });
    const theirs = await add({ tool: "shell", pattern: "ls*", decision: "allow" }, "manual", otherSessionId);
    await expect(permissions.removeRule(sessionId, theirs.id)).rejects.toMatchObject({ code: "not_found:rule", status: 404 });
    await expect(permissions.removeRule(sessionId, "no-such-rule")).rejects.toMatchObject({ code: "not_found:rule" });
    await expect(permissions.removeRule(sessionId, "project:0")).rejects.toMatchObject({ code: "bad_request", message: expect.stringContaining("project default") });
    expect((await permissions.list(otherSessionId)).session).toEqual([theirs]);
    await permissions.removeRule(sessionId, mine.id);
    expect((await permissions.list(sessionId)).session).toEqual([]);
    await expect(permissions.removeRule(sessionId, mine.id)).rejects.toMatchObject({ code: "not_found:rule" });
  });

  it("says whether a rule covers an approval", () => {
    expect(permissions.covers({ tool: "shell", pattern: "npm test*", decision: "allow" }, shellCall("npm test -- --watch"))).toBe(true);
    expect(permissions.covers({ tool: "shell", pattern: "npm test*", decision: "allow" }, shellCall("npm test; rm -rf ~"))).toBe(false);
    expect(permissions.covers({ tool: "shell", pattern: "npm test*", decision: "allow" }, shellCall("npm run build"))).toBe(false);
    expect(permissions.covers({ tool: "write_file", pattern: "*", decision: "allow" }, shellCall("ls"))).toBe(false);
  });

  it("announces a change to the session's tabs as rules.updated", () => {
    const seen: unknown[] = [];
    app.parley.events.on("rules.updated", (e) => seen.push(e));
    permissions.announce(sessionId);
    expect(seen).toEqual([{ sessionId }]);
  });

  it("is part of Parley, with no project rules and no tools unless given", async () => {
    expect(await app.parley.permissions.list(sessionId)).toEqual({ builtin: [], project: [], session: [] });
    const rule = await app.parley.db.$transaction((tx) => app.parley.permissions.addRule(tx, sessionId, { tool: "shell", pattern: "ls*", decision: "allow" }, "manual"));
    expect(rule.unknownTool).toBe(true);
  });
});
