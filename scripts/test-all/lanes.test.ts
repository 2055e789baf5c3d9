import { describe, expect, it } from "vitest";
import { runLanes } from "./lanes.mjs";

/** Parts that end when the test says so; `log` records starts and ends in order. */
function controlled() {
  const log: string[] = [];
  const finish = new Map<string, (result: string) => void>();
  const run = (part: { name: string }) =>
    new Promise<{ name: string; result: string }>((resolve) => {
      log.push(`start ${part.name}`);
      finish.set(part.name, (result) => (log.push(`end ${part.name}`), resolve({ name: part.name, result })));
    });
  const end = async (name: string, result = "passed") => {
    await new Promise((r) => setImmediate(r));
    finish.get(name)!(result);
    await new Promise((r) => setImmediate(r));
  };
  return { log, run, end };
}

describe("runLanes", () => {
  it("runs the lanes at once and a lane's parts one after another; a part waits for its needs in other lanes", async () => {
    const { log, run, end } = controlled();
    const parts = [{ name: "build" }, { name: "format" }, { name: "unit" }, { name: "e2e", needs: ["build"] }];
    const all = runLanes(
      parts,
      [
        ["build", "e2e"],
        ["format", "unit"],
      ],
      run,
    );
    await end("format");
    expect(log).toEqual(["start build", "start format", "end format", "start unit"]);
    await end("build");
    expect(log.slice(4)).toEqual(["end build", "start e2e"]);
    await end("unit");
    await end("e2e", "failed");
    expect((await all).map((o) => `${o.name} ${o.result}`)).toEqual(["build passed", "format passed", "unit passed", "e2e failed"]);
  });

  it("a part waits for the parts it comes after, in another lane, and runs whatever their outcome", async () => {
    const { log, run, end } = controlled();
    const parts = [{ name: "integration" }, { name: "e2e", after: ["pg"] }, { name: "unit" }, { name: "pg" }];
    const all = runLanes(
      parts,
      [
        ["integration", "e2e"],
        ["unit", "pg"],
      ],
      run,
    );
    await end("integration");
    await end("unit");
    expect(log).toEqual(["start integration", "start unit", "end integration", "end unit", "start pg"]);
    await end("pg", "failed");
    expect(log.slice(5)).toEqual(["end pg", "start e2e"]);
    await end("e2e");
    expect((await all).map((o) => `${o.name} ${o.result}`)).toEqual(["integration passed", "e2e passed", "unit passed", "pg failed"]);
  });

  it("passes over a part whose need did not pass, saying which, and goes on with its lane", async () => {
    const { log, run, end } = controlled();
    const parts = [{ name: "build" }, { name: "typecheck", needs: ["build"] }, { name: "integration", needs: ["build"] }, { name: "lint" }];
    const all = runLanes(
      parts,
      [
        ["build", "integration"],
        ["typecheck", "lint"],
      ],
      run,
    );
    await end("build", "failed");
    await end("lint");
    expect(log).toEqual(["start build", "end build", "start lint", "end lint"]);
    expect(await all).toEqual([
      { name: "build", result: "failed" },
      { name: "typecheck", result: "not run", note: "build failed" },
      { name: "integration", result: "not run", note: "build failed" },
      { name: "lint", result: "passed" },
    ]);
  });

  it("a skipped need counts as passed; a need that is not among the parts is not waited for", async () => {
    const { run, end } = controlled();
    const all = runLanes([{ name: "pg" }, { name: "after", needs: ["pg", "elsewhere"] }], [["pg", "after"]], run);
    await end("pg", "skipped");
    await end("after");
    expect((await all).map((o) => o.result)).toEqual(["skipped", "passed"]);
  });

  it("passes over what notRun names (an interrupt)", async () => {
    const { run, end } = controlled();
    let interrupted = false;
    const all = runLanes([{ name: "a" }, { name: "b" }], [["a", "b"]], run, () => (interrupted ? "interrupted" : null));
    await new Promise((r) => setImmediate(r));
    interrupted = true;
    await end("a");
    expect((await all)[1]).toEqual({ name: "b", result: "not run", note: "interrupted" });
  });

  it("refuses lanes that leave a part out or name one twice", async () => {
    await expect(runLanes([{ name: "a" }, { name: "b" }], [["a"]], async (p) => ({ name: p.name, result: "passed" }))).rejects.toThrow(/missing b/);
    await expect(runLanes([{ name: "a" }], [["a"], ["a"]], async (p) => ({ name: p.name, result: "passed" }))).rejects.toThrow(/each part once/);
  });
});
