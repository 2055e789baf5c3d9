import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LOCAL_OWNER } from "@/lib/protocol/access";
import { setParley } from "@/lib/server/registry";
import { startFakeParley, type FakeParley } from "@/tests/helpers/fakes";
import { POST } from "./route";

let fake: FakeParley;
beforeEach(async () => {
  fake = await startFakeParley({ access: { token: "server-token-0123456789", rateLimits: { badTokens: { points: 3, seconds: 60 } } } });
  setParley(fake.parley);
});
afterEach(async () => {
  setParley(undefined);
  await fake.close();
});

/** The sign-in as a browser at `client` sends it (the gate has settled X-Forwarded-For). */
const signIn = async (body: unknown, client = "10.0.0.1") => {
  const res = await POST(new Request("http://127.0.0.1/api/auth/session", { method: "POST", headers: { "content-type": "application/json", "x-forwarded-for": client }, body: JSON.stringify(body) }), {
    params: Promise.resolve({}),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, cookie: res.headers.get("set-cookie") };
};
const newLink = async (name: string) => (await fake.parley.people.add(name, { addedBy: LOCAL_OWNER })).link;

describe("POST /api/auth/session with a sign-in link", () => {
  it("signs the browser in as the person, once", async () => {
    const link = await newLink("bob");
    const first = await signIn({ link });
    expect(first).toMatchObject({ status: 200, body: { ownerId: "bob", via: "cookie", admin: false }, cookie: expect.stringMatching(/^parley_session_[0-9a-f]{8}=bob\.\d+\./) });
    expect(await fake.parley.access.authenticator.authenticate({ cookie: first.cookie!.split(";")[0] })).toMatchObject({ ownerId: "bob", admin: false });
    expect(await signIn({ link })).toMatchObject({ status: 401, body: { error: { code: "unauthorized", message: expect.stringContaining("already used") } }, cookie: null });
  });

  it("counts links that fail as wrong tokens of the address: past the limit even a good one is refused there, not elsewhere", async () => {
    // Good links are never counted.
    for (const name of ["a1", "a2", "a3", "a4"]) expect((await signIn({ link: await newLink(name) })).status).toBe(200);
    const good = await newLink("bob");
    for (const link of ["sil_0123456789abcdef_not-a-real-secret-at-all", "nonsense", good.slice(0, -2)]) expect((await signIn({ link })).status).toBe(401);
    expect(await signIn({ link: good })).toMatchObject({ status: 429, body: { error: { code: "rate_limited" } } });
    expect(await signIn({ link: good }, "10.0.0.2")).toMatchObject({ status: 200, body: { ownerId: "bob" } });
  });

  it("still takes the server token as the administrator, and a body of neither is a 400", async () => {
    expect(await signIn({ token: "server-token-0123456789" })).toMatchObject({ status: 200, body: { ownerId: LOCAL_OWNER, via: "cookie", admin: true } });
    expect((await signIn({ token: "x", link: "y" })).status).toBe(400);
    expect((await signIn({})).status).toBe(400);
  });
});
