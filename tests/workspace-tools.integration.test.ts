import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Question } from "../lib/protocol/question";
import { SAMPLE_PROJECT } from "../lib/server/workspace/sample-project";
import { isFinalStatus, poll, restClient } from "./helpers/remote";
import { freePort, startServerProcess, TEST_TOKEN, type ServerProcess } from "./helpers/server-process";

/** The real tools over the production build: a server, its workers and the workspace they act in. */

const TIMEOUT = 60_000;
let dir: string;
let workspace: string;
let server: ServerProcess;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "parley-workspace-"));
  // Missing: the server makes it and seeds it with the sample project.
  workspace = path.join(dir, "ws");
  server = await startServerProcess({ port: await freePort(), databaseFile: path.join(dir, "p.db"), env: { PARLEY_WORKSPACE: workspace } });
}, TIMEOUT);
afterAll(async () => {
  await server?.kill("SIGTERM");
  rmSync(dir, { recursive: true, force: true });
});

const inWorkspace = (rel: string) => path.join(workspace, rel);

describe("real tools in PARLEY_WORKSPACE", () => {
  it("the server made the workspace and seeded it with the sample project", () => {
    for (const [rel, content] of Object.entries(SAMPLE_PROJECT)) expect(readFileSync(inWorkspace(rel), "utf8")).toBe(content);
  });

  it("update-docs writes the file whose approval was allowed, and not the one rejected", { timeout: TIMEOUT }, async () => {
    const rest = restClient(server.url);
    const session = await rest.ok(rest.post("/api/sessions", {}));
    const run = await rest.ok(rest.post(`/api/sessions/${session.id}/runs`, { function: "update-docs" }));
    const pending = await poll("both approvals", async () => {
      const qs = (await rest.get<Question[]>(`/api/questions?session_id=${session.id}`)).body;
      return qs.length === 2 ? qs : undefined;
    });
    const bySubject = new Map(pending.map((q) => [q.approval!.subject, q]));
    const guide = bySubject.get("docs/getting-started.md")!;
    const approvals = bySubject.get("docs/approvals.md")!;
    expect(guide.approval!.preview).toMatchObject({ type: "diff", diff: expect.stringMatching(/^--- \/dev\/null\n\+\+\+ b\/docs\/getting-started\.md\n/) });
    // Nothing is written before the answer.
    expect(existsSync(inWorkspace("docs/getting-started.md"))).toBe(false);
    await rest.ok(rest.post(`/api/questions/${approvals.id}/reject`, { message: "not yet" }));
    await rest.ok(rest.post(`/api/questions/${guide.id}/reply`, { value: "once" }));
    const done = await poll("the run's end", async () => {
      const r = (await rest.get(`/api/runs/${run.id}`)).body;
      return isFinalStatus(r.status) ? r : undefined;
    });
    expect(done).toMatchObject({ status: "succeeded", result: { written: ["docs/getting-started.md"], denied: [{ path: "docs/approvals.md", reason: "rejected", feedback: "not yet" }] } });
    expect(readFileSync(inWorkspace("docs/getting-started.md"), "utf8")).toBe("# Getting started\n\nRun `npx parley` and open the link it prints.\n");
    expect(existsSync(inWorkspace("docs/approvals.md"))).toBe(false);
  });

  it("run-tests runs the workspace's real tests in a worker once allowed", { timeout: TIMEOUT }, async () => {
    const rest = restClient(server.url);
    const session = await rest.ok(rest.post("/api/sessions", {}));
    const run = await rest.ok(rest.post(`/api/sessions/${session.id}/runs`, { function: "run-tests" }));
    const approval = await poll("the approval", async () => (await rest.get<Question[]>(`/api/questions?session_id=${session.id}`)).body[0]);
    expect(approval.approval).toMatchObject({ tool: "shell", subject: "npm test" });
    await rest.ok(rest.post(`/api/questions/${approval.id}/reply`, { value: "once" }));
    const done = await poll("the run's end", async () => {
      const r = (await rest.get(`/api/runs/${run.id}`)).body;
      return isFinalStatus(r.status) ? r : undefined;
    });
    expect(done).toMatchObject({ status: "succeeded", result: { ran: true, exitCode: 0, passed: 2, failed: 0 } });
  });

  it("run-tests allowed with an edited command runs the edited one in the live worker, and says so", { timeout: TIMEOUT }, async () => {
    const rest = restClient(server.url);
    const session = await rest.ok(rest.post("/api/sessions", {}));
    const run = await rest.ok(rest.post(`/api/sessions/${session.id}/runs`, { function: "run-tests" }));
    const approval = await poll("the approval", async () => (await rest.get<Question[]>(`/api/questions?session_id=${session.id}`)).body[0]);
    expect(approval.approval?.edit).toMatchObject({ reader: "catalogue" });
    await rest.ok(rest.post(`/api/questions/${approval.id}/reply`, { value: "once", input: { command: "echo edited-and-allowed" } }));
    const done = await poll("the run's end", async () => {
      const r = (await rest.get(`/api/runs/${run.id}`)).body;
      return isFinalStatus(r.status) ? r : undefined;
    });
    // The live worker got the edit with the settlement (no replay): the echo ran, not the tests.
    expect(done).toMatchObject({ status: "succeeded", attempts: 1, result: { ran: true, exitCode: 0, passed: null, failed: null } });
    const snapshot = (await rest.get<{ messages: Array<{ role: string; text: string }> }>(`/api/sessions/${session.id}`)).body;
    expect(snapshot.messages.find((m) => m.role === "agent")?.text).toContain("$ echo edited-and-allowed\nedited-and-allowed");
  });

  it("a command in the real worker gets none of the server's secrets, and a path out of the workspace never reaches a card", { timeout: TIMEOUT }, async () => {
    const rest = restClient(server.url);
    const session = await rest.ok(rest.post("/api/sessions", {}));
    const finished = async (id: string) =>
      poll("the run's end", async () => {
        const r = (await rest.get(`/api/runs/${id}`)).body;
        return isFinalStatus(r.status) ? r : undefined;
      });
    const env = await rest.ok(rest.post(`/api/sessions/${session.id}/runs`, { function: "test.tool", input: { tool: "shell", input: { command: "env" }, real: true } }));
    const approval = await poll("the approval", async () => (await rest.get<Question[]>(`/api/questions?session_id=${session.id}`)).body[0]);
    await rest.ok(rest.post(`/api/questions/${approval.id}/reply`, { value: "once" }));
    const output = (await finished(env.id)).result.result.output as string;
    expect(output).toMatch(/^TERM=dumb$/m);
    // The test server runs with PARLEY_TOKEN, DATABASE_URL and PARLEY_* settings: none reaches the command.
    expect(output).not.toMatch(/PARLEY_|DATABASE_URL|TOKEN/i);
    expect(output).not.toContain(TEST_TOKEN);
    expect(output).not.toContain(path.join(dir, "p.db"));

    const escape = await rest.ok(rest.post(`/api/sessions/${session.id}/runs`, { function: "test.tool", input: { tool: "write_file", input: { path: "../escaped.txt", content: "x" }, real: true } }));
    expect((await finished(escape.id)).result).toMatchObject({ refused: "ToolInputInvalid" });
    const outside = await rest.ok(
      rest.post(`/api/sessions/${session.id}/runs`, { function: "test.tool", input: { tool: "shell", input: { command: `touch ${path.join(dir, "escaped.txt")}` }, real: true } }),
    );
    expect((await finished(outside.id)).result).toMatchObject({ refused: "ToolInputInvalid", message: expect.stringContaining("commands run only inside the workspace") });
    expect(existsSync(path.join(dir, "escaped.txt"))).toBe(false);
    // Neither refused call asked anything: no approval in their journals.
    for (const run of [escape, outside]) expect((await rest.get(`/api/runs/${run.id}`)).body.journal.filter((e: { kind: string }) => e.kind === "question")).toEqual([]);
  });
});
