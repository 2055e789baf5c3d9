/**
 * Memory of parked runs, against the production build (`npm run build` first): RSS of the server
 * and its worker processes with no pending questions, then with N and 2N parked ones
 * (PARLEY_PARK_AFTER_MS=0), the differences in total and per question, and the server's JS heap
 * after a full GC at each point (what it keeps, not garbage). (Reply → next line, live and parked, is bench-loop.ts.)
 * Prints figures; asserts nothing. Usage: npm run bench:durable [-- --questions 1000 --clients 16]
 */
import { parseArgs } from "node:util";
import { api, fmt, health, machine, memory, startRuns, until, withServer } from "./bench-kit";

const { values } = parseArgs({ options: { questions: { type: "string", default: "1000" }, clients: { type: "string", default: "16" } } });
const QUESTIONS = Number(values.questions);
const CLIENTS = Number(values.clients);

console.log(`\nMemory of ${QUESTIONS} parked questions (PARLEY_PARK_AFTER_MS=0, 4 workers at most; ${machine()})`);
// --expose-gc: /api/health?gc=1 collects garbage first, so the heap figures are what the server keeps.
await withServer({ PARLEY_PARK_AFTER_MS: "0", PARLEY_MAX_WORKERS: "4", NODE_OPTIONS: "--expose-gc" }, async (server) => {
  const session = await api<{ id: string }>(server, "/api/sessions", {});
  await new Promise((r) => setTimeout(r, 2_000));
  const idle = memory(server);
  const idleHeap = (await health(server, true)).memory.heapUsedMb;
  /** Parks QUESTIONS more runs; returns how long it took and how many start requests were refused. */
  const parkMore = async (already: number) => {
    const started = Date.now();
    const starts = await startRuns(server, session.id, QUESTIONS, CLIENTS, () => ({}), "test.stamp");
    const refused = starts.filter((s) => s.status !== 201).length;
    await until(async () => {
      const h = await health(server);
      return h.pendingQuestions === already + QUESTIONS - refused && h.liveRuns === 0 && h;
    });
    await new Promise((r) => setTimeout(r, 2_000));
    return { seconds: (Date.now() - started) / 1000, refused };
  };
  const { seconds, refused } = await parkMore(0);
  const parked = memory(server);
  const heap = (await health(server, true)).memory.heapUsedMb;
  // The same again: what the second batch adds is what a parked question keeps, apart from what any activity grows once (code, caches).
  await parkMore(QUESTIONS - refused);
  const twice = memory(server);
  const heapTwice = (await health(server, true)).memory.heapUsedMb;
  const w = (n: number, d = 1) => fmt(n, d).padStart(8);
  console.log(`  RSS, MB                                 server  workers    total`);
  console.log(`  no pending questions                 ${w(idle.serverMb)} ${w(idle.workersMb)} ${w(idle.totalMb)}   (${idle.workers} worker processes)`);
  console.log(`  ${`${QUESTIONS} parked questions`.padEnd(36)} ${w(parked.serverMb)} ${w(parked.workersMb)} ${w(parked.totalMb)}   (${parked.workers} worker processes)`);
  console.log(`  over idle                            ${w(parked.serverMb - idle.serverMb)} ${w(parked.workersMb - idle.workersMb)} ${w(parked.totalMb - idle.totalMb)}`);
  console.log(
    `  over idle per parked question, KB    ${w(((parked.serverMb - idle.serverMb) * 1024) / QUESTIONS)} ${w(((parked.workersMb - idle.workersMb) * 1024) / QUESTIONS)} ${w(((parked.totalMb - idle.totalMb) * 1024) / QUESTIONS)}`,
  );
  console.log(`  ${`${2 * QUESTIONS} parked questions`.padEnd(36)} ${w(twice.serverMb)} ${w(twice.workersMb)} ${w(twice.totalMb)}   (${twice.workers} worker processes)`);
  console.log(
    `  the second ${QUESTIONS} over the first, per question, KB ${w(((twice.serverMb - parked.serverMb) * 1024) / QUESTIONS)} ${w(((twice.workersMb - parked.workersMb) * 1024) / QUESTIONS)} ${w(((twice.totalMb - parked.totalMb) * 1024) / QUESTIONS)}`,
  );
  console.log(`  server JS heap in use after a full GC: ${fmt(idleHeap)} MB idle, ${fmt(heap)} MB with ${QUESTIONS} parked, ${fmt(heapTwice)} MB with ${2 * QUESTIONS}`);
  console.log(
    `  → kept per parked question: ${fmt(((heap - idleHeap) * 1024) / QUESTIONS)} KB for the first ${QUESTIONS}, ${fmt(((heapTwice - heap) * 1024) / QUESTIONS)} KB for the next ${QUESTIONS}`,
  );
  console.log(`  (${QUESTIONS} runs started, asked and parked by ${CLIENTS} clients in ${fmt(seconds)} s${refused ? `; ${refused} start requests refused` : ""})`);
});
