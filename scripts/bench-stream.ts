/**
 * A streamed reply's pieces reaching the tabs: 10 socket tabs of ONE session of the production build
 * (SQLite, one node). Per round, a run of `test.stream` with `stamped: true` writes --chunks pieces,
 * one every --delay-ms, each carrying the worker's monotonic clock as it sends it (workers → server
 * over IPC → Socket.IO → tabs); the figure is, per piece, the time from that stamp to the last of the
 * tabs getting its `message.delta`. Beside it, the floor: a bare Socket.IO relay (bench-kit-relay.ts)
 * broadcasting as many stamped chunks, as often, to as many clients; rounds of each alternate. Both
 * are read in this process, on the clock the worker and the relay share with it
 * (process.hrtime.bigint()). The first --skip pieces of each round are left out (the run's start is
 * broadcast then). Prints p50/p99 and ratios; asserts nothing.
 * Usage: npm run build && npm run bench:stream [-- --tabs 10 --rounds 20 --chunks 50 --delay-ms 5]
 */
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { api, fmt, machine, row, withServer } from "./bench-kit";
import { openTabs, TabLog } from "./bench-kit-tabs";
import { msBetween, relayClient, startRelay } from "./bench-kit-swarm-parent";
import { STAMPED_PIECE } from "../workers/test-functions/probes";

const { values } = parseArgs({
  options: {
    tabs: { type: "string", default: "10" },
    rounds: { type: "string", default: "20" },
    chunks: { type: "string", default: "50" },
    "delay-ms": { type: "string", default: "5" },
    skip: { type: "string", default: "5" },
  },
});
const TABS = Number(values.tabs);
const ROUNDS = Number(values.rounds);
const CHUNKS = Number(values.chunks);
const DELAY_MS = Number(values["delay-ms"]);
const SKIP = Number(values.skip);

/** Per stamped piece (keyed by its stamp), when the last of `sockets` got it: ms from the stamp, in the order they completed. */
function stampLog(sockets: { on(event: string, listener: (payload: any) => void): unknown }[], event: string) {
  const pending = new Map<string, { count: number; last: bigint }>();
  const latencies: number[] = [];
  for (const socket of sockets) {
    socket.on(event, (d: { delta: string }) => {
      const now = process.hrtime.bigint();
      const stamp = STAMPED_PIECE.exec(d.delta)?.[1];
      if (stamp === undefined) return;
      const p = pending.get(stamp) ?? { count: 0, last: now };
      p.count++;
      if (now > p.last) p.last = now;
      pending.set(stamp, p);
      if (p.count === sockets.length) {
        pending.delete(stamp);
        latencies.push(msBetween(BigInt(stamp), p.last));
      }
    });
  }
  return {
    latencies,
    /** Waits until `n` pieces have reached every socket since `from` latencies. */
    async count(from: number, n: number, ms = 60_000) {
      const end = Date.now() + ms;
      while (latencies.length < from + n) {
        if (Date.now() > end) throw new Error(`timed out: ${latencies.length - from} of ${n} pieces reached all ${sockets.length}`);
        await new Promise((r) => setTimeout(r, 5));
      }
    },
  };
}

console.log(`\nA streamed reply's pieces → ${TABS} tabs of one session, ${ROUNDS} × ${CHUNKS} pieces every ${DELAY_MS} ms (${machine()}; load average ${fmt(loadavg()[0]!)})`);
await withServer({ PARLEY_PARK_AFTER_MS: "600000" }, async (server) => {
  const session = await api<{ id: string }>(server, "/api/sessions", { title: "bench" });
  const tabs = await openTabs(server, session.id, TABS);
  const runs = new TabLog(tabs, { "run.updated": (r: { id: string; status: string }) => `${r.id}:${r.status}` });
  const relay = await startRelay();
  const clients = await Promise.all(Array.from({ length: TABS }, () => relayClient(relay.url)));
  const app = stampLog(tabs, "message.delta");
  const floor = stampLog(clients, "chunk");
  const kept = { app: [] as number[], floor: [] as number[] };
  try {
    for (let r = 0; r < ROUNDS; r++) {
      const f0 = floor.latencies.length;
      await relay.stream(CHUNKS, DELAY_MS);
      await floor.count(f0, CHUNKS);
      kept.floor.push(...floor.latencies.slice(f0 + SKIP));

      const a0 = app.latencies.length;
      const run = await api<{ id: string }>(server, `/api/sessions/${session.id}/runs`, { function: "test.stream", input: { words: CHUNKS, delayMs: DELAY_MS, stamped: true } });
      await app.count(a0, CHUNKS);
      await runs.all(`${run.id}:succeeded`);
      kept.app.push(...app.latencies.slice(a0 + SKIP));
    }
  } finally {
    for (const c of [...clients, ...tabs]) c.disconnect();
    await relay.close();
  }
  console.log(row(`floor: bare relay → chunk in all ${TABS} clients`, kept.floor));
  console.log(row(`worker's piece → message.delta in all ${TABS} tabs`, kept.app, kept.floor));
  console.log(`  (${kept.app.length} and ${kept.floor.length} pieces; load average ${fmt(loadavg()[0]!)})`);
});
