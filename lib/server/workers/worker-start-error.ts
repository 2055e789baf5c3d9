import { AppError } from "../../protocol/errors";

const BRAND = Symbol.for("parley.worker-start-error");

/**
 * No worker process could be started. `message` is safe to show anyone; `detail` is for the
 * operator's log: the last attempt's exit and the tail of its stderr (an import error, say).
 */
export class WorkerStartError extends AppError {
  // AppError's own instanceof check is by brand; without this every AppError would pass as one.
  static [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
  }

  readonly [BRAND] = true;

  constructor(
    readonly attempts: number,
    readonly detail: string,
  ) {
    super("unavailable", `No worker process could be started (${attempts} ${attempts === 1 ? "try" : "tries"}).`);
    this.name = "WorkerStartError";
  }
}

/** One line that says why a start failed: the thrown error's line from stderr, if there is one. */
export function summarizeStartFailure(reason: string, stderrTail: string): string {
  const lines = stderrTail
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  const thrown = lines.find((l) => /^([A-Z]\w*)?(Error|Exception)\b.*:/.test(l)) ?? lines.filter((l) => !/^Node\.js v\d/.test(l)).at(-1);
  return (thrown ? `${reason}: ${thrown}` : reason).slice(0, 500);
}
