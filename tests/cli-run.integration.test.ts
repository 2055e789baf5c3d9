import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ReplyReceipt } from "../lib/protocol/commands";
import type { Run, Session } from "../lib/protocol/entities";
import type { Question } from "../lib/protocol/question";
import { SURFACE_HEADER } from "../lib/protocol/rest";
import { isFinalStatus, poll, restClient, type RestClient } from "./helpers/remote";
import { freePort, startServerProcess, TEST_TOKEN, type ServerProcess } from "./helpers/server-process";

/** `parley run` starts a run through the running server; the run's starter line shows the CLI's word as its word. */

const root = path.resolve(import.meta.dirname, "..");
let dir: string;
let databaseFile: string;
let server: ServerProcess;
let rest: RestClient;

/** The CLI as a person runs it beside the server: it finds the server (and its token) beside the database. */
const cli = (...args: string[]) =>
  promisify(execFile)(process.execPath, ["bin/parley.mjs", ...args, "--database", `file:${databaseFile}`], { cwd: root, env: { ...process.env, PARLEY_TOKEN: "", PARLEY_URL: "" } });

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "parley-cli-run-"));
  databaseFile = path.join(dir, "run.db");
  server = await startServerProcess({ port: await freePort(), databaseFile });
  rest = restClient(server.url);
}, 90_000);

afterAll(async () => {
  await server?.kill("SIGTERM");
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("parley run", { timeout: 60_000 }, () => {
  it("starts a run over REST that the CLI says is its own, follows it with --wait until it asks, and says how to answer", async () => {
    const session = await rest.ok(rest.post<Session>("/api/sessions", {}));
    const input = JSON.stringify({ prompt: "Which way?", options: ["left", "right"] });
    const { stdout } = await cli("run", "test.ask", "--session", session.id, "--input", input, "--wait");
    const runId = /^run (\S+) waits for an answer/m.exec(stdout)?.[1];
    expect(runId).toBeTruthy();
    expect(stdout).toContain("Which way?");
    const run = await rest.ok(rest.get<Run>(`/api/runs/${runId}`));
    expect(run).toMatchObject({ sessionId: session.id, functionName: "test.ask", status: "waiting_input", startedBy: { surface: "rest", via: "server_token", clientSays: "cli" } });

    // The printed command answers it.
    const answer = /answer: npx parley (send-input .+)$/m.exec(stdout)?.[1];
    expect(answer).toBeTruthy();
    const args = answer!.match(/'[^']*'|\S+/g)!.map((a) => a.replace(/^'|'$/g, ""));
    await cli(...args);
    const done = await poll("the run to finish", async () => {
      const r = await rest.ok(rest.get<Run>(`/api/runs/${runId}`));
      return isFinalStatus(r.status) ? r : undefined;
    });
    expect(done).toMatchObject({ status: "succeeded", result: { outcome: "answered", value: "left" } });
  });

  it("without --session starts a new chat, prints the run id, and REST without the CLI's header says nothing of the CLI", async () => {
    const { stdout } = await cli("run", "test.ask", "--json");
    const started = JSON.parse(stdout) as Run;
    expect(started.startedBy).toEqual({ surface: "rest", via: "server_token", clientSays: "cli" });
    const sessions = await rest.ok(rest.get<Session[]>("/api/sessions"));
    expect(sessions.find((s) => s.id === started.sessionId)?.title).toBe("parley run test.ask");

    const viaRest = await rest.ok(rest.post<Run>(`/api/sessions/${started.sessionId}/runs`, { function: "test.ask" }));
    expect(viaRest.startedBy).toEqual({ surface: "rest", via: "server_token" });
  });

  it("a client that says it is the CLI is recorded as REST with its credential: the header sets no audit surface", async () => {
    const session = await rest.ok(rest.post<Session>("/api/sessions", {}));
    const headers = { authorization: `Bearer ${TEST_TOKEN}`, "content-type": "application/json", [SURFACE_HEADER]: "cli" };
    const post = async (pathname: string, body: unknown) => (await fetch(`${server.url}${pathname}`, { method: "POST", headers, body: JSON.stringify(body) })).json();
    const run = (await post(`/api/sessions/${session.id}/runs`, { function: "test.ask", input: { options: ["a", "b"] } })) as Run;
    expect(run.startedBy).toEqual({ surface: "rest", via: "server_token", clientSays: "cli" });
    const question = await poll("the question", async () => (await rest.ok(rest.get<Run & { pendingQuestions: Question[] }>(`/api/runs/${run.id}`))).pendingQuestions[0]);
    const receipt = (await post(`/api/questions/${question.id}/reply`, { value: "a" })) as ReplyReceipt;
    expect(receipt.question).toMatchObject({ status: "answered", closedBy: "rest" });
    const stopped = (await post(`/api/runs/${(await post(`/api/sessions/${session.id}/runs`, { function: "test.ask" })).id}/stop`, {})) as Run;
    expect(stopped).toMatchObject({ status: "cancelled", error: "Stopped by you." });
  });

  it("a run started with an API token names the token, as it is named when the run starts", async () => {
    const { stdout } = await cli("token", "create", "--name", "nightly ci");
    const token = stdout.split("\n")[0]!;
    expect(token).toMatch(/^pat_/);
    const ci = restClient(server.url, { token });
    const session = await ci.ok(ci.post<Session>("/api/sessions", {}));
    const run = await ci.ok(ci.post<Run>(`/api/sessions/${session.id}/runs`, { function: "test.ask" }));
    expect(run.startedBy).toEqual({ surface: "rest", via: "api_token", tokenId: token.split("_")[1], tokenName: "nightly ci" });
  });

  it("refuses input that is not JSON before sending anything, and says when the function does not exist", async () => {
    await expect(cli("run", "test.ask", "--input", "{nope")).rejects.toMatchObject({ stderr: expect.stringContaining("input_not_json") });
    await expect(cli("run", "no.such.function")).rejects.toMatchObject({ stderr: expect.stringContaining("not_found:function") });
  });
});
