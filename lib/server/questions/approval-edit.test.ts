import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_POLICY } from "../../protocol/policy";
import type { ApprovalSpec } from "../../protocol/permissions";
import { QuestionSpecSchema, type Question, type QuestionSpecInput } from "../../protocol/question";
import { openFixtureDb, type FixtureDb } from "../../../tests/helpers/fixture-db";
import { createTestDatabase, type TestDatabase } from "../../../tests/helpers/test-db";
import { findTool, toolCatalogue } from "../../../workers/tools";
import { inputJsonSchema, readEditedCall } from "../../../workers/tools/edited-call";
import { DomainEvents } from "../events";
import { createCommandService } from "../ledger/command-ledger";
import { createPermissionService } from "../permissions/permission-service";
import { createDb, type Db } from "../store/db/client";
import { createQuestionService, type QuestionService } from "./question-service";

// "Edit and allow" over the real store and rules, on whichever engine the suite runs (test-pg.mjs: PostgreSQL).
let testDb: TestDatabase;
let db: Db;
let fixture: FixtureDb;
let questions: QuestionService;
let delivered: Question[];

const shellApproval = (command: string): ApprovalSpec => ({
  tool: "shell",
  input: { command },
  preview: { type: "command", command, cwd: "." },
  subject: command,
  subjectKind: "command",
  cwd: ".",
  always: [{ pattern: command, cwd: ".", label: `\`${command}\` exactly` }],
  dangerous: true,
  fallback: "deny",
  edit: { schema: inputJsonSchema(findTool("shell")!)!, reader: "catalogue" },
});

let n = 0;
function askApproval(approval: ApprovalSpec, over: Partial<QuestionSpecInput> = {}): Promise<Question> {
  n++;
  const spec = QuestionSpecSchema.parse({ kind: "approval", prompt: `Run ${approval.subject}?`, timeoutMs: 60_000, approval, ...over });
  return questions.create({ id: `q${n}`, run: { id: "r1", sessionId: "s1", functionName: "build", policy: { ...DEFAULT_POLICY, maxRequests: 1000 } }, seq: n, digest: `d${n}`, spec });
}

beforeEach(async () => {
  testDb = await createTestDatabase("parley_edit");
  db = await createDb(testDb.url);
  fixture = await openFixtureDb(testDb.url);
  const events = new DomainEvents();
  const judge = createPermissionService({ db, events, projectRules: [{ tool: "shell", pattern: "rm *", decision: "deny" }], tools: toolCatalogue });
  delivered = [];
  questions = createQuestionService({ db, events, commands: createCommandService({ db }), judge, editedCalls: readEditedCall, settled: (q) => delivered.push(q) });
  await fixture.chatSession.create({ data: { id: "s1", title: "t", ownerId: "alice" } });
  await fixture.sessionMember.create({ data: { sessionId: "s1", userId: "bob", addedBy: "alice" } });
  await fixture.run.create({ data: { id: "r1", sessionId: "s1", functionName: "build", input: "null", status: "running" } });
});

afterEach(async () => {
  questions.dispose();
  await fixture.$disconnect();
  await db.close();
  await testDb.drop();
});

const pending = async (id: string) => expect((await questions.getQuestion({ id })).status).toBe("pending");

describe("Edit and allow", () => {
  it("allows once with the edited input: stored beside the original, handed to the run, in the receipt", async () => {
    const q = await askApproval(shellApproval("npm test"));
    const receipt = await questions.reply({ id: q.id, value: "once", input: { command: "npm test -- --run" }, by: "socket", person: "bob" });
    expect(receipt).toMatchObject({ outcome: "answered", question: { editedInput: { command: "npm test -- --run" }, closedByUser: "bob" } });
    const stored = await questions.getQuestion({ id: q.id });
    expect(stored).toMatchObject({ status: "answered", answer: "once", editedInput: { command: "npm test -- --run" }, approval: { input: { command: "npm test" } } });
    expect(delivered.map((d) => d.editedInput)).toEqual([{ command: "npm test -- --run" }]);
  });

  it("stores the input as the tool reads it (normalised), and nothing when the edit changed nothing", async () => {
    const a = await askApproval(shellApproval("npm test"));
    await questions.reply({ id: a.id, value: "once", input: { command: "npm test", cwd: "./web/" }, by: "rest" });
    expect((await questions.getQuestion({ id: a.id })).editedInput).toEqual({ command: "npm test", cwd: "web" });
    const b = await askApproval(shellApproval("npm test"));
    await questions.reply({ id: b.id, value: "once", input: { command: "npm test" }, by: "rest" });
    expect((await questions.getQuestion({ id: b.id })).editedInput).toBeNull();
  });

  it("refuses an edit its tool's schema refuses (422 invalid_edit, naming why) and leaves the question pending", async () => {
    const q = await askApproval(shellApproval("npm test"));
    await expect(questions.reply({ id: q.id, value: "once", input: { command: "npm test", extra: 1 }, by: "rest" })).rejects.toMatchObject({
      code: "invalid_edit",
      status: 422,
      message: expect.stringContaining("additional properties"),
    });
    await expect(questions.reply({ id: q.id, value: "once", input: { command: 42 }, by: "rest" })).rejects.toMatchObject({ code: "invalid_edit" });
    await pending(q.id);
    expect(await fixture.command.count()).toBe(0);
  });

  it("refuses an edit a deny rule denies (403 edit_denied): the person may not edit past the project's rules", async () => {
    const q = await askApproval(shellApproval("npm test"));
    await expect(questions.reply({ id: q.id, value: "once", input: { command: "rm -rf build" }, by: "rest" })).rejects.toMatchObject({
      code: "edit_denied",
      status: 403,
      message: expect.stringContaining("rm *"),
    });
    await pending(q.id);
    expect(await questions.reply({ id: q.id, value: "once", by: "rest" })).toMatchObject({ outcome: "answered", question: { editedInput: null } });
  });

  it("an edited call is allowed once only, by one person, and only where the approval offers an edit", async () => {
    const q = await askApproval(shellApproval("npm test"));
    await expect(questions.reply({ id: q.id, value: "always", input: { command: "npm test -- --run" }, by: "rest" })).rejects.toMatchObject({ code: "invalid_edit" });
    await pending(q.id);
    const several = await askApproval(shellApproval("npm run deploy"), { approvals: { required: 2, from: ["alice", "bob"] } });
    await expect(questions.reply({ id: several.id, value: "once", input: { command: "npm run deploy:staging" }, by: "rest", person: "bob" })).rejects.toMatchObject({
      code: "invalid_edit",
      message: expect.stringContaining("needs 2 people"),
    });
    expect(await fixture.questionVote.count()).toBe(0);
    const fixed = await askApproval({ ...shellApproval("make"), edit: null });
    await expect(questions.reply({ id: fixed.id, value: "once", input: { command: "make all" }, by: "rest" })).rejects.toMatchObject({ code: "invalid_edit" });
    const confirm = await questions.create({
      id: "c1",
      run: { id: "r1", sessionId: "s1", functionName: "build", policy: DEFAULT_POLICY },
      seq: 99,
      digest: "dc",
      spec: QuestionSpecSchema.parse({ kind: "confirm", prompt: "Go?", timeoutMs: 60_000 }),
    });
    await expect(questions.reply({ id: confirm.id, value: true, input: { a: 1 }, by: "rest" })).rejects.toMatchObject({ code: "invalid_edit" });
  });

  it("a spelling of a denied command is denied as an edit too: repeated blanks, quotes, a path to the program", async () => {
    const q = await askApproval(shellApproval("npm test"));
    for (const command of ["rm  -rf build", "r''m -rf build", "command rm -r -f build", "env rm -fr build", "npm test; rm -rf build"]) {
      await expect(questions.reply({ id: q.id, value: "once", input: { command }, by: "rest" }), command).rejects.toMatchObject({ code: "edit_denied" });
    }
    await pending(q.id);
  });

  describe("a tool from outside (ask API, MCP request_approval)", () => {
    const schema = {
      type: "object",
      properties: { file_path: { type: "string" }, target: { type: "string", format: "path" }, content: { type: "string" } },
      required: ["file_path"],
      additionalProperties: false,
    };
    const outside = (input: Record<string, unknown>, roots?: string[]): ApprovalSpec => ({
      tool: "Write",
      input,
      preview: { type: "text", text: JSON.stringify(input) },
      subject: String(input.file_path),
      subjectKind: "path",
      cwd: null,
      always: [],
      dangerous: true,
      fallback: "deny",
      edit: { schema, reader: "outside", ...(roots && { roots }) },
    });
    const edit = (id: string, input: Record<string, unknown>) => questions.reply({ id, value: "once", input, by: "rest" });

    it("refuses a path that climbs out, is absolute without a root, holds a NUL or a control character, and a key the schema forbids (422, still pending)", async () => {
      const q = await askApproval(outside({ file_path: "src/a.ts", content: "x" }));
      const refused = [
        [{ file_path: "../x" }, "climbs out"],
        [{ file_path: "src/../../x" }, "climbs out"],
        [{ file_path: "/etc/passwd" }, "declared no root"],
        [{ file_path: "~/.ssh/id_rsa" }, "home folder"],
        [{ file_path: "C:\\Windows\\x" }, "declared no root"],
        [{ file_path: "src/a\u0000.ts" }, "control character"],
        [{ file_path: "src/a.ts\n" }, "control character"],
        [{ file_path: "src/a.ts", target: "../../etc" }, "climbs out"],
        [{ file_path: "src/a.ts", extra: 1 }, "additional properties"],
      ] as const;
      for (const [input, why] of refused) {
        await expect(edit(q.id, input), JSON.stringify(input)).rejects.toMatchObject({ code: "invalid_edit", status: 422, message: expect.stringContaining(why) });
      }
      await pending(q.id);
      expect(await edit(q.id, { file_path: "src/b/../b.ts", content: "y" })).toMatchObject({ outcome: "answered", question: { editedInput: { file_path: "src/b/../b.ts", content: "y" } } });
    });

    it("an absolute path is allowed under a root the asker declared, and a path left as the agent asked it passes", async () => {
      const q = await askApproval(outside({ file_path: "/home/me/proj/a.ts", content: "x" }, ["/home/me/proj"]));
      await expect(edit(q.id, { file_path: "/home/me/proj/../other/a.ts" })).rejects.toMatchObject({ code: "invalid_edit", message: expect.stringContaining("outside the asker's roots") });
      await expect(edit(q.id, { file_path: "/home/me/project2/a.ts" })).rejects.toMatchObject({ code: "invalid_edit" });
      expect(await edit(q.id, { file_path: "/home/me/proj/src/b.ts", content: "x" })).toMatchObject({ outcome: "answered" });
      const unchanged = await askApproval(outside({ file_path: "/tmp/agent.ts", content: "x" }));
      expect(await edit(unchanged.id, { file_path: "/tmp/agent.ts", content: "edited" })).toMatchObject({ outcome: "answered", question: { editedInput: { content: "edited" } } });
    });
  });

  it("the chain on a command's card is the server's to name: one a worker sent is dropped", async () => {
    const sent = shellApproval("ls");
    const q = await askApproval({ ...sent, preview: { type: "command", command: "ls", chain: ["write_file nothing-to-see"] } });
    expect(q.approval!.preview).toEqual({ type: "command", command: "ls" });
  });

  it("a tool schema the server does not check is asked without an edit", async () => {
    const q = await askApproval({ ...shellApproval("deploy"), tool: "deploy", edit: { schema: { type: "object", $id: "x" }, reader: "outside" } });
    expect(q.approval!.edit).toBeNull();
  });

  it("the same commandId repeated with the edit returns the first receipt; with another edit it conflicts", async () => {
    const q = await askApproval(shellApproval("npm test"));
    const first = await questions.reply({ id: q.id, value: "once", input: { command: "npm test -- a" }, by: "rest", commandId: "c-edit" });
    expect(await questions.reply({ id: q.id, value: "once", input: { command: "npm test -- a" }, by: "rest", commandId: "c-edit" })).toEqual(first);
    await expect(questions.reply({ id: q.id, value: "once", input: { command: "npm test -- b" }, by: "rest", commandId: "c-edit" })).rejects.toMatchObject({ code: "command_conflict" });
  });
});
