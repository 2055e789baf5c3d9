import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { MessageDelta, SessionSnapshot } from "../lib/protocol/entities";
import type { Ack } from "../lib/protocol/socket";
import { STAMPED_PIECE, streamText } from "../workers/test-functions/probes";
import { nextEvent, startTestApp, waitFor, type TestApp, type TestClient } from "./helpers/test-app";

let app: TestApp;
beforeEach(async () => {
  app = await startTestApp();
});
afterEach(async () => {
  await app.close();
});

const join = async (c: TestClient, sessionId: string) => {
  const ack: Ack<SessionSnapshot> = await c.emitWithAck("session.join", { sessionId });
  if (!ack.ok) throw new Error(ack.error.message);
  return ack.data;
};

/** Collects what a tab sees of one reply: the snapshot's text, then each delta at its offset. */
function follow(c: TestClient) {
  const deltas: MessageDelta[] = [];
  c.on("message.delta", (d) => deltas.push(d));
  return {
    deltas,
    textFrom(start: string) {
      let text = start;
      for (const d of deltas) if (d.at === text.length) text += d.delta;
      return text;
    },
  };
}

describe("streaming replies over real sockets", () => {
  it("a tab joining mid-stream gets the partial text in its snapshot and the rest as message.delta, then the stored message", async () => {
    const session = await app.parley.sessions.createSession();
    const first = await app.client();
    await join(first, session.id);
    const firstSeen = follow(first);
    const full = streamText(60).join("");

    const run = await app.parley.runs.startRun({ sessionId: session.id, functionName: "test.stream", input: { words: 60, delayMs: 20 } });
    await waitFor(() => firstSeen.deltas.length >= 10);

    const late = await app.client();
    const lateSeen = follow(late);
    const created = nextEvent(late, "message.created");
    const snapshot = await join(late, session.id);
    expect(snapshot.streaming).toHaveLength(1);
    const partial = snapshot.streaming![0]!;
    expect(partial).toMatchObject({ runId: run.id, seq: 0 });
    expect(partial.text.length).toBeGreaterThan(0);
    expect(full.startsWith(partial.text)).toBe(true);
    expect(partial.text.length).toBeLessThan(full.length);

    const message = await created;
    expect(message).toMatchObject({ runId: run.id, role: "agent", text: full, stopped: false });
    // The late tab rebuilt the whole reply from its snapshot and the deltas; the first from the deltas alone.
    expect(lateSeen.textFrom(partial.text)).toBe(full);
    expect(firstSeen.textFrom("")).toBe(full);
    // Once stored, the reply is no longer streaming.
    expect((await join(late, session.id)).streaming).toEqual([]);
    await waitFor(async () => (await app.parley.runs.getRun({ id: run.id })).status === "succeeded");
  });

  it("Stop mid-stream stores the partial reply marked as stopped, and the stream is gone", async () => {
    const session = await app.parley.sessions.createSession();
    const tab = await app.client();
    await join(tab, session.id);
    const seen = follow(tab);
    const run = await app.parley.runs.startRun({ sessionId: session.id, functionName: "test.stream", input: { words: 2_000, delayMs: 20 } });
    await waitFor(() => seen.deltas.length >= 8);

    const created = nextEvent(tab, "message.created");
    await app.parley.runs.stopRun({ id: run.id });
    const message = await created;
    expect(message).toMatchObject({ runId: run.id, role: "agent", stopped: true });
    expect(message.text.length).toBeGreaterThan(0);
    expect(streamText(2_000).join("").startsWith(message.text)).toBe(true);
    expect(message.text).toBe(seen.textFrom(""));

    await waitFor(async () => (await app.parley.runs.getRun({ id: run.id })).status === "cancelled");
    const snapshot = await join(tab, session.id);
    expect(snapshot.streaming).toEqual([]);
    expect(snapshot.messages.find((m) => m.role === "agent" && m.runId === run.id)).toMatchObject({ stopped: true, text: message.text });
  });

  it("a stamped stream (bench-stream's) sends the worker's monotonic clock as each piece leaves it, in order", async () => {
    const session = await app.parley.sessions.createSession();
    const tab = await app.client();
    await join(tab, session.id);
    const seen = follow(tab);
    const heardAt: bigint[] = [];
    tab.on("message.delta", () => heardAt.push(process.hrtime.bigint()));
    const created = nextEvent(tab, "message.created");
    const before = process.hrtime.bigint();
    await app.parley.runs.startRun({ sessionId: session.id, functionName: "test.stream", input: { words: 5, delayMs: 5, stamped: true } });
    const message = await created;

    expect(seen.deltas).toHaveLength(5);
    const stamps = seen.deltas.map((d) => BigInt(STAMPED_PIECE.exec(d.delta)?.[1] ?? "-1"));
    // Taken in the worker, on the clock this process shares: after the start, before each arrival, increasing.
    stamps.forEach((stamp, i) => {
      expect(stamp).toBeGreaterThan(i === 0 ? before : stamps[i - 1]!);
      expect(stamp).toBeLessThanOrEqual(heardAt[i]!);
    });
    expect(message.text).toBe(seen.textFrom(""));
  });
});
