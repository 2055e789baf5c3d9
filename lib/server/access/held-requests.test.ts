import { afterEach, describe, expect, it } from "vitest";
import { AppError } from "../../protocol/errors";
import { DomainEvents } from "../events";
import { createHeldRequests, type HeldBy } from "./held-requests";

const by = (over: Partial<HeldBy> = {}): HeldBy => ({ ownerId: "bob", credential: "api:t1", bearer: "pat_t1_x", cookie: null, sessionId: "s1", ...over });
let close: (() => void) | undefined;
afterEach(() => close?.());

function held({ valid = new Set(["pat_t1_x", "pat_t2_x"]), members = new Set(["bob:s1", "ann:s1"]), recheckMs = 3_600_000 } = {}) {
  const events = new DomainEvents();
  const requests = createHeldRequests({
    events,
    recheckMs,
    authenticator: { authenticate: async ({ bearer }) => (bearer && valid.has(bearer) ? { ownerId: "bob", via: "api_token", credential: `api:${bearer.split("_")[1]}`, admin: false } : null) },
    visibility: {
      session: async (viewer: string, id: string) => {
        if (!members.has(`${viewer}:${id}`)) throw new AppError("not_found:session", "gone");
        return "member" as const;
      },
    },
  });
  close = requests.close;
  return { events, requests, valid, members };
}

describe("held requests", () => {
  it("end at once, with token_revoked, when this node revokes their token or rotates the server token; others go on", () => {
    const { events, requests } = held();
    const a = requests.hold(by());
    const b = requests.hold(by({ credential: "api:t2", bearer: "pat_t2_x" }));
    const server = requests.hold(by({ credential: "server", bearer: "srv" }));
    events.emit("api-token.revoked", { id: "t1" });
    expect(a.signal.aborted).toBe(true);
    expect(a.signal.reason).toMatchObject({ code: "token_revoked", status: 401 });
    expect(b.signal.aborted).toBe(false);
    events.emit("server-token.rotated");
    expect(server.signal.aborted).toBe(true);
    expect(requests.count()).toBe(1);
  });

  it("end with no_longer_a_member when the person leaves that chat, not another chat's", () => {
    const { events, requests } = held();
    const here = requests.hold(by());
    const elsewhere = requests.hold(by({ sessionId: "s2" }));
    events.emit("session.left", { id: "s1", user: "bob" });
    expect(here.signal.reason).toMatchObject({ code: "no_longer_a_member", status: 403 });
    expect(elsewhere.signal.aborted).toBe(false);
  });

  it("a check finds what another node or the CLI changed: a credential no longer right, a membership gone", async () => {
    const { requests, valid, members } = held({ recheckMs: 20 });
    const revoked = requests.hold(by());
    const removed = requests.hold(by({ credential: "api:t2", bearer: "pat_t2_x" }));
    const kept = requests.hold(by({ ownerId: "ann", credential: "api:t2", bearer: "pat_t2_x" }));
    valid.delete("pat_t1_x");
    members.delete("bob:s1");
    await expect.poll(() => revoked.signal.aborted && removed.signal.aborted).toBe(true);
    expect(revoked.signal.reason).toMatchObject({ code: "token_revoked" });
    expect(removed.signal.reason).toMatchObject({ code: "no_longer_a_member" });
    expect(kept.signal.aborted).toBe(false);
    kept.release();
    expect(requests.count()).toBe(0);
  });
});
