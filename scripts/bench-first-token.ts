/**
 * Message → first streamed token, with the offline scripted provider, against the production
 * build: N chat turns one after another in one session; per turn, the time from sending the
 * message (REST) to the first `message.delta` of its reply on a socket. Beside it, the floor
 * measured in the same run: a Socket.IO round trip to the same server (an acked `session.leave`,
 * which touches no database). Prints figures as p50/p99 and their ratio; asserts nothing.
 * Usage: npm run build && npm run bench:first-token [-- --turns 50]
 */
import { parseArgs } from "node:util";
import { io } from "socket.io-client";
import { api, fmt, machine, percentile, withServer } from "./bench-kit";
import { authHeaders, TEST_TOKEN } from "../tests/helpers/server-process";

const { values } = parseArgs({ options: { turns: { type: "string", default: "50" }, text: { type: "string", default: "hello" } } });
const TURNS = Number(values.turns);

console.log(`\nmessage → first streamed token, scripted provider, ${TURNS} turns (${machine()})`);
await withServer({}, async (server) => {
  const session = await api<{ id: string }>(server, "/api/sessions", { title: "bench" });
  const socket = io(server.url, { transports: ["websocket"], reconnection: false, auth: { token: TEST_TOKEN } });
  await new Promise<void>((resolve, reject) => socket.once("connect", () => resolve()).once("connect_error", reject));
  const joined = (await socket.emitWithAck("session.join", { sessionId: session.id })) as { ok: boolean };
  if (!joined.ok) throw new Error(`session.join failed: ${JSON.stringify(joined)}`);

  const firstDelta = new Map<string, number>();
  const ended = new Set<string>();
  socket.on("message.delta", (d: { runId: string }) => {
    if (!firstDelta.has(d.runId)) firstDelta.set(d.runId, performance.now());
  });
  socket.on("run.updated", (r: { id: string; status: string }) => {
    if (!["running", "waiting_input"].includes(r.status)) ended.add(r.id);
  });

  const waitFor = async (check: () => boolean, ms = 30_000) => {
    const end = performance.now() + ms;
    while (!check()) {
      if (performance.now() > end) throw new Error("timed out waiting for the turn");
      await new Promise((r) => setTimeout(r, 1));
    }
  };

  const firstToken: number[] = [];
  const roundTrip: number[] = [];
  for (let i = 0; i < TURNS; i++) {
    const t0 = performance.now();
    await socket.emitWithAck("session.leave", { sessionId: "floor" });
    roundTrip.push(performance.now() - t0);

    const sent = performance.now();
    const res = await fetch(`${server.url}/api/sessions/${session.id}/messages`, {
      method: "POST",
      headers: { ...authHeaders(), "content-type": "application/json" },
      body: JSON.stringify({ text: values.text }),
    });
    const run = (await res.json()) as { id?: string };
    if (res.status !== 201 || !run.id) throw new Error(`message ${i + 1}: ${res.status} ${JSON.stringify(run)}`);
    await waitFor(() => firstDelta.has(run.id!));
    firstToken.push(firstDelta.get(run.id)! - sent);
    await waitFor(() => ended.has(run.id!));
  }
  socket.disconnect();

  const p = (xs: number[], q: number) => fmt(percentile(xs, q), 2).padStart(7);
  console.log(`  Socket.IO round trip (floor)        p50 ${p(roundTrip, 50)} ms   p99 ${p(roundTrip, 99)} ms`);
  console.log(
    `  message → first streamed token      p50 ${p(firstToken, 50)} ms   p99 ${p(firstToken, 99)} ms   (×${fmt(percentile(firstToken, 50) / percentile(roundTrip, 50), 1)} the floor at p50)`,
  );
});
