import pino, { type DestinationStream, type Logger, type LoggerOptions } from "pino";
import { redact } from "./redact";

export type { Logger };

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** PARLEY_LOG_LEVEL; by default info, and warn under Vitest (quiet, but errors and warnings show). */
export function levelFrom(env: Record<string, string | undefined>): LogLevel {
  const wanted = env.PARLEY_LOG_LEVEL?.trim().toLowerCase();
  return LOG_LEVELS.find((l) => l === wanted) ?? (env.VITEST ? "warn" : "info");
}

/** Fields whose value never reaches a line, at the top or one level down (`req.headers.cookie` too). */
const SECRET_FIELDS = ["authorization", "cookie", "token", "serverToken", "apiKey", "password", "secret"];
const REDACT_PATHS = SECRET_FIELDS.flatMap((f) => [f, `*.${f}`, `*.headers.${f}`]);

/** The secrets every process knows from its environment: the server token and the model's API key. */
const envSecrets = () => [process.env.PARLEY_TOKEN, process.env.OPENAI_API_KEY];

export interface LogOptions {
  destination: DestinationStream;
  level?: LogLevel;
  /** Secrets to keep out of every line besides the environment's (read at each line: a rotated token counts). */
  secrets?: () => ReadonlyArray<string | undefined>;
  mixin?: LoggerOptions["mixin"];
}

/**
 * A pino logger whose lines hold no secret: known fields are censored, and each finished line
 * (message, error stacks, any nested string) passes through `redact` with the secrets, raw and as
 * JSON escapes them.
 */
export function createLog({ destination, level = "info", secrets = () => [], mixin }: LogOptions): Logger {
  const scrub = (line: string): string => {
    const known = [...envSecrets(), ...secrets()].filter((s): s is string => Boolean(s));
    return redact(line, [...new Set([...known, ...known.map((s) => JSON.stringify(s).slice(1, -1))])]);
  };
  return pino({ level, mixin, redact: { paths: REDACT_PATHS, censor: "[redacted]" }, hooks: { streamWrite: scrub } }, destination);
}
