import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { startTestApp, waitFor, type TestApp } from "./helpers/test-app";

const root = path.resolve(import.meta.dirname, "..");
// The CLI runs as its own process: compiled (dist/cli.js) after `npm run build`, else through tsx, which is slower.
const CLI_TIMEOUT = 90_000;
let app: TestApp | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function parley(dir: string, ...args: string[]) {
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [path.join(root, "bin/parley.mjs"), ...args, "--database", `file:${path.join(dir, "test.db")}`]);
    return { code: 0, stdout };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe("the parley CLI", () => {
  it("inspects and answers a run while the server is down; the server applies the answer when it starts", { timeout: CLI_TIMEOUT }, async () => {
    app = await startTestApp();
    const session = await app.parley.sessions.createSession();
    const started = await app.parley.runs.startRun({ sessionId: session.id, functionName: "test.ask", input: { prompt: "Which region?", options: ["eu", "us"] } });
    const question = await waitFor(async () => (await app!.parley.questions.listPending())[0]);
    const dir = app.dir;
    await app.close({ keepData: true });
    app = undefined;

    const text = await parley(dir, "inspect", started.id);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("Which region?");
    expect(text.stdout).toContain(`npx parley send-input ${started.id} ${question.pendingId} --value-json '"eu"' --digest ${question.targetDigest}`);

    const json = JSON.parse((await parley(dir, "inspect", started.id, "--json")).stdout);
    expect(json.run).toMatchObject({ id: started.id, status: "waiting_input" });
    expect(json.pendingQuestions).toEqual([expect.objectContaining({ pendingId: question.pendingId, options: ["eu", "us"], replySchema: null })]);

    const bad = await parley(dir, "send-input", started.id, question.pendingId, "--value-json", '"mars"', "--wait", "0");
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("invalid_answer");

    const sent = await parley(dir, "send-input", started.id, question.pendingId, "--value-json", '"us"', "--digest", question.targetDigest, "--command-id", "cli-1", "--wait", "0", "--json");
    expect(sent.code).toBe(0);
    expect(JSON.parse(sent.stdout)).toMatchObject({ commandId: "cli-1", kind: "send_input", record_state: "durably_recorded", apply_state: "queued" });

    app = await startTestApp({ dir });
    const a = app;
    const done = await waitFor(async () => {
      const run = await a.parley.runs.getRun({ id: started.id });
      return run.status === "succeeded" && run;
    });
    expect(done.result).toEqual({ outcome: "answered", value: "us" });
    expect(await a.parley.commands.getReceipt({ commandId: "cli-1" })).toMatchObject({ apply_state: "applied", outcome: "answered" });

    // The same command again returns the first receipt, now applied.
    const again = JSON.parse((await parley(dir, "send-input", started.id, question.pendingId, "--value-json", '"us"', "--digest", question.targetDigest, "--command-id", "cli-1", "--json")).stdout);
    expect(again).toMatchObject({ apply_state: "applied", outcome: "answered" });
  });

  it("lists sessions and pending questions, and explains bad usage", { timeout: CLI_TIMEOUT }, async () => {
    app = await startTestApp();
    const session = await app.parley.sessions.createSession({ title: "Ops" });
    await app.parley.runs.startRun({ sessionId: session.id, functionName: "test.ask", input: { prompt: "Proceed?" } });
    await waitFor(async () => (await app!.parley.questions.listPending()).length === 1);
    expect((await parley(app.dir, "sessions")).stdout).toContain("[1 pending]  Ops");
    expect((await parley(app.dir, "pending")).stdout).toContain("question: Proceed?");
    const usage = await parley(app.dir, "send-input", "only-one-arg");
    expect(usage.code).toBe(2);
    expect((await parley(app.dir, "inspect", "nope")).stderr).toContain("not_found:run");
  });
});
