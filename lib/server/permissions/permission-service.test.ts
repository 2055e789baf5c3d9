import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { statement } from "../store/typed-sql";
import type { ApprovalSpec, PermissionRuleInput } from "../../protocol/permissions";
import { startFakeParley, type FakeParley } from "../../../tests/helpers/fakes";
import { matchWork } from "./glob-engine";
import { createPermissionService, MAX_SESSION_RULES, type PermissionService } from "./permission-service";
import { MAX_SESSION_RULE_STATES, patternCost } from "./rule-match";

const TOOLS = [
  { name: "shell", description: "Runs a command.", dangerous: true, subjectKind: "command" as const },
  { name: "write_file", description: "Writes a file.", dangerous: true, subjectKind: "path" as const },
  { name: "read_file", description: "Reads a file.", dangerous: false, subjectKind: "path" as const },
];
const PROJECT: PermissionRuleInput[] = [
  { tool: "read_file", pattern: "**", decision: "allow" },
  { tool: "shell", pattern: "rm -rf*", decision: "deny" },
  { tool: "browser", pattern: "*", decision: "ask" },
];

function shellCall(command: string, cwd = "."): ApprovalSpec {
  return {
    tool: "shell",
    input: { command },
    preview: { type: "command", command },
    subject: command,
    subjectKind: "command",
    cwd,
    always: [],
    dangerous: true,
    fallback: "deny",
  };
}

function fileCall(tool: "write_file" | "read_file", path: string): ApprovalSpec {
  return { tool, input: { path }, preview: { type: "text", text: path }, subject: path, subjectKind: "path", cwd: null, always: [], dangerous: tool === "write_file", fallback: "deny" };
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

const allRuleIds = statement((q, p: { sessionId: string }) => q.selectFrom("PermissionRule").select("id").where("sessionId", "=", p.sessionId));

const add = (rule: PermissionRuleInput, source: "always" | "manual" = "manual", session = sessionId) => permissions.addRule(session, rule, source);

describe("the permission service", () => {
  it("lets a matching deny rule beat every ask and allow rule, and an ask rule every allow rule, whatever their age or source", async () => {
    expect(await permissions.decide(sessionId, shellCall("rm -rf /tmp/x"))).toMatchObject({ decision: "deny", rule: { id: "project:1", source: "project", sessionId: null } });
    expect(await permissions.decide(sessionId, shellCall("npm test"))).toEqual({ decision: "ask", rule: null });

    // A newer session allow rule does not beat the project's older deny.
    const everything = await add({ tool: "shell", pattern: "*", decision: "allow" });
    expect(await permissions.decide(sessionId, shellCall("rm -rf /tmp/x"))).toMatchObject({ decision: "deny", rule: { id: "project:1" } });
    expect(await permissions.decide(sessionId, shellCall("ls"))).toEqual({ decision: "allow", rule: everything });
    // An ask rule beats the allow rule, older or newer.
    const askGit = await add({ tool: "shell", pattern: "git push*", decision: "ask" }, "always");
    const pushes = await add({ tool: "shell", pattern: "git push *", decision: "allow" });
    expect(await permissions.decide(sessionId, shellCall("git push origin main"))).toEqual({ decision: "ask", rule: askGit });
    // A deny rule beats the ask rule and both allow rules.
    const noForce = await add({ tool: "shell", pattern: "git push*--force*", decision: "deny" });
    expect(await permissions.decide(sessionId, shellCall("git push origin main --force"))).toEqual({ decision: "deny", rule: noForce });

    // The builtin rules beat a session's allow rule for a path tool.
    await add({ tool: "write_file", pattern: "**", decision: "allow" });
    expect(await permissions.decide(sessionId, fileCall("write_file", ".git/hooks/pre-commit"))).toMatchObject({ decision: "deny", rule: { source: "builtin", pattern: "**/.git/**" } });
    expect(await permissions.decide(sessionId, fileCall("write_file", "README.md"))).toMatchObject({ decision: "allow" });
    expect(await permissions.decide(sessionId, fileCall("read_file", "config/.ENV.local"))).toMatchObject({ decision: "deny", rule: { source: "builtin", pattern: "**/.env*" } });

    // Another session has only the builtin and project rules.
    expect((await permissions.decide(otherSessionId, shellCall("ls"))).decision).toBe("ask");

    const listed = await permissions.list(sessionId);
    expect(listed.builtin.map((r) => [r.id, r.tool, r.pattern, r.decision, r.source])).toEqual([
      ["builtin:0", "write_file", "**/.git/**", "deny", "builtin"],
      ["builtin:1", "write_file", "**/.env*", "deny", "builtin"],
      ["builtin:2", "read_file", "**/.git/**", "deny", "builtin"],
      ["builtin:3", "read_file", "**/.env*", "deny", "builtin"],
    ]);
    expect(listed.project.map((r) => [r.id, r.tool, r.pattern, r.decision, r.source])).toEqual([
      ["project:0", "read_file", "**", "allow", "project"],
      ["project:1", "shell", "rm -rf*", "deny", "project"],
      ["project:2", "browser", "*", "ask", "project"],
    ]);
    expect(listed.session.slice(0, 4)).toEqual([everything, askGit, pushes, noForce]);
    expect(listed.session.map((r) => r.source).slice(0, 2)).toEqual(["manual", "always"]);
  });

  it("matches a rule with a working folder only in exactly that folder", async () => {
    const here = await add({ tool: "shell", pattern: "npm test", decision: "allow", cwd: "./packages/app/" }, "always");
    expect(here.cwd).toBe("packages/app");
    expect((await permissions.decide(sessionId, shellCall("npm test", "packages/app"))).decision).toBe("allow");
    expect((await permissions.decide(sessionId, shellCall("npm test", "."))).decision).toBe("ask");
    expect((await permissions.decide(sessionId, shellCall("npm test", "packages"))).decision).toBe("ask");
    expect((await permissions.decide(sessionId, shellCall("npm test", "packages/app/sub"))).decision).toBe("ask");
    // The same rule in another folder is another rule; without a folder it matches in every one.
    const top = await add({ tool: "shell", pattern: "npm test", decision: "allow", cwd: "." }, "always");
    expect((await permissions.list(sessionId)).session).toEqual([here, top]);
    await add({ tool: "shell", pattern: "make *", decision: "allow" });
    expect((await permissions.decide(sessionId, shellCall("make build", "anywhere/at/all"))).decision).toBe("allow");
  });

  it("refuses an allow rule for a command that is neither an exact command nor words then *", async () => {
    await expect(add({ tool: "shell", pattern: "git * status", decision: "allow" })).rejects.toMatchObject({ code: "bad_request", message: expect.stringContaining("git * status") });
    await expect(add({ tool: "shell", pattern: "npm test; *", decision: "allow" })).rejects.toMatchObject({ code: "bad_request" });
    // Deny and ask rules keep text matching: * anywhere.
    await expect(add({ tool: "shell", pattern: "git * --force", decision: "deny" })).resolves.toMatchObject({ decision: "deny" });
    expect(() => createPermissionService({ db: app.parley.db, events: app.parley.events, projectRules: [{ tool: "shell", pattern: "git * status", decision: "allow" }], tools: TOOLS })).toThrow(
      /project permission rule 0 \(shell\).*git \* status/,
    );
  });

  it("decides inside a transaction it is given", async () => {
    await app.parley.db.exec.transaction(async (tx) => {
      await permissions.addRule(sessionId, { tool: "shell", pattern: "npm test*", decision: "allow" }, "always", tx);
      expect((await permissions.decide(sessionId, shellCall("npm test -- a"), tx)).decision).toBe("allow");
    });
  });

  it("orders rules added in the same millisecond by when they were added", async () => {
    const rules = [];
    for (let i = 0; i < 20; i++) rules.push(await add({ tool: "shell", pattern: `cmd${i}*`, decision: i % 2 ? "allow" : "deny" }));
    expect((await permissions.list(sessionId)).session.map((r) => r.id)).toEqual(rules.map((r) => r.id));
  });

  it("moves a rule added again to the end instead of keeping two; a deny rule still beats it", async () => {
    const first = await add({ tool: "shell", pattern: "npm*", decision: "allow" });
    await add({ tool: "shell", pattern: "npm publish*", decision: "deny" });
    expect((await permissions.decide(sessionId, shellCall("npm publish"))).decision).toBe("deny");
    const again = await add({ tool: "shell", pattern: "npm*", decision: "allow" }, "always");
    expect((await permissions.list(sessionId)).session.map((r) => [r.pattern, r.source])).toEqual([
      ["npm publish*", "manual"],
      ["npm*", "always"],
    ]);
    expect(again.id).not.toBe(first.id);
    expect((await permissions.decide(sessionId, shellCall("npm publish"))).decision).toBe("deny");
    expect((await permissions.decide(sessionId, shellCall("npm install"))).decision).toBe("allow");
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
    await app.fixture.permissionRule.createMany({
      data: Array.from({ length: MAX_SESSION_RULES }, (_, i) => ({ id: `r${i}`, sessionId, tool: "shell", pattern: `c${i}`, decision: "allow", source: "manual" })),
    });
    await expect(add({ tool: "shell", pattern: "one more", decision: "allow" })).rejects.toMatchObject({ code: "bad_request", message: expect.stringContaining(`${MAX_SESSION_RULES}`) });
    // Adding one it already has only moves it.
    await expect(add({ tool: "shell", pattern: "c0", decision: "allow" })).resolves.toMatchObject({ pattern: "c0" });
  });

  it("holds at most MAX_SESSION_RULE_STATES matching states of rules per session: what keeps a call's matching fast", async () => {
    // 16 path rules of about 250 states each fill the budget; a 17th is refused, a small one still fits.
    const heavy = (i: number) => `{a,b}/**/${"*a".repeat(56)}*b${i}`.slice(0, 200);
    expect(patternCost(heavy(0))).toBeGreaterThan(MAX_SESSION_RULE_STATES / 17);
    let added = 0;
    for (; added < 40; added++) {
      const refused = await add({ tool: "read_file", pattern: heavy(added), decision: "deny" }).catch((err: unknown) => err);
      if (refused instanceof Error) {
        expect(refused).toMatchObject({ code: "bad_request", message: expect.stringContaining(`at most ${MAX_SESSION_RULE_STATES}`) });
        break;
      }
    }
    expect(added).toBe(Math.floor(MAX_SESSION_RULE_STATES / patternCost(heavy(0))));
    await expect(add({ tool: "read_file", pattern: "a", decision: "deny" })).resolves.toMatchObject({ pattern: "a" });
    // The call's decision over them all stays well inside a few milliseconds of work: one pass.
    const before = matchWork.steps;
    expect(await permissions.decide(sessionId, fileCall("read_file", `a/${"a".repeat(998)}`))).toMatchObject({ decision: "allow" });
    expect(matchWork.steps - before).toBeLessThan(1_000 * (MAX_SESSION_RULE_STATES / 32) * 4);
  });

  it("removes a session's rule; an id of another session's rule or of none is not found and removes nothing", async () => {
    const mine = await add({ tool: "shell", pattern: "ls*", decision: "allow" });
    const theirs = await add({ tool: "shell", pattern: "ls*", decision: "allow" }, "manual", otherSessionId);
    await expect(permissions.removeRule(sessionId, theirs.id)).rejects.toMatchObject({ code: "not_found:rule", status: 404 });
    await expect(permissions.removeRule(sessionId, "no-such-rule")).rejects.toMatchObject({ code: "not_found:rule" });
    await expect(permissions.removeRule(sessionId, "project:0")).rejects.toMatchObject({ code: "bad_request", message: expect.stringContaining("project default") });
    await expect(permissions.removeRule(sessionId, "builtin:0")).rejects.toMatchObject({ code: "bad_request", message: expect.stringContaining("built into Parley") });
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
    expect(permissions.covers({ tool: "shell", pattern: "npm test", decision: "allow", cwd: "." }, shellCall("npm test", "."))).toBe(true);
    expect(permissions.covers({ tool: "shell", pattern: "npm test", decision: "allow", cwd: "." }, shellCall("npm test", "sub"))).toBe(false);
  });

  it("offers a wider Allow always option only when no deny or ask rule would stop every call it allows", async () => {
    const withOptions = (command: string, wide: string) => ({
      ...shellCall(command),
      always: [
        { pattern: command, cwd: ".", label: "exactly" },
        { pattern: wide, cwd: ".", label: "wider" },
      ],
    });
    expect((await permissions.offered(sessionId, withOptions("git push origin main", "git push *"))).map((o) => o.pattern)).toEqual(["git push origin main", "git push *"]);
    await add({ tool: "shell", pattern: "git push*", decision: "ask" });
    expect((await permissions.offered(sessionId, withOptions("git push origin main", "git push *"))).map((o) => o.pattern)).toEqual(["git push origin main"]);
    // Another session's rules do not count; a rule stopping only some of the calls does not either.
    expect(await permissions.offered(otherSessionId, withOptions("git push origin main", "git push *"))).toHaveLength(2);
    expect(await permissions.offered(sessionId, withOptions("rm a", "rm *"))).toHaveLength(2);
    // An option that does not allow the call itself is never offered (a function offering something else than it says).
    expect((await permissions.offered(sessionId, withOptions("make build", "npm test *"))).map((o) => o.pattern)).toEqual(["make build"]);
    expect(await permissions.offered(sessionId, { ...shellCall("make build"), always: [{ pattern: "*", cwd: "elsewhere", label: "exactly" }] })).toEqual([]);
  });

  it("lets no allow rule cover a command the system does not bound (not sandboxed, or with network), and offers it no Allow always; deny rules still apply", async () => {
    await add({ tool: "shell", pattern: "npm test *", decision: "allow" });
    const bound = (command: string, b: "sandboxed" | "network" | "unsandboxed" | "opted-out"): ApprovalSpec => ({
      ...shellCall(command),
      preview: { type: "command", command, bound: b },
      always: [{ pattern: command, cwd: ".", label: "exactly" }],
    });
    expect((await permissions.decide(sessionId, bound("npm test", "sandboxed"))).decision).toBe("allow");
    expect((await permissions.decide(sessionId, bound("npm test", "opted-out"))).decision).toBe("allow");
    expect((await permissions.decide(sessionId, bound("npm test", "network"))).decision).toBe("ask");
    expect((await permissions.decide(sessionId, bound("npm test", "unsandboxed"))).decision).toBe("ask");
    expect(await permissions.offered(sessionId, bound("npm test", "network"))).toEqual([]);
    expect(await permissions.offered(sessionId, bound("npm test", "unsandboxed"))).toEqual([]);
    expect(await permissions.offered(sessionId, bound("npm test", "sandboxed"))).toHaveLength(1);
    expect((await permissions.decide(sessionId, bound("rm -rf /", "unsandboxed"))).decision).toBe("deny");
    // An outside tool's command (no bound: Parley does not run it) is read by the rules as before.
    expect((await permissions.decide(sessionId, shellCall("npm test"))).decision).toBe("allow");
  });

  it("a grant that ends applies until its time and no longer; the list names who made each rule and when it ends", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: new Date("2026-12-07T10:00:00Z") });
    try {
      const hour = await permissions.addRule(sessionId, { tool: "shell", pattern: "npm test", decision: "allow" }, "always", undefined, { by: "bob", until: new Date("2026-12-07T11:00:00Z") });
      const forGood = await permissions.addRule(sessionId, { tool: "shell", pattern: "ls", decision: "allow" }, "manual", undefined, { by: "alice" });
      expect(hour).toMatchObject({ createdBy: "bob", expiresAt: "2026-12-07T11:00:00.000Z" });
      expect(forGood).toMatchObject({ createdBy: "alice", expiresAt: null });
      expect(await permissions.decide(sessionId, shellCall("npm test"))).toMatchObject({ decision: "allow", rule: { id: hour.id } });

      vi.setSystemTime(new Date("2026-12-07T10:59:59.999Z"));
      expect(await permissions.decide(sessionId, shellCall("npm test"))).toMatchObject({ decision: "allow" });
      vi.setSystemTime(new Date("2026-12-07T11:00:00Z"));
      expect(await permissions.decide(sessionId, shellCall("npm test"))).toEqual({ decision: "ask", rule: null });
      expect((await permissions.list(sessionId)).session.map((r) => r.id)).toEqual([forGood.id]);
      // Adding a rule clears the ended ones from the table.
      await add({ tool: "shell", pattern: "pwd", decision: "allow" });
      expect(await app.parley.db.exec.rows(allRuleIds, { sessionId })).not.toContainEqual({ id: hour.id });
    } finally {
      vi.useRealTimers();
    }
  });

  it("names the rules that let the agent change the code a test runner or build runs (the chain), and none for other commands", async () => {
    expect(await permissions.chain(sessionId, shellCall("npm test"))).toEqual([]);
    await add({ tool: "write_file", pattern: "src/**", decision: "allow" }, "always");
    await add({ tool: "write_file", pattern: "secrets/**", decision: "deny" });
    await add({ tool: "read_file", pattern: "**", decision: "allow" });
    await add({ tool: "shell", pattern: "ls", decision: "allow" });
    expect(await permissions.chain(sessionId, shellCall("npm test"))).toEqual(["write_file src/**"]);
    expect(await permissions.chain(sessionId, shellCall("cd web && make build"))).toEqual(["write_file src/**"]);
    expect(await permissions.chain(sessionId, shellCall("node --test"))).toEqual(["write_file src/**"]);
    expect(await permissions.chain(sessionId, shellCall("ls -la"))).toEqual([]);
    expect(await permissions.chain(sessionId, fileCall("write_file", "src/a.ts"))).toEqual([]);
    expect(await permissions.chain(otherSessionId, shellCall("npm test"))).toEqual([]);
  });

  it("announces a change to the session's tabs as rules.updated", () => {
    const seen: unknown[] = [];
    app.parley.events.on("rules.updated", (e) => seen.push(e));
    permissions.announce(sessionId);
    expect(seen).toEqual([{ sessionId }]);
  });

  it("is part of Parley, with no project rules and no tools unless given", async () => {
    expect(await app.parley.permissions.list(sessionId)).toEqual({ builtin: [], project: [], session: [] });
    const rule = await app.parley.permissions.addRule(sessionId, { tool: "shell", pattern: "ls*", decision: "allow" }, "manual");
    expect(rule.unknownTool).toBe(true);
  });
});
