import pino, { type DestinationStream } from "pino";
import { createLog, levelFrom, type Logger } from "../log/create-log";
import { readableLine } from "../log/readable";

export type { Logger };

// Next bundles route handlers apart from server.ts, so module singletons exist twice;
// globalThis is the one object both see.
const KEY = Symbol.for("parley.log");
type Shared = { log: Logger; secrets: Set<() => string | undefined> };
type Holder = { [KEY]?: Shared };

/** Lines on stderr: JSON in production, readable otherwise (asked at each line: server.ts settles NODE_ENV after its imports). */
function stderr(): DestinationStream {
  const out = pino.destination({ fd: 2, sync: true });
  return { write: (line: string) => void out.write(process.env.NODE_ENV === "production" ? line : readableLine(line)) };
}

function open(): Shared {
  const secrets = new Set<() => string | undefined>();
  return { secrets, log: createLog({ destination: stderr(), level: levelFrom(process.env), secrets: () => [...secrets].map((secret) => secret()) }) };
}

const shared = ((globalThis as Holder)[KEY] ??= open());

/**
 * The server's log. A child takes its parent's level and bindings when it is made: make children
 * where they are used, not at a module's top (before `configureLog`).
 */
export const log: Logger = shared.log;

/** Once the environment is read (a .env file too): its level (PARLEY_LOG_LEVEL), and the node every line names. */
export function configureLog(node: string): void {
  log.level = levelFrom(process.env);
  log.setBindings({ node });
}

/** A secret no line may hold besides the environment's: the server token a server made for its database. */
export function hideInLogs(secret: () => string | undefined): void {
  shared.secrets.add(secret);
}
