import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { WhoAmI } from "../lib/protocol/access";
import type { Run, SessionSnapshot } from "../lib/protocol/entities";
import { fakeServer, textReply } from "../workers/agent/fake-openai";
import { isFinalStatus, poll, restClient } from "./helpers/remote";
import { freePort, startServerProcess, type ServerProcess } from "./helpers/server-process";

let server: ServerProcess | undefined;
let dir: string | undefined;
afterEach(async () => {
  await server?.kill();
  server = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe("a model server on this machine, with no model configured", () => {
  it("is found at start-up, said in its start-up line and to the header, and answers a chat turn", { timeout: 120_000 }, async () => {
    dir = mkdtempSync(path.join(tmpdir(), "parley-local-model-"));
    const model = await fakeServer([textReply("Hello from the model on this machine.")], { models: ["fake-local-model", "another-model"] });
    const host = new URL(model.baseURL).host;
    // Nothing listens on the first address: the probe goes on to the fake server.
    const nothing = `http://127.0.0.1:${await freePort()}/v1`;
    server = await startServerProcess({ port: await freePort(), databaseFile: path.join(dir, "p.db"), env: { PARLEY_LOCAL_MODELS: `${nothing},${model.baseURL}`, PARLEY_MODEL_RETRIES: "0" } });
    expect(server.output()).toContain(`> Model: fake-local-model on an OpenAI-compatible server at ${host} — PARLEY_MODEL=scripted to use the offline script`);

    const rest = restClient(server.url);
    expect((await rest.ok(rest.get<WhoAmI>("/api/auth/session"))).model).toEqual({
      label: `fake-local-model · ${host}`,
      detail: `The chat's model: fake-local-model on an OpenAI-compatible server at ${host}`,
      scripted: false,
    });

    const session = await rest.ok(rest.post<{ id: string }>("/api/sessions", { title: "a local model" }));
    const run = await rest.ok(rest.post<Run>(`/api/sessions/${session.id}/messages`, { text: "hello" }));
    const ended = await poll(
      "the turn's end",
      async () => {
        const now = await rest.ok(rest.get<Run>(`/api/runs/${run.id}`));
        return isFinalStatus(now.status) && now;
      },
      60_000,
    );
    expect(ended.status, JSON.stringify(ended.error)).toBe("succeeded");
    const snapshot = await rest.ok(rest.get<SessionSnapshot>(`/api/sessions/${session.id}`));
    expect(snapshot.messages.filter((m) => m.role === "agent" && m.runId === run.id).map((m) => m.text)).toEqual(["Hello from the model on this machine."]);
    // The worker called the model the server found, by name.
    expect(model.requests.map((r) => r.body.model)).toEqual(["fake-local-model"]);
  });
});
