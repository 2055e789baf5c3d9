/**
 * Retraction to many tabs: N sockets (default 1,000) all joined to ONE session of the production
 * build, live worker; per sample, a run of `test.ask` is started, answered from tab 0, and the time
 * from the reply to question.replied in the last of the N-1 other tabs is taken. Beside it, the
 * floor relay (bench-kit-floor.ts) with N clients, measured in the same run. All tabs live in this
 * one process, so both figures include the time this process takes to read N-1 broadcasts. Each
 * reply is sent once no tab has heard anything for --quiet-ms (the run's start has been read; 0:
 * at once, as before issue 29, when the retraction queued behind the start's last broadcasts).
 * Prints p50/p99 and ratios; asserts nothing.
 * Usage: npm run build && npm run bench:fanout [-- --tabs 1000 --samples 50 --quiet-ms 50]
 */
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { api, fmt, machine, memory, row, until, withServer } from "./bench-kit";
import { floorRelay, openTabs, others, TabLog } from "./bench-kit-tabs";

const { values } = parseArgs({
  options: { tabs: { type: "string", default: "1000" }, samples: { type: "string", default: "50" }, "quiet-ms": { type: "string", default: "50" } },
});
const TABS = Number(values.tabs);
const SAMPLES = Number(values.samples);
/** Each reply (the floor's too) is sent once no tab has heard anything for this long, so the run's start has been read; 0: at once. */
const QUIET_MS = Number(values["quiet-ms"]);
const WARMUP = 2;

console.log(`\nRetraction to ${TABS} tabs of one session, ${SAMPLES} samples (${machine()}; load average ${fmt(loadavg()[0]!)})`);
await withServer({ PARLEY_PARK_AFTER_MS: "600000" }, async (server) => {
  const session = await api<{ id: string }>(server, "/api/sessions", { title: "bench" });
  const before = memory(server);
  const opened = performance.now();
  const tabs = await openTabs(server, session.id, TABS);
  const openedMs = performance.now() - opened;
  const after = memory(server);
  const log = new TabLog(tabs, {
    "question.asked": (q: { runId: string }) => `asked:${q.runId}`,
    "question.replied": (q: { id: string }) => `replied:${q.id}`,
    "run.updated": (r: { id: string; status: string }) => `run:${r.id}:${r.status}`,
  });
  let lastHeard = performance.now();
  for (const t of tabs) t.onAny(() => (lastHeard = performance.now()));
  const quiet = () => until(async () => performance.now() - lastHeard >= QUIET_MS, 60_000, 5);
  const floor = await floorRelay(TABS);
  const floorMs: number[] = [];
  const retraction: number[] = [];
  try {
    for (let i = 0; i < SAMPLES + WARMUP; i++) {
      await quiet();
      const f = await floor.sample();
      const run = await api<{ id: string }>(server, `/api/sessions/${session.id}/runs`, { function: "test.ask", input: { prompt: `Question ${i}?`, options: ["ok"] } });
      await log.all(`asked:${run.id}`);
      const question = log.payloads.get(`asked:${run.id}`) as { id: string };
      await quiet();
      const sent = performance.now();
      const ack = (await tabs[0]!.emitWithAck("question.reply", { id: question.id, value: "ok" })) as { ok: boolean };
      if (!ack.ok) throw new Error(`reply refused: ${JSON.stringify(ack)}`);
      const r = (await log.all(`replied:${question.id}`, others(TABS))) - sent;
      await log.all(`run:${run.id}:succeeded`, [0]);
      for (const k of [`asked:${run.id}`, `replied:${question.id}`]) log.forget(k);
      if (i >= WARMUP) {
        floorMs.push(f);
        retraction.push(r);
      }
    }
  } finally {
    await floor.close();
    for (const t of tabs) t.disconnect();
  }
  console.log(row(`floor: bare relay → retraction in ${TABS - 1}`, floorMs));
  console.log(row(`reply → retraction seen by the ${TABS - 1} other tabs`, retraction, floorMs));
  console.log(
    `  (${TABS} tabs opened and joined in ${fmt(openedMs / 1000, 2)} s; server RSS ${fmt(before.serverMb)} → ${fmt(after.serverMb)} MB with them, ${fmt(((after.serverMb - before.serverMb) * 1024) / TABS)} KB a tab)`,
  );
});
