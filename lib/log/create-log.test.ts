import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { AppError } from "../protocol/errors";
import { createLog, levelFrom } from "./create-log";
import { readableLine } from "./readable";

const SERVER_TOKEN = "srv-token-0123456789abcdefXYZ";
const MADE_TOKEN = "made-for-this-database_Q9w8e7r6t5y4";
const MODEL_KEY = "model-key-ABCDEF0123456789";
const API_TOKEN = "pat_0a1b2c3d4e5f6a7b_S3cr3tS3cr3tS3cr3tS3cr3tS3cr3t";
const QUOTED = 'odd"secret\\with-escapes';
const SECRETS = [
  SERVER_TOKEN,
  MADE_TOKEN,
  MODEL_KEY,
  "S3cr3tS3cr3tS3cr3tS3cr3tS3cr3t",
  "odd",
  "with-escapes",
  "cookie-hmac-value",
  "b3BhcXVlLWNyZWRlbnRpYWw=",
  "opaque-cookie-value",
  "opaque-password",
];

let lines: string[];
const logTo = () => createLog({ destination: { write: (line: string) => void lines.push(line) }, level: "trace", secrets: () => [MADE_TOKEN, QUOTED] });

beforeEach(() => {
  lines = [];
  vi.stubEnv("PARLEY_TOKEN", SERVER_TOKEN);
  vi.stubEnv("OPENAI_API_KEY", MODEL_KEY);
});
afterEach(() => vi.unstubAllEnvs());

describe("a log line", () => {
  it("holds no token, API token, cookie or model key, wherever they were put", () => {
    const log = logTo();
    log.info(`signed in with ${SERVER_TOKEN} and ${MADE_TOKEN}`);
    log.info({ authorization: `Bearer ${SERVER_TOKEN}`, cookie: `parley_session=alice.1.cookie-hmac-value` }, "headers at the top");
    log.info({ req: { headers: { authorization: `Bearer ${API_TOKEN}`, cookie: "parley_session=bob.2.cookie-hmac-value" } } }, "a request");
    log.info({ settings: { apiKey: MODEL_KEY }, token: MADE_TOKEN }, "fields by their names");
    log.info({ deep: { deeper: { text: `the key was ${MODEL_KEY}`, list: [`GET /?token=${SERVER_TOKEN}&x=1`, API_TOKEN] } } }, "nested text");
    log.error({ err: new Error(`request made with key ${MODEL_KEY}`) }, "an error");
    log.error({ err: new AppError("internal", `token ${API_TOKEN} refused`, { cause: new Error(MODEL_KEY) }) }, "an AppError with a cause");
    log.warn({ err: "a thrown string with Authorization: Bearer sk-abcdefghijklmnop" }, "not an Error");
    log.child({ runId: "r1" }).error(`a child says ${MODEL_KEY} in ${QUOTED}`);
    log.info(`%s and %o`, SERVER_TOKEN, { key: MODEL_KEY });
    // Credentials no pattern knows: their fields' names give them away.
    log.info({ headers: { authorization: "Basic b3BhcXVlLWNyZWRlbnRpYWw=", cookie: "other=opaque-cookie-value" }, password: "opaque-password" }, "by name");

    expect(lines).toHaveLength(11);
    for (const line of lines) {
      for (const secret of SECRETS) expect(line).not.toContain(secret);
      expect(() => JSON.parse(line)).not.toThrow();
      // What a person reads in development is made from the same line.
      for (const secret of SECRETS) expect(readableLine(line)).not.toContain(secret);
    }
    // What is not secret stays: the API token's id, the cookie's name, the ids given.
    expect(lines.join("")).toContain("pat_0a1b2c3d4e5f6a7b_[redacted]");
    expect(JSON.parse(lines[4]!).deep.deeper.list[0]).toBe("GET /?token=[redacted]&x=1");
    expect(JSON.parse(lines[8]!)).toMatchObject({ level: 50, runId: "r1" });
  });

  it("hides a secret the getter gives at the time of the line: a rotated token too", () => {
    let current = "first-token-0123456789";
    const log = createLog({ destination: { write: (line: string) => void lines.push(line) }, secrets: () => [current] });
    log.info(`now ${current}`);
    current = "second-token-9876543210";
    log.info(`now ${current}`);
    expect(lines.join("")).not.toMatch(/first-token|second-token/);
  });
});

describe("the level", () => {
  it("is PARLEY_LOG_LEVEL, else info, or warn under Vitest", () => {
    expect(levelFrom({ PARLEY_LOG_LEVEL: "debug" })).toBe("debug");
    expect(levelFrom({ PARLEY_LOG_LEVEL: " ERROR " })).toBe("error");
    expect(levelFrom({})).toBe("info");
    expect(levelFrom({ PARLEY_LOG_LEVEL: "loud" })).toBe("info");
    expect(levelFrom({ VITEST: "true" })).toBe("warn");
  });
});
