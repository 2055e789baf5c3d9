import type { Readable } from "node:stream";
import { createInterface } from "node:readline";
import type { Logger } from "../log";

/** What the server's log says again of its own: the worker's time, pid and host are the server's near enough. */
const RESTATED = new Set(["level", "msg", "time", "pid", "hostname"]);

type Entry = { level: number; msg: string; err?: { stack?: string }; [field: string]: unknown };

/** A line the worker's own log wrote (JSON with a level and a message), or null for anything else. */
function entryOf(line: string): Entry | null {
  if (!line.startsWith("{")) return null;
  try {
    const entry = JSON.parse(line) as Partial<Entry>;
    return typeof entry.level === "number" && typeof entry.msg === "string" ? (entry as Entry) : null;
  } catch {
    return null;
  }
}

/**
 * A worker's output as lines of the server's log: a line of the worker's log keeps its level and
 * fields (the run it belongs to, its function); any other line is logged as it came, a warning
 * from stderr. `said` hears each line as a person would read it (an error's stack after its line).
 */
export function logWorkerOutput(stream: Readable, name: "stdout" | "stderr", log: Logger, said: (text: string) => void = () => {}): void {
  // The worker's log serialized its errors already.
  const relayed = log.child({}, { serializers: { err: (err: unknown) => err } });
  createInterface({ input: stream, crlfDelay: Infinity }).on("line", (line) => {
    if (!line.trim()) return;
    const entry = entryOf(line);
    if (!entry) {
      log[name === "stderr" ? "warn" : "info"]({ stream: name }, line);
      return said(line);
    }
    const fields = Object.fromEntries(Object.entries(entry).filter(([key]) => !RESTATED.has(key)));
    relayed[(log.levels.labels[entry.level] ?? "info") as "info"](fields, entry.msg);
    said(entry.err?.stack ? `${entry.msg}\n${entry.err.stack}` : entry.msg);
  });
}
