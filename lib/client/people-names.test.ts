import { describe, expect, it } from "vitest";
import type { Ack } from "../protocol/socket";
import type { RequestJson } from "./api";
import { createPeopleNames, NAMES_PATH } from "./people-names";

/** A socket that only records handlers, and fires them on demand. */
function fakeSocket(connected: boolean) {
  const handlers = new Map<string, (...args: unknown[]) => void>();
  return {
    connected,
    on: (event: string, handler: (...args: unknown[]) => void) => handlers.set(event, handler),
    fire: (event: string, ...args: unknown[]) => handlers.get(event)?.(...args),
  };
}

describe("the names a tab shows people by", () => {
  it("are the defaults until read, then the directory's; asked again after a failure", async () => {
    const answers: Array<Ack<unknown>> = [
      { ok: false, error: { code: "unavailable", message: "away" } },
      { ok: true, data: { names: { local: "Boss", alice: "Ann" } } },
    ];
    const paths: string[] = [];
    const names = createPeopleNames((async (path: string) => (paths.push(path), answers.shift()!)) as RequestJson);
    expect(names.nameOf()("local")).toBe("Administrator");
    await names.load();
    expect(names.nameOf()("local")).toBe("Administrator");
    await names.load();
    await names.load();
    expect(paths).toEqual([NAMES_PATH, NAMES_PATH]);
    expect([names.nameOf()("local"), names.nameOf()("alice"), names.nameOf()("gone")]).toEqual(["Boss", "Ann", "gone"]);
  });

  it("change at a rename heard on the socket, telling whoever draws them; a reconnect reads them all again", async () => {
    let asked = 0;
    const directory = [{ alice: "alice" }, { alice: "Ally", bob: "Rob" }];
    const names = createPeopleNames((async () => ({ ok: true, data: { names: directory[asked++] } })) as RequestJson);
    const socket = fakeSocket(false);
    names.listenTo(socket);
    names.listenTo(socket);
    let draws = 0;
    const stop = names.subscribe(() => draws++);
    await names.load();
    const before = names.nameOf();
    socket.fire("person.renamed", { name: "alice", displayName: "Ann" });
    // Not a rename: ignored.
    socket.fire("person.renamed", { name: 42 });
    expect(names.nameOf()("alice")).toBe("Ann");
    expect(names.nameOf()).not.toBe(before);
    // The first connect is the page's own: its load already read them.
    socket.fire("connect");
    expect(asked).toBe(1);
    socket.fire("connect");
    await new Promise((r) => setTimeout(r, 0));
    expect(asked).toBe(2);
    expect([names.nameOf()("alice"), names.nameOf()("bob")]).toEqual(["Ally", "Rob"]);
    expect(draws).toBe(3);
    stop();
    names.renamed({ name: "bob", displayName: "Bobby" });
    expect(draws).toBe(3);
    expect(names.nameOf()("bob")).toBe("Bobby");
  });
});
