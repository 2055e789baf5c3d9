import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { authHeaders, freePort, startServerProcess, type ServerProcess } from "./helpers/server-process";

let server: ServerProcess | undefined;
let dir: string | undefined;
afterEach(async () => {
  await server?.kill();
  server = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const json = async (res: Response) => {
  const body = await res.json();
  if (!res.ok) throw new Error(`${res.status}: ${JSON.stringify(body)}`);
  return body;
};

describe("the real server process", () => {
  it("killed with SIGKILL while a question is pending, restarted on the same database, answers over REST and completes the run", { timeout: 120_000 }, async () => {
    dir = mkdtempSync(path.join(tmpdir(), "parley-restart-"));
    const databaseFile = path.join(dir, "restart.db");
    const port = await freePort();
    server = await startServerProcess({ port, databaseFile });
    const post = (p: string, body: unknown) => fetch(`${server!.url}${p}`, { method: "POST", headers: { ...authHeaders(), "content-type": "application/json" }, body: JSON.stringify(body) });

    const session = await json(await post("/api/sessions", {}));
    const run = await json(await post(`/api/sessions/${session.id}/runs`, { function: "test.journal", commandId: "start-restart" }));
    let pending: Array<{ id: string; expiresAt: string; targetDigest: string }> = [];
    for (let i = 0; i < 100 && pending.length === 0; i++) {
      pending = await json(await fetch(`${server.url}/api/questions?session_id=${session.id}`, { headers: authHeaders() }));
      if (pending.length === 0) await new Promise((r) => setTimeout(r, 100));
    }
    expect(pending).toHaveLength(1);

    await server.kill("SIGKILL");
    server = await startServerProcess({ port, databaseFile });

    const after = await json(await fetch(`${server.url}/api/questions?session_id=${session.id}`, { headers: authHeaders() }));
    expect(after).toEqual([expect.objectContaining({ id: pending[0]!.id, status: "pending", expiresAt: pending[0]!.expiresAt })]);
    // Starting the same run again under its commandId still returns the first run.
    expect((await json(await post(`/api/sessions/${session.id}/runs`, { function: "test.journal", commandId: "start-restart" }))).id).toBe(run.id);

    const receipt = await json(await post(`/api/questions/${pending[0]!.id}/reply`, { value: "red", digest: pending[0]!.targetDigest, commandId: "reply-restart" }));
    expect(receipt).toMatchObject({ outcome: "answered", apply_state: "applied", record_state: "durably_recorded", kind: "send_input" });

    let done: { status: string; result: { color: string; token: string }; attempts: number } | undefined;
    for (let i = 0; i < 200; i++) {
      done = await json(await fetch(`${server.url}/api/runs/${run.id}`, { headers: authHeaders() }));
      if (done!.status === "succeeded") break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(done).toMatchObject({ status: "succeeded", result: { color: "red" } });
    expect(done!.attempts).toBe(2);

    const again = await json(await post(`/api/questions/${pending[0]!.id}/reply`, { value: "red", digest: pending[0]!.targetDigest, commandId: "reply-restart" }));
    expect(again).toEqual(receipt);
    const conflict = await post(`/api/questions/${pending[0]!.id}/reply`, { value: "blue", commandId: "reply-restart" });
    expect(conflict.status).toBe(409);
    expect((await conflict.json()).error.code).toBe("command_conflict");
  });
});
