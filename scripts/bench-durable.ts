/**
 * Memory of parked runs, against the production build (`npm run build` first). Two servers, each
 * parking N questions three times (PARLEY_PARK_AFTER_MS=0):
 *  - as a deployment runs, no collection forced: RSS of the server and its worker processes idle
 *    and after each N, and what each N added per question (what a machine's memory sees, garbage
 *    not yet collected included);
 *  - started with --expose-gc, the server's JS heap after a full collection at each point (what it
 *    keeps per parked question).
 * (Reply → next line, live and parked, is bench-loop.ts.) Prints figures; asserts nothing.
 * Usage: npm run bench:durable [-- --questions 1000 --clients 16]
 */
import { parseArgs } from "node:util";
import { api, fmt, health, machine, memory, startRuns, until, withServer, type ServerProcess } from "./bench-kit";

const { values } = parseArgs({ options: { questions: { type: "string", default: "1000" }, clients: { type: "string", default: "16" } } });
const QUESTIONS = Number(values.questions);
const CLIENTS = Number(values.clients);
const BATCHES = 3;
const SETTINGS = { PARLEY_PARK_AFTER_MS: "0", PARLEY_MAX_WORKERS: "4" };

/** Parks BATCHES × QUESTIONS runs; `measure` runs when the server has settled idle and after each batch. */
async function parkInBatches<T>(server: ServerProcess, measure: () => Promise<T>) {
  const session = await api<{ id: string }>(server, "/api/sessions", {});
  await new Promise((r) => setTimeout(r, 2_000));
  const points = [await measure()];
  let parked = 0;
  let seconds = 0;
  for (let b = 0; b < BATCHES; b++) {
    const started = Date.now();
    const starts = await startRuns(server, session.id, QUESTIONS, CLIENTS, () => ({}), "test.stamp");
    parked += starts.filter((s) => s.status === 201).length;
    await until(async () => {
      const h = await health(server);
      return h.pendingQuestions === parked && h.liveRuns === 0 && h;
    });
    seconds += (Date.now() - started) / 1000;
    await new Promise((r) => setTimeout(r, 2_000));
    points.push(await measure());
  }
  return { points, parked, seconds };
}

console.log(`\nMemory of parked questions, ${BATCHES} × ${QUESTIONS} (PARLEY_PARK_AFTER_MS=0, 4 workers at most; ${machine()})`);
const w = (n: number, d = 1) => fmt(n, d).padStart(8);
await withServer(SETTINGS, async (server) => {
  const { points, parked, seconds } = await parkInBatches(server, async () => memory(server));
  console.log(`  RSS, no collection forced, MB          server  workers    total   (worker processes)   added per question, KB: server  workers    total`);
  points.forEach((p, i) => {
    const before = points[i - 1];
    const per = (now: number, then: number) => w(((now - then) * 1024) / QUESTIONS);
    const added = before ? `${per(p.serverMb, before.serverMb)} ${per(p.workersMb, before.workersMb)} ${per(p.totalMb, before.totalMb)}` : "";
    console.log(`  ${(i === 0 ? "no pending questions" : `${i * QUESTIONS} parked`).padEnd(36)} ${w(p.serverMb)} ${w(p.workersMb)} ${w(p.totalMb)}   (${p.workers})${" ".repeat(18)}${added}`);
  });
  console.log(`  (${parked} runs started, asked and parked by ${CLIENTS} clients in ${fmt(seconds)} s)`);
});
// --expose-gc: /api/health?gc=1 collects garbage first, so the heap figures are what the server keeps.
await withServer({ ...SETTINGS, NODE_OPTIONS: "--expose-gc" }, async (server) => {
  const { points } = await parkInBatches(server, async () => (await health(server, true)).memory.heapUsedMb);
  console.log(`  server JS heap after a full GC, MB: ${points.map((mb, i) => `${fmt(mb)} with ${i * QUESTIONS}`).join(", ")}`);
  console.log(
    `  → kept per parked question, KB: ${points
      .slice(1)
      .map((mb, i) => fmt(((mb - points[i]!) * 1024) / QUESTIONS))
      .join(", ")} (each ${QUESTIONS} over the one before)`,
  );
});
