import { describe, expect, it } from "vitest";
import { DomainEvents, subscribe } from "./events";

describe("subscribe", () => {
  it("hears each event of its table with the event's arguments, and after unsubscribing hears none", () => {
    const events = new DomainEvents();
    const heard: string[] = [];
    const off = subscribe(events, {
      "rules.updated": ({ sessionId }) => heard.push(`rules ${sessionId}`),
      "api-token.revoked": ({ id }) => heard.push(`token ${id}`),
    });
    events.emit("rules.updated", { sessionId: "s1" });
    events.emit("api-token.revoked", { id: "t1" });
    events.emit("cookies.revoked");
    expect(heard).toEqual(["rules s1", "token t1"]);
    expect(events.listenerCount("rules.updated")).toBe(1);
    off();
    events.emit("rules.updated", { sessionId: "s2" });
    expect(heard).toEqual(["rules s1", "token t1"]);
    expect(events.listenerCount("rules.updated") + events.listenerCount("api-token.revoked")).toBe(0);
  });

  it("with first, hears an event before the handlers subscribed earlier", () => {
    const events = new DomainEvents();
    const heard: string[] = [];
    subscribe(events, { "rules.updated": () => heard.push("outbox") });
    subscribe(events, { "rules.updated": () => heard.push("tabs") }, { first: true });
    subscribe(events, { "rules.updated": () => heard.push("later") });
    events.emit("rules.updated", { sessionId: "s1" });
    expect(heard).toEqual(["tabs", "outbox", "later"]);
  });
});
