import { describe, expect, it } from "vitest";
import type { Session } from "../protocol/entities";
import { pickSession } from "./pick-session";

const s = (id: string, title: string): Session => ({ id, title, ownerId: "local", createdAt: "", updatedAt: "", pendingCount: 0, shared: false });
const sessions = [s("cmabc123", "Deploy"), s("cmabd456", "Coffee"), s("cmx999", "Coffee")];

describe("pickSession", () => {
  it("opens a new chat without an argument, or the newest with --continue", () => {
    expect(pickSession(sessions, { arg: undefined, latest: false })).toEqual({ type: "new" });
    expect(pickSession(sessions, { arg: undefined, latest: true })).toEqual({ type: "existing", session: sessions[0] });
    expect(pickSession([], { arg: undefined, latest: true })).toEqual({ type: "new" });
  });

  it("takes an id, a unique prefix or a unique title", () => {
    expect(pickSession(sessions, { arg: "cmx999", latest: false })).toMatchObject({ session: { id: "cmx999" } });
    expect(pickSession(sessions, { arg: "cmabd", latest: false })).toMatchObject({ session: { id: "cmabd456" } });
    expect(pickSession(sessions, { arg: "deploy", latest: false })).toMatchObject({ session: { id: "cmabc123" } });
  });

  it("lists the candidates of an ambiguous prefix or title, and the chats when nothing matches", () => {
    expect(() => pickSession(sessions, { arg: "cmab", latest: false })).toThrow(/matches 2 chats[\s\S]*cmabc123[\s\S]*cmabd456/);
    expect(() => pickSession(sessions, { arg: "coffee", latest: false })).toThrow(/matches 2 chats/);
    expect(() => pickSession(sessions, { arg: "zzz", latest: false })).toThrow(/No chat "zzz"[\s\S]*cmx999/);
    expect(() => pickSession([], { arg: "zzz", latest: false })).toThrow(/there are none yet/);
  });
});
