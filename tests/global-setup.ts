import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { isProcessAlive } from "../lib/cli/server-client";

// A server announces itself in a `.server.json` file; one of a PostgreSQL database lies in the
// project's ./data (see server-file.ts), where a test that kills its server without withdrawing
// the announcement leaves it behind. The run fails naming such files.
const DATA = path.resolve(import.meta.dirname, "../data");

function announcements(): string[] {
  try {
    return readdirSync(DATA).filter((name) => name.endsWith(".server.json"));
  } catch {
    return [];
  }
}

/** Whether the announcement names a process that is gone (a live server's own file is no leftover). */
function ofAGoneServer(name: string): boolean {
  try {
    const { pid } = JSON.parse(readFileSync(path.join(DATA, name), "utf8")) as { pid?: unknown };
    return typeof pid !== "number" || !isProcessAlive(pid);
  } catch {
    // removed meanwhile, or unreadable: unreadable is left behind too
    return readdirSync(DATA).includes(name);
  }
}

export default function setup() {
  const before = new Set(announcements());
  return function teardown() {
    const left = announcements().filter((name) => !before.has(name) && ofAGoneServer(name));
    if (left.length) {
      // Vitest reports an error thrown here but still exits 0: set the exit code too.
      process.exitCode = 1;
      throw new Error(
        `Tests left the announcements of servers that are gone in ${DATA}: ${left.join(", ")}. A test that kills a server with SIGKILL must withdraw its announcement (tests/helpers/server-process.ts does).`,
      );
    }
  };
}
