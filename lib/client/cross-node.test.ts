import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { crossNodeNotice, crossNodeStore } from "./cross-node";

function fakeSocket() {
  const emitter = new EventEmitter();
  return Object.assign(emitter, { connected: true });
}

describe("the cross-node status of a tab", () => {
  it("follows the server's server.status events and forgets them on disconnect", () => {
    const socket = fakeSocket();
    const store = crossNodeStore(socket);
    const seen: (string | null)[] = [];
    store.subscribe(() => seen.push(store.get()));
    expect(store.get()).toBeNull();
    socket.emit("server.status", { crossNode: "connected" });
    socket.emit("server.status", { crossNode: "lost" });
    socket.emit("server.status", { crossNode: "lost" });
    socket.emit("disconnect");
    expect(seen).toEqual(["connected", "lost", null]);
  });

  it("ignores a malformed payload and keeps the last good status", () => {
    const socket = fakeSocket();
    const store = crossNodeStore(socket);
    socket.emit("server.status", { crossNode: "lost" });
    socket.emit("server.status", { crossNode: "broken" });
    socket.emit("server.status", "lost");
    expect(store.get()).toBe("lost");
  });

  it("is one store per socket", () => {
    const socket = fakeSocket();
    expect(crossNodeStore(socket)).toBe(crossNodeStore(socket));
  });

  it("shows a notice only while the other servers are lost", () => {
    expect(crossNodeNotice("lost")).toMatch(/paused.*still works/);
    expect(crossNodeNotice("connected")).toBeNull();
    expect(crossNodeNotice("single")).toBeNull();
    expect(crossNodeNotice(null)).toBeNull();
  });
});
