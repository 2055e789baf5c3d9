import { describe, expect, it } from "vitest";
import type { PeopleStore } from "../store/people/people-store";
import { createPeopleCache } from "./people-cache";

type Row = Awaited<ReturnType<PeopleStore["list"]>>[number];

/** A people table whose reads answer when the test says, each with the rows as they were when it began. */
function slowTable() {
  let rows: Row[] = [];
  const pending: Array<() => void> = [];
  let reads = 0;
  return {
    add: (id: string) => void (rows = [...rows, { id, admin: false, addedBy: "local", createdAt: new Date(0) }]),
    list: () => {
      reads++;
      const seen = rows;
      return new Promise<Row[]>((resolve) => pending.push(() => resolve(seen)));
    },
    finishAll: () => pending.splice(0).forEach((finish) => finish()),
    reads: () => reads,
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("the people cache", () => {
  it("a person added while a read is under way is found by a lookup that began after the add (the read under way began before it)", async () => {
    const table = slowTable();
    const cache = createPeopleCache({ list: table.list });
    const early = cache.get("ann");
    table.add("ann");
    const late = cache.get("ann");
    await settle();
    table.finishAll();
    await settle();
    table.finishAll();
    expect(await early).toBeNull();
    expect(await late).toMatchObject({ admin: false });
  });

  it("lookups at once share one read; a name known is not read again within the cache's time", async () => {
    const table = slowTable();
    table.add("ann");
    let clock = 0;
    const cache = createPeopleCache({ list: table.list }, { now: () => clock });
    const both = Promise.all([cache.get("ann"), cache.get("ann")]);
    await settle();
    table.finishAll();
    expect((await both).every((p) => p !== null)).toBe(true);
    expect(table.reads()).toBe(1);
    clock = 500;
    expect(await cache.get("ann")).not.toBeNull();
    expect(table.reads()).toBe(1);
  });
});
