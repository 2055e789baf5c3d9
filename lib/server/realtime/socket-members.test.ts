import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sessionRoom } from "../../protocol/socket";
import { eventOn, openTab, type Tab } from "../../../tests/helpers/remote";
import { startFakeParley, until, type FakeParley } from "../../../tests/helpers/fakes";
import { createOriginPolicy } from "../access/origin-policy";
import { attachRealtime } from "./socket-server";

// Who hears a shared session over real sockets (one node): its people's tabs, and nobody once removed.
let fx: FakeParley;
let realtime: ReturnType<typeof attachRealtime>;
let url: string;
const tabs: Tab[] = [];

beforeEach(async () => {
  fx = await startFakeParley();
  await fx.fixture.user.createMany({ data: ["alice", "bob"].map((id) => ({ id, addedBy: "local" })) });
  const http = createServer();
  let port = 0;
  realtime = attachRealtime(http, fx.parley, { origins: createOriginPolicy({ host: "127.0.0.1", port: () => port }) });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  port = (http.address() as AddressInfo).port;
  url = `http://127.0.0.1:${port}`;
});
afterEach(async () => {
  for (const t of tabs.splice(0)) t.disconnect();
  await realtime.close();
  await fx.close();
});

async function tabOf(ownerId: string): Promise<Tab> {
  const { token } = await fx.parley.access.apiTokens.create({ ownerId, name: `${ownerId}'s tab` });
  const tab = await openTab(url, { token });
  tabs.push(tab);
  return tab;
}

/** The sockets in a session's room, by their person. */
const inRoom = async (sessionId: string) => (await realtime.io.in(sessionRoom(sessionId)).fetchSockets()).map((s) => s.data.principal.ownerId).sort();

describe("a shared session's tabs", () => {
  it("a new member's tab hears the session at once; removed, it hears session.left and leaves the room; its people hear its delete", async () => {
    const { parley } = fx;
    const [alice, bob] = [await tabOf("alice"), await tabOf("bob")];
    const session = await parley.sessions.createSession({ ownerId: "alice" });

    const bobHears = eventOn(bob, "session.updated", (s) => s.id === session.id);
    const aliceHears = eventOn(alice, "session.updated", (s) => s.id === session.id && s.shared);
    await parley.members.add({ sessionId: session.id, user: "bob", by: "alice" });
    expect(await bobHears).toMatchObject({ id: session.id, ownerId: "alice", shared: true });
    await aliceHears;

    expect(await bob.emitWithAck("session.join", { sessionId: session.id })).toMatchObject({ ok: true });
    expect(await alice.emitWithAck("session.join", { sessionId: session.id })).toMatchObject({ ok: true });
    expect(await inRoom(session.id)).toEqual(["alice", "bob"]);

    const left = eventOn(bob, "session.left", (e) => e.id === session.id);
    const unshared = eventOn(alice, "session.updated", (s) => s.id === session.id && !s.shared);
    await parley.members.remove({ sessionId: session.id, user: "bob" });
    await left;
    await unshared;
    expect(await inRoom(session.id)).toEqual(["alice"]);
    expect(await bob.emitWithAck("session.join", { sessionId: session.id })).toMatchObject({ ok: false, error: { code: "not_found:session" } });

    await parley.members.add({ sessionId: session.id, user: "bob", by: "alice" });
    const deleted = [alice, bob].map((t) => eventOn(t, "session.deleted", (e) => e.id === session.id));
    await parley.deleteSession({ id: session.id });
    await Promise.all(deleted);
  });

  it("a member removed while their tab joins is not left in the room (the join checks again once in it)", async () => {
    const { parley } = fx;
    const bob = await tabOf("bob");
    const session = await parley.sessions.createSession({ ownerId: "alice" });
    await parley.members.add({ sessionId: session.id, user: "bob", by: "alice" });
    // The removal commits, and its sockets leave, just after the join's first check said yes.
    const { visibility } = parley.access;
    const check = visibility.session;
    let removed = false;
    visibility.session = async (viewer, id) => {
      const role = await check(viewer, id);
      if (!removed) {
        removed = true;
        await parley.members.remove({ sessionId: id, user: viewer });
      }
      return role;
    };
    expect(await bob.emitWithAck("session.join", { sessionId: session.id })).toMatchObject({ ok: false, error: { code: "not_found:session" } });
    await until(() => removed);
    expect(await inRoom(session.id)).toEqual([]);
  });
});
