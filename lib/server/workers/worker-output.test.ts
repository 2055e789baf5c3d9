import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLog } from "../../log/create-log";
import { logWorkerOutput } from "./worker-output";

async function relay(name: "stdout" | "stderr", text: string) {
  const lines: Record<string, unknown>[] = [];
  const said: string[] = [];
  const log = createLog({ destination: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) }, level: "trace" }).child({ worker: 42 });
  const stream = new PassThrough();
  logWorkerOutput(stream, name, log, (text) => said.push(text));
  stream.end(text);
  await new Promise((r) => setImmediate(r));
  return { lines, said };
}

describe("a worker's output in the server's log", () => {
  it("a line of the worker's log keeps its level and its run, and names the worker", async () => {
    const worker = { level: 50, time: 1, pid: 7, hostname: "w", runId: "r1", fn: "chat", msg: "agent-worker: run r1 fails", err: { type: "Error", message: "boom", stack: "Error: boom\n    at f" } };
    const { lines, said } = await relay("stderr", `${JSON.stringify(worker)}\n${JSON.stringify({ level: 30, runId: "r2", stream: "stdout", msg: "hello from r2" })}\n`);
    expect(lines).toEqual([
      expect.objectContaining({ level: 50, worker: 42, runId: "r1", fn: "chat", msg: "agent-worker: run r1 fails", err: worker.err }),
      expect.objectContaining({ level: 30, worker: 42, runId: "r2", stream: "stdout", msg: "hello from r2" }),
    ]);
    expect(lines[0]!.pid).toBe(process.pid);
    expect(said).toEqual(["agent-worker: run r1 fails\nError: boom\n    at f", "hello from r2"]);
  });

  it("any other line is logged as it came, a warning from stderr", async () => {
    const { lines, said } = await relay("stderr", "Error: Cannot find module 'x'\n\n{not json\n");
    expect(lines.map((l) => [l.level, l.stream, l.msg])).toEqual([
      [40, "stderr", "Error: Cannot find module 'x'"],
      [40, "stderr", "{not json"],
    ]);
    expect(said).toEqual(["Error: Cannot find module 'x'", "{not json"]);
    expect((await relay("stdout", "printed\n")).lines.map((l) => [l.level, l.msg])).toEqual([[30, "printed"]]);
  });
});
