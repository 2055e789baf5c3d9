import { afterEach, describe, expect, it } from "vitest";
import { LOCAL_OWNER } from "../../protocol/access";
import { startFakeParley, type FakeParley } from "../../../tests/helpers/fakes";
import { bearerOf, cookieValue } from "./authenticator";

let fake: FakeParley | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

describe("the authenticator", () => {
  it("knows the server token, live API tokens and signed cookies, and nothing else", async () => {
    fake = await startFakeParley({ access: { token: "server-token-0123456789" } });
    const { authenticator, apiTokens, browserSessions } = fake.parley.access;
    expect(await authenticator.authenticate({ bearer: "server-token-0123456789" })).toMatchObject({ ownerId: LOCAL_OWNER, via: "server_token" });
    expect(await authenticator.authenticate({ bearer: "server-token-012345678" })).toBeNull();
    expect(await authenticator.authenticate({})).toBeNull();

    await fake.parley.people.add("ann", { addedBy: LOCAL_OWNER });
    const { token, info } = await apiTokens.create({ ownerId: "ann", name: "script" });
    expect(await authenticator.authenticate({ bearer: token })).toMatchObject({ ownerId: "ann", via: "api_token", credential: `api:${info.id}` });
    // Another last character (a random secret may already end in any given one).
    expect(await authenticator.authenticate({ bearer: `${token.slice(0, -1)}${token.endsWith("x") ? "y" : "x"}` })).toBeNull();
    await apiTokens.revoke(info.id);
    expect(await authenticator.authenticate({ bearer: token })).toBeNull();
    expect((await apiTokens.list())[0]).toMatchObject({ id: info.id, revokedAt: expect.any(String) });

    const cookie = `theme=dark; ${browserSessions.cookieName}=${await browserSessions.issue(LOCAL_OWNER)}`;
    expect(await authenticator.authenticate({ cookie })).toMatchObject({ ownerId: LOCAL_OWNER, via: "cookie" });
    expect(await authenticator.authenticate({ cookie: `${browserSessions.cookieName}=forged.1.abc` })).toBeNull();
  });

  it("limits a client's wrong bearer tokens per token aimed at; then refuses a right token first tried then, never one already used, nor another credential's", async () => {
    fake = await startFakeParley({ access: { token: "server-token-0123456789", rateLimits: { badTokens: { points: 3, seconds: 60 } } } });
    const { authenticator, apiTokens, browserSessions } = fake.parley.access;
    await fake.parley.people.add("ann", { addedBy: LOCAL_OWNER });
    const { token } = await apiTokens.create({ ownerId: "ann", name: "script" });
    const unused = await apiTokens.create({ ownerId: "ann", name: "unused" });
    const auth = (bearer: string, client = "10.0.0.1") => authenticator.authenticate({ bearer, client });
    // Right tokens are never counted, however many at once.
    for (let burst = 0; burst < 3; burst++) {
      const all = await Promise.all(Array.from({ length: 60 }, () => auth(token)));
      expect(all.every((p) => p !== null)).toBe(true);
    }
    expect(await auth("server-token-0123456789")).toMatchObject({ via: "server_token" });
    // Three wrong tokens that are no API token's: the server token's key is over the limit.
    for (const wrong of ["wrong-token-0123456789", "server-token-012345678", "another-guess-0123456789"]) expect(await auth(wrong)).toBeNull();
    await expect(auth("yet-another-guess-0123456789")).rejects.toMatchObject({ code: "rate_limited" });
    // The server token, right when used before, goes on; so does an API token of this address (another key).
    expect(await auth("server-token-0123456789")).toMatchObject({ via: "server_token" });
    expect(await auth(token)).toMatchObject({ via: "api_token" });
    // Guesses aimed at one API token lock that token's key: its right secret, never used before, is refused then (its answer would tell).
    const [, unusedId] = /^pat_([^_]+)_/.exec(unused.token)!;
    for (let i = 0; i < 3; i++) expect(await auth(`pat_${unusedId}_guess-guess-guess-guess-${i}`)).toBeNull();
    await expect(auth(unused.token)).rejects.toMatchObject({ code: "rate_limited" });
    expect(await auth(unused.token, "10.0.0.2")).toMatchObject({ via: "api_token" });
    // A cookie is not a bearer token: a browser behind the same address still signs in.
    const cookie = `${browserSessions.cookieName}=${await browserSessions.issue(LOCAL_OWNER)}`;
    expect(await authenticator.authenticate({ cookie, client: "10.0.0.1" })).toMatchObject({ via: "cookie" });
  });

  it("a token revoked while trusted is checked again, and counted as wrong", async () => {
    fake = await startFakeParley({ access: { token: "server-token-0123456789", rateLimits: { badTokens: { points: 2, seconds: 60 } } } });
    const { authenticator, apiTokens } = fake.parley.access;
    await fake.parley.people.add("ann", { addedBy: LOCAL_OWNER });
    const { token, info } = await apiTokens.create({ ownerId: "ann", name: "script" });
    expect(await authenticator.authenticate({ bearer: token, client: "10.0.0.1" })).not.toBeNull();
    await apiTokens.revoke(info.id);
    for (let i = 0; i < 2; i++) expect(await authenticator.authenticate({ bearer: token, client: "10.0.0.1" })).toBeNull();
    await expect(authenticator.authenticate({ bearer: token, client: "10.0.0.1" })).rejects.toMatchObject({ code: "rate_limited" });
  });

  it("says who is an administrator: the server token and its cookies, and people added as one; never a token that may only ask", async () => {
    fake = await startFakeParley({ access: { token: "server-token-0123456789" } });
    const { authenticator, apiTokens, browserSessions } = fake.parley.access;
    const cookieOf = async (owner: string) => `${browserSessions.cookieName}=${await browserSessions.issue(owner)}`;
    await fake.parley.people.add("ann", { addedBy: LOCAL_OWNER, admin: true });
    await fake.parley.people.add("bob", { addedBy: "ann" });
    expect(await authenticator.authenticate({ bearer: "server-token-0123456789" })).toMatchObject({ ownerId: LOCAL_OWNER, admin: true });
    expect(await authenticator.authenticate({ cookie: await cookieOf(LOCAL_OWNER) })).toMatchObject({ ownerId: LOCAL_OWNER, admin: true });
    expect(await authenticator.authenticate({ cookie: await cookieOf("ann") })).toMatchObject({ ownerId: "ann", via: "cookie", admin: true });
    expect(await authenticator.authenticate({ cookie: await cookieOf("bob") })).toMatchObject({ ownerId: "bob", via: "cookie", admin: false });
    const full = await apiTokens.create({ ownerId: "ann", name: "script" });
    const askOnly = await apiTokens.create({ ownerId: "ann", name: "ci", scope: "ask" });
    expect(await authenticator.authenticate({ bearer: full.token })).toMatchObject({ ownerId: "ann", admin: true });
    expect(await authenticator.authenticate({ bearer: askOnly.token })).toMatchObject({ ownerId: "ann", admin: false, scope: "ask" });
    expect(await authenticator.authenticate({ bearer: (await apiTokens.create({ ownerId: LOCAL_OWNER, name: "ci", scope: "ask" })).token })).toMatchObject({ admin: false });
  });

  it("refuses the cookie and the API token of a person who no longer exists, or never did", async () => {
    fake = await startFakeParley({ access: { token: "server-token-0123456789" } });
    const { authenticator, apiTokens, browserSessions } = fake.parley.access;
    await fake.parley.people.add("bob", { addedBy: LOCAL_OWNER });
    const cookie = `${browserSessions.cookieName}=${await browserSessions.issue("bob")}`;
    const { token } = await apiTokens.create({ ownerId: "bob", name: "script" });
    expect(await authenticator.authenticate({ cookie })).toMatchObject({ ownerId: "bob" });
    expect(await authenticator.authenticate({ bearer: token })).toMatchObject({ ownerId: "bob" });

    expect(await fake.parley.people.remove("bob")).toMatchObject({ person: { name: "bob" }, revokedTokens: [expect.any(String)] });
    expect(await authenticator.authenticate({ cookie })).toBeNull();
    expect(await authenticator.authenticate({ bearer: token })).toBeNull();

    // A token made for someone who was never added (the database written by hand, an older version's --owner) speaks for no one.
    const ghost = await apiTokens.create({ ownerId: "ghost", name: "old script" });
    const ghostCookie = `${browserSessions.cookieName}=${await browserSessions.issue("ghost")}`;
    expect(await authenticator.authenticate({ bearer: ghost.token })).toBeNull();
    expect(await authenticator.authenticate({ cookie: ghostCookie })).toBeNull();
    // Such a token works once the name is a person's (how an upgrade keeps old --owner tokens); a cookie issued before is still no one's.
    fake.clock.advance(60_000);
    await fake.parley.people.add("ghost", { addedBy: LOCAL_OWNER });
    expect(await authenticator.authenticate({ bearer: ghost.token })).toMatchObject({ ownerId: "ghost" });
    expect(await authenticator.authenticate({ cookie: ghostCookie })).toBeNull();

    // Someone new under the same name later: the removed person's cookie is still not theirs.
    fake.clock.advance(60_000);
    await fake.parley.people.add("bob", { addedBy: LOCAL_OWNER });
    expect(await authenticator.authenticate({ cookie })).toBeNull();
    expect(await authenticator.authenticate({ cookie: `${browserSessions.cookieName}=${await browserSessions.issue("bob")}` })).toMatchObject({ ownerId: "bob" });
  });

  it("generates a server token when none is configured", async () => {
    fake = await startFakeParley();
    expect(fake.parley.access.generatedToken).toBe(true);
    expect(fake.parley.access.serverToken.length).toBeGreaterThanOrEqual(24);
  });

  it("reads bearer tokens and cookies leniently but exactly", () => {
    expect(bearerOf("Bearer abc")).toBe("abc");
    expect(bearerOf("bearer   abc  ")).toBe("abc");
    expect(bearerOf("Basic abc")).toBeNull();
    expect(bearerOf("Bearer a b")).toBeNull();
    expect(cookieValue("a=1; parley_session=x.y.z; b=2", "parley_session")).toBe("x.y.z");
    expect(cookieValue("xparley_session=1", "parley_session")).toBeUndefined();
  });
});
