import { describe, expect, it } from "vitest";
import type { PersonRenamed } from "../../protocol/display-names";
import { DomainEvents } from "../events";
import { announceRename } from "./rename-announcement";

const person = (name: string, admin = false) => ({ name, displayName: name, admin, createdAt: "2026-12-07T00:00:00.000Z" });

describe("announceRename", () => {
  it("tells renames in the order they happened, however long each audience takes to read", async () => {
    const events = new DomainEvents();
    const heard: Array<[PersonRenamed, string[]]> = [];
    events.on("person.renamed", (renamed, people) => heard.push([renamed, people]));
    // The first rename's audience is read slowly, the second's at once.
    let slow: (people: string[]) => void = () => {};
    const sharing = [new Promise<string[]>((resolve) => (slow = resolve)), Promise.resolve(["carol"])];
    const announce = announceRename({ events, members: { sharingWith: () => sharing.shift()! }, everyone: async () => [person("ann", true), person("bob")] });
    announce({ name: "alice", displayName: "Ann" });
    announce({ name: "alice", displayName: "Annie" });
    await new Promise((r) => setTimeout(r, 10));
    expect(heard).toEqual([]);
    slow(["bob"]);
    await expect.poll(() => heard.map(([r]) => r.displayName)).toEqual(["Ann", "Annie"]);
    expect(heard[0]![1].sort()).toEqual(["alice", "ann", "bob", "local"]);
    expect(heard[1]![1].sort()).toEqual(["alice", "ann", "carol", "local"]);
  });

  it("one that could not be told does not hold back the next", async () => {
    const events = new DomainEvents();
    const heard: string[] = [];
    events.on("person.renamed", (renamed) => heard.push(renamed.displayName));
    const sharing = [Promise.reject(new Error("database gone")), Promise.resolve([])];
    const announce = announceRename({ events, members: { sharingWith: () => sharing.shift()! }, everyone: async () => [] });
    announce({ name: "alice", displayName: "Ann" });
    announce({ name: "alice", displayName: "Annie" });
    await expect.poll(() => heard).toEqual(["Annie"]);
  });
});
