import { afterEach, beforeEach, expect, it } from "vitest";
import { openStoreTestDb, type FixtureDb, type StoreTestDb } from "../../../../tests/helpers/fixture-db";
import { createRunReads } from "./run-reads";

// A run's detail reads, on whichever engine the suite runs (SQLite, or PostgreSQL under `npm run test:pg`).
let t: StoreTestDb;
let fixture: FixtureDb;
beforeEach(async () => {
  t = await openStoreTestDb("parley_runreads");
  ({ fixture } = t);
  await fixture.chatSession.create({ data: { id: "s1", title: "t" } });
  const run = (id: string, parentRunId: string | null, rootRunId: string) =>
    fixture.run.create({ data: { id, sessionId: "s1", functionName: "f", input: "{}", status: "running", parentRunId, rootRunId } });
  await run("root", null, "root");
  await run("child", "root", "root");
  await run("other", null, "other");
  await fixture.journalEntry.create({ data: { runId: "root", seq: 2, kind: "call", name: "f", digest: "d2", childRunId: "child" } });
  await fixture.journalEntry.create({ data: { runId: "root", seq: 1, kind: "step", name: "s", digest: "d1", output: '"ok"' } });
});
afterEach(() => t.close());

it("a run, its journal in order, and the runs of its tree", async () => {
  const reads = createRunReads(t.db.exec);
  expect(await reads.find("child")).toMatchObject({ id: "child", parentRunId: "root", rootRunId: "root" });
  expect(await reads.find("nope")).toBeUndefined();
  expect(await reads.journalOf("root")).toEqual([
    { seq: 1, kind: "step", name: "s", questionId: null, childRunId: null, output: '"ok"' },
    { seq: 2, kind: "call", name: "f", questionId: null, childRunId: "child", output: null },
  ]);
  const tree = await reads.tree("child", "root");
  expect(tree.sort((a, b) => a.id.localeCompare(b.id))).toEqual([
    { id: "child", parentRunId: "root" },
    { id: "root", parentRunId: null },
  ]);
});
