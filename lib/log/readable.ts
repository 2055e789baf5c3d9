/** What the readable form leaves out: said by the line's shape, or the same on every line of a process. */
const UNSHOWN = new Set(["level", "time", "msg", "pid", "hostname", "node", "err"]);
const LABELS: Record<number, string> = { 10: "TRACE", 20: "DEBUG", 30: "INFO", 40: "WARN", 50: "ERROR", 60: "FATAL" };

/** One JSON log line for a person: time, level, message, the ids it carries, then the error's stack. */
export function readableLine(json: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  const time = typeof entry.time === "number" ? new Date(entry.time).toISOString().slice(11, 23) : "";
  const fields = Object.entries(entry)
    .filter(([key]) => !UNSHOWN.has(key))
    .map(([key, value]) => `${key}=${typeof value === "string" ? value : JSON.stringify(value)}`);
  const err = entry.err as { stack?: string; message?: string } | undefined;
  // The ids beside the message's first line; what follows it, and the error's stack, below.
  const msg = entry.msg == null ? "" : typeof entry.msg === "string" ? entry.msg : JSON.stringify(entry.msg);
  const [head, ...rest] = msg.split("\n");
  const below = [...rest, ...(err ? (err.stack ?? err.message ?? JSON.stringify(err)).split("\n") : [])];
  return `${time} ${LABELS[entry.level as number] ?? "LOG"} ${head}${fields.length > 0 ? `  (${fields.join(" ")})` : ""}${below.map((l) => `\n    ${l}`).join("")}\n`;
}
