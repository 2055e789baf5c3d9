import { afterEach, describe, expect, it } from "vitest";
import { SURFACE_HEADER } from "../../protocol/rest";
import { startFakeParley, type FakeParley } from "../../../tests/helpers/fakes";
import type { Caller } from "./json-route";
import { runStarterOf } from "./run-starter";

const request = (value?: string) => new Request("http://localhost/api/sessions/s/runs", { method: "POST", headers: value === undefined ? {} : { [SURFACE_HEADER]: value } });
const caller = (via: Caller["via"], credential: string): Caller => ({
  ownerId: "local",
  via,
  credential,
  admin: true,
  see: { session: async () => ({ ownerId: "local" }), question: async () => {}, run: async () => {} },
  manage: { session: async () => {} },
  hold: () => ({ signal: new AbortController().signal, release: () => {} }),
});

let fake: FakeParley | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

describe("runStarterOf: who a run's starter line names", () => {
  it("is the REST API and the checked credential whatever the client says; the CLI's word is kept apart as its word", async () => {
    fake = await startFakeParley();
    const { token, info } = await fake.parley.access.apiTokens.create({ ownerId: "local", name: "nightly" });
    expect(token).toMatch(/^pat_/);
    expect(await runStarterOf(request("cli"), caller("server_token", "server"), fake.parley)).toEqual({ surface: "rest", via: "server_token", clientSays: "cli" });
    expect(await runStarterOf(request("cli"), caller("api_token", `api:${info.id}`), fake.parley)).toEqual({
      surface: "rest",
      via: "api_token",
      tokenId: info.id,
      tokenName: "nightly",
      clientSays: "cli",
    });
    for (const other of [undefined, "", "CLI", "cli, cli", "terminal", "rest", "socket"]) {
      expect(await runStarterOf(request(other), caller("cookie", "cookie:1"), fake.parley)).toEqual({ surface: "rest", via: "cookie" });
    }
  });
});
