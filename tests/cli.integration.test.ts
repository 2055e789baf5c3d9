import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { authHeaders, freePort, startServerProcess, type ServerProcess } from "./helpers/server-process";
import { startTestApp, waitFor, type TestApp } from "./helpers/test-app";

const root = path.resolve(import.meta.dirname, "..");
// The CLI runs as its own process: compiled (dist/cli.js) after `npm run build`, else through tsx, which is slower.
const CLI_TIMEOUT = 90_000;
let app: TestApp | undefined;
let server: ServerProcess | undefined;
let tempDir: string | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
  await server?.kill();
  server = undefined;
  if (tempDir) rmSync(tempDir, { recursive: true, force: true });
  tempDir = undefined;
});

async function parley(dir: string, ...args: string[]) {
  try {
    const env = { ...process.env, PARLEY_URL: "" };
    const { stdout } = await promisify(execFile)(process.execPath, [path.join(root, "bin/parley.mjs"), ...args, "--database", `file:${path.join(dir, "test.db")}`], { env });
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

describe("the parley CLI and a running server", () => {
  it("sends commands through the server announced beside the database, prints its receipt, and queues once it is down", { timeout: 180_000 }, async () => {
    tempDir = mkdtempSync(path.join(tmpdir(), "parley-cli-server-"));
    const dir = tempDir;
    const databaseFile = path.join(dir, "test.db");
    const announcement = `${databaseFile}.server.json`;
    server = await startServerProcess({ port: await freePort(), databaseFile });
    const s = server;
    expect(JSON.parse(readFileSync(announcement, "utf8"))).toMatchObject({ url: s.url, pid: s.child.pid });
    const post = async (p: string, body: unknown) => {
      const res = await fetch(`${s.url}${p}`, { method: "POST", headers: { ...authHeaders(), "content-type": "application/json" }, body: JSON.stringify(body) });
      return res.json();
    };
    const session = await post("/api/sessions", {});
    const askRun = async (prompt: string) => {
      const run = await post(`/api/sessions/${session.id}/runs`, { function: "test.ask", input: { prompt, options: ["eu", "us"] } });
      const question = await waitFor(async () => (await (await fetch(`${s.url}/api/runs/${run.id}`, { headers: authHeaders() })).json()).pendingQuestions[0]);
      return { run, question };
    };

    // --wait 0: only a command sent through the server can come back applied.
    const first = await askRun("Which region?");
    const sent = await parley(dir, "send-input", first.run.id, first.question.pendingId, "--value-json", '"eu"', "--command-id", "via-server", "--wait", "0", "--json");
    expect(sent.code).toBe(0);
    const receipt = JSON.parse(sent.stdout);
    expect(receipt).toMatchObject({ commandId: "via-server", kind: "send_input", apply_state: "applied", outcome: "answered" });
    // Through the server the audit says what the server knows, REST: the CLI's own header is only its word.
    expect(receipt.question.closedBy).toBe("rest");
    const inspected = await parley(dir, "inspect", first.run.id);
    expect(inspected.stdout).toMatch(/Answered "eu" by Administrator, over REST/);
    // The same command over REST returns the very receipt the CLI printed.
    expect(await post(`/api/questions/${first.question.id}/reply`, { value: "eu", commandId: "via-server" })).toEqual(receipt);
    const bad = await parley(dir, "send-input", first.run.id, first.question.pendingId, "--value-json", '"eu"', "--command-id", "via-server-2", "--digest", "stale", "--json");
    expect(JSON.parse(bad.stdout)).toMatchObject({ apply_state: "target_closed", outcome: "already_answered" });

    const second = await askRun("Stop me?");
    const stopped = await parley(dir, "stop", second.run.id, "--command-id", "stop-1", "--json");
    expect(stopped.code).toBe(0);
    expect(JSON.parse(stopped.stdout)).toMatchObject({ commandId: "stop-1", kind: "stop_run", runId: second.run.id, apply_state: "applied", outcome: "stopped" });
    const stopAgain = await parley(dir, "stop", second.run.id, "--json");
    expect(JSON.parse(stopAgain.stdout)).toMatchObject({ kind: "stop_run", apply_state: "target_closed", outcome: "already_ended" });
    const resumed = await parley(dir, "resume", second.run.id, "--json");
    expect(JSON.parse(resumed.stdout)).toMatchObject({ kind: "resume", apply_state: "target_closed" });

    const third = await askRun("After the shutdown?");
    await s.kill("SIGTERM");
    server = undefined;
    expect(existsSync(announcement)).toBe(false);
    const queued = await parley(dir, "send-input", third.run.id, third.question.pendingId, "--value-json", '"us"', "--wait", "0", "--json");
    expect(JSON.parse(queued.stdout)).toMatchObject({ apply_state: "queued", outcome: "queued" });

    // A stale announcement (nothing answers at its URL) is ignored; an explicit --server that does not answer is an error.
    const deadUrl = `http://127.0.0.1:${await freePort()}`;
    writeFileSync(announcement, JSON.stringify({ url: deadUrl, pid: process.pid, startedAt: new Date().toISOString() }));
    const stopQueued = await parley(dir, "stop", third.run.id, "--wait", "0", "--json");
    expect(JSON.parse(stopQueued.stdout)).toMatchObject({ kind: "stop_run", apply_state: "queued", outcome: "queued" });
    const explicit = await parley(dir, "resume", third.run.id, "--server", deadUrl);
    expect(explicit.code).toBe(1);
    expect(explicit.stderr).toContain("unavailable");
  });
});
