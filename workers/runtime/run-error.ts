import { inspect } from "node:util";
import { MAX_ERROR_DETAIL_CHARS, type RunError } from "../../lib/protocol/ipc";
import { RuntimeError } from "./errors";

/**
 * How a run's failure is reported: the runtime's own errors and AgentError keep their message,
 * anything else gets a short line that says nothing of its text. `detail` carries the raw text
 * and stack for the server's log.
 */
export function runErrorOf(err: unknown, functionName: string): RunError {
  const detail = describe(err).slice(0, MAX_ERROR_DETAIL_CHARS);
  if (err instanceof RuntimeError) return { code: err.code, message: err.message || err.name, detail };
  return { code: "unexpected_error", message: `${functionName} stopped because of an unexpected error.`, detail };
}

function describe(err: unknown): string {
  try {
    return inspect(err, { depth: 4, breakLength: Infinity });
  } catch {
    return "(an error that cannot be described)";
  }
}
