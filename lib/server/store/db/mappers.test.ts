import { describe, expect, it } from "vitest";
import type { Run as RunRow } from "../../../generated/prisma/client";
import { toRun } from "./mappers";

const at = new Date("2026-01-01T00:00:00.000Z");
const row = (startedBy: string | null): RunRow =>
  ({
    id: "r1",
    sessionId: "s1",
    ownerId: "local",
    functionName: "deploy",
    input: "null",
    status: "succeeded",
    result: null,
    error: null,
    progress: null,
    policy: "{}",
    canAsk: true,
    parentRunId: null,
    rootRunId: "r1",
    activeMs: 0,
    attempts: 1,
    turnOf: null,
    startedBy,
    createdAt: at,
    updatedAt: at,
    finishedAt: null,
  }) as unknown as RunRow;

describe("a run's stored starter", () => {
  it("reads as stored, and an older row's surface 'cli' (a client's header) as the client's word", () => {
    expect(toRun(row(JSON.stringify({ surface: "rest", via: "api_token", tokenName: "ci" }))).startedBy).toEqual({ surface: "rest", via: "api_token", tokenName: "ci" });
    expect(toRun(row(JSON.stringify({ surface: "cli", via: "server_token" }))).startedBy).toEqual({ surface: "rest", via: "server_token", clientSays: "cli" });
    expect(toRun(row(JSON.stringify({ surface: "socket", via: "server_token" }))).startedBy).toBeNull();
    expect(toRun(row(null)).startedBy).toBeNull();
  });
});
