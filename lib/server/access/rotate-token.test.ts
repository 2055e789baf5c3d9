import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { LOCAL_OWNER } from "../../protocol/access";
import { startFakeParley, type FakeParley } from "../../../tests/helpers/fakes";
import { keptServerToken } from "./kept-token";

let fake: FakeParley | undefined;
let dir: string | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const keptIn = () => {
  dir = mkdtempSync(path.join(tmpdir(), "parley-rotate-unit-"));
  const tokenFile = path.join(dir, "parley.db.token");
  return { tokenFile, token: keptServerToken(tokenFile) };
};

describe("rotating the server token", () => {
  it("replaces a kept token at once: the old one and the cookies it signed in are refused, the new one is kept with mode 0600", async () => {
    const { tokenFile, token } = keptIn();
    fake = await startFakeParley({ access: { token, tokenFile } });
    const { authenticator, browserSessions } = fake.parley.access;
    const cookie = `${browserSessions.cookieName}=${await browserSessions.issue(LOCAL_OWNER)}`;
    await fake.parley.rotateServerToken();
    const fresh = readFileSync(tokenFile, "utf8").trim();
    expect(fresh).not.toBe(token);
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    expect(fake.parley.access.serverToken).toBe(fresh);
    expect(await authenticator.authenticate({ bearer: token })).toBeNull();
    expect(await authenticator.authenticate({ bearer: fresh })).toMatchObject({ via: "server_token" });
    expect(await authenticator.authenticate({ cookie })).toBeNull();
  });

  it("is refused for PARLEY_TOKEN (no file) and for a node among several (the others would keep the old token)", async () => {
    fake = await startFakeParley({ access: { token: "chosen-token-0123456789" } });
    await expect(fake.parley.rotateServerToken()).rejects.toMatchObject({ code: "forbidden" });
    expect(fake.parley.access.serverToken).toBe("chosen-token-0123456789");
    await fake.close();

    const { tokenFile, token } = keptIn();
    fake = await startFakeParley({ access: { token, tokenFile }, runLeaseMs: 15_000 });
    await expect(fake.parley.rotateServerToken()).rejects.toMatchObject({ code: "forbidden" });
    expect(readFileSync(tokenFile, "utf8").trim()).toBe(token);
  });
});
