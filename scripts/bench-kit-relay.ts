/**
 * A bare Socket.IO relay (no database), run as a child of a benchmark: the floor of a broadcast.
 * Its clients all join one room. With a Redis URL (argv[2]) it uses @socket.io/redis-adapter, so
 * two of them on one Redis broadcast to each other's clients, as two Parley nodes do.
 * - a client's "reply" ({ id }) is broadcast as "retracted" to the room's other clients, then acked;
 * - the parent's { stream: n, delayMs } (IPC) broadcasts n "chunk"s shaped like `message.delta`, one
 *   every delayMs, each stamped with process.hrtime.bigint() just before its emit; then { streamed: n }.
 * Tells its parent its port over IPC.
 */
import { createAdapter } from "@socket.io/redis-adapter";
import { Redis } from "ioredis";
import { createServer } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { Server } from "socket.io";
import { stampedPiece } from "../workers/test-functions/probes";

if (!process.send) throw new Error("bench-kit-relay.ts runs as a forked child: fork(it, [redisUrl?])");
const redisUrl = process.argv[2];
const http = createServer();
const io = new Server(http, { serveClient: false });
if (redisUrl) io.adapter(createAdapter(new Redis(redisUrl), new Redis(redisUrl), { key: "bench-relay" }));

io.on("connection", (socket) => {
  void socket.join("session");
  socket.on("reply", ({ id }: { id: string }, ack: (r: { ok: boolean }) => void) => {
    socket.to("session").emit("retracted", { id, status: "answered" });
    ack({ ok: true });
  });
});

process.on("message", (m: { stream: number; delayMs: number }) => {
  void (async () => {
    let at = 0;
    for (let i = 0; i < m.stream; i++) {
      const delta = stampedPiece();
      io.to("session").emit("chunk", { sessionId: "session", runId: "run", seq: 0, at, delta });
      at += delta.length;
      await sleep(m.delayMs);
    }
    process.send!({ streamed: m.stream });
  })();
});

http.listen(0, "127.0.0.1", () => process.send!({ port: (http.address() as { port: number }).port }));
process.on("disconnect", () => process.exit(0));
