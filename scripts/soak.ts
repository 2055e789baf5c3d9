/**
 * Soak: N parked questions (runs of `test.ask`, PARLEY_PARK_AFTER_MS=0) answered in random order at
 * R replies per second over one socket, against the production build. Every 10 s it prints memory
 * (server and workers RSS), reply → ack and reply → the function's next line p50/p99 over those
 * 10 s, and error counts (refused, not acked in time, lost connections: the tab is replaced);
 * replies not acked are sent again with the same commandId (--retries rounds). At the end, whether
 * any run was lost (its reply acknowledged, yet it did not succeed with the answer), how many
 * replies were never delivered, and whether memory returned near its start. Asserts nothing.
 * Usage: npm run build && npm run soak [-- --questions 10000 --rate 200 --clients 16 --every-s 10 --ack-timeout-s 120 --retries 2]
 */
import { parseArgs } from "node:util";
import { api, fmt, health, machine, memory, percentile, startRuns, until, withServer } from "./bench-kit";
import { openTabs, TabLog } from "./bench-kit-tabs";

const { values } = parseArgs({
  options: {
    questions: { type: "string", default: "10000" },
    rate: { type: "string", default: "200" },
    clients: { type: "string", default: "16" },
    "every-s": { type: "string", default: "10" },
    "settle-s": { type: "string", default: "10" },
    "ack-timeout-s": { type: "string", default: "120" },
    retries: { type: "string", default: "2" },
  },
});
const N = Number(values.questions);
const RATE = Number(values.rate);
const EVERY_MS = Number(values["every-s"]) * 1000;
const SETTLE_MS = Number(values["settle-s"]) * 1000;
const ACK_MS = Number(values["ack-timeout-s"]) * 1000;
const RETRIES = Number(values.retries);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

console.log(`\nSoak: ${N} parked questions answered in random order at ${RATE} replies/s (${machine()})`);
await withServer({ PARLEY_PARK_AFTER_MS: "0" }, async (server) => {
  const session = await api<{ id: string }>(server, "/api/sessions", { title: "soak" });
  const [firstTab] = await openTabs(server, session.id, 1);
  const log = new TabLog([firstTab!], {
    "question.asked": (q: { runId: string }) => `asked:${q.runId}`,
    "message.created": (m: { runId: string | null; text: string }) => (m.runId && m.text.startsWith("You answered") ? `line:${m.runId}` : undefined),
    "run.updated": (r: { id: string; status: string }) => (["succeeded", "failed", "cancelled"].includes(r.status) ? `end:${r.id}` : undefined),
  });
  const t0 = performance.now();
  const clock = () => `${fmt((performance.now() - t0) / 1000, 0).padStart(5)} s`;

  await sleep(2_000);
  const idleMemory = memory(server);
  // Park N questions.
  const setupTicker = setInterval(() => {
    const asked = [...log.seen.keys()].filter((k) => k.startsWith("asked:")).length;
    console.log(`  ${clock()}  setting up: ${asked} of ${N} questions asked`);
  }, EVERY_MS);
  const starts = await startRuns(server, session.id, N, Number(values.clients), (i) => ({ prompt: `Soak ${i}?`, options: ["ok"] }));
  const runs = starts.filter((s) => s.status === 201).map((s) => s.runId!);
  const refused = N - runs.length;
  for (const id of runs) await log.all(`asked:${id}`, [0], 600_000);
  await until(async () => (await health(server)).liveRuns === 0, 600_000, 50);
  clearInterval(setupTicker);
  console.log(`  ${clock()}  ${runs.length} questions parked${refused ? ` (${refused} start requests refused)` : ""}`);
  await sleep(2_000);
  const startMemory = memory(server);
  console.log(`  memory at the start: server ${fmt(startMemory.serverMb)} MB, workers ${fmt(startMemory.workersMb)} MB (${startMemory.workers}), total ${fmt(startMemory.totalMb)} MB`);

  // Answer them in random order at RATE a second.
  const order = runs.map((runId) => ({ runId, questionId: (log.payloads.get(`asked:${runId}`) as { id: string }).id }));
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const sentAt = new Map<string, number>();
  const state = new Map<string, "acked" | "refused" | "timed out">();
  let window = { acks: [] as number[], lines: [] as number[], refused: 0, timeouts: 0, disconnects: 0 };
  const totals = { sent: 0, retried: 0, acked: 0, refused: 0, timeouts: 0, disconnects: 0, failedReconnects: 0 };
  const reasons = new Set<string>();
  const lineSeen = new Set<string>();

  // One tab both replies and watches; a lost connection is counted and the tab replaced.
  let tab = firstTab!;
  let ready: Promise<void> = Promise.resolve();
  let closing = false;
  const watch = (t: typeof tab) =>
    t.on("disconnect", (reason) => {
      if (closing) return;
      totals.disconnects++;
      window.disconnects++;
      reasons.add(reason);
      ready = (async () => {
        // A busy server may not take the new connection at once: try again every second.
        for (;;) {
          try {
            const [fresh] = await openTabs(server, session.id, 1);
            tab = fresh!;
            log.attach(tab, 0);
            watch(tab);
            return;
          } catch (err) {
            totals.failedReconnects++;
            reasons.add(`reconnect: ${(err as Error).message}`);
            await sleep(1_000);
          }
        }
      })();
    });
  watch(tab);

  const report = () => {
    for (const { runId } of order) {
      if (lineSeen.has(runId) || !sentAt.has(runId)) continue;
      const at = log.seen.get(`line:${runId}`)?.get(0);
      if (at !== undefined) {
        lineSeen.add(runId);
        window.lines.push(at - sentAt.get(runId)!);
      }
    }
    const m = memory(server);
    const p = (xs: number[], q: number) => (xs.length ? fmt(percentile(xs, q), 1) : "-");
    console.log(
      `  ${clock()}  sent ${totals.sent}${totals.retried ? ` (+${totals.retried} again)` : ""}  acked ${totals.acked}  next lines ${lineSeen.size}  | ack p50 ${p(window.acks, 50)} p99 ${p(window.acks, 99)} ms  next line p50 ${p(window.lines, 50)} p99 ${p(window.lines, 99)} ms  | errors: ${window.refused} refused, ${window.timeouts} timed out, ${window.disconnects} disconnects  | RSS server ${fmt(m.serverMb)} + workers ${fmt(m.workersMb)} (${m.workers}) = ${fmt(m.totalMb)} MB`,
    );
    window = { acks: [], lines: [], refused: 0, timeouts: 0, disconnects: 0 };
  };

  // Each reply carries a commandId, so sending it again (after a timeout or a lost connection) is safe.
  const reply = async ({ runId, questionId }: { runId: string; questionId: string }) => {
    await ready;
    const sent = performance.now();
    if (!sentAt.has(runId)) sentAt.set(runId, sent);
    try {
      const ack = (await tab.timeout(ACK_MS).emitWithAck("question.reply", { id: questionId, value: "ok", commandId: `soak-${runId}` })) as { ok: boolean };
      if (ack.ok) {
        totals.acked++;
        window.acks.push(performance.now() - sent);
        state.set(runId, "acked");
      } else {
        totals.refused++;
        window.refused++;
        state.set(runId, "refused");
      }
    } catch {
      totals.timeouts++;
      window.timeouts++;
      state.set(runId, "timed out");
    }
  };
  const sendAll = async (batch: typeof order, counter: "sent" | "retried") => {
    const began = performance.now();
    const inFlight: Promise<void>[] = [];
    let i = 0;
    while (i < batch.length) {
      const due = Math.min(batch.length, Math.floor(((performance.now() - began) / 1000) * RATE) + 1);
      while (i < due) {
        totals[counter]++;
        inFlight.push(reply(batch[i++]!));
      }
      await sleep(5);
    }
    const seconds = (performance.now() - began) / 1000;
    await Promise.all(inFlight);
    return seconds;
  };
  const waitForEnds = async () => {
    // Until every run ended (no progress for 60 s: give up).
    let ended = 0;
    let lastProgress = performance.now();
    while (ended < order.length && performance.now() - lastProgress < 60_000) {
      const now = order.filter(({ runId }) => log.seen.has(`end:${runId}`)).length;
      if (now > ended) lastProgress = performance.now();
      ended = now;
      await sleep(100);
    }
  };

  const ticker = setInterval(report, EVERY_MS);
  const sendSeconds = await sendAll(order, "sent");
  await waitForEnds();
  for (let round = 0; round < RETRIES; round++) {
    const again = order.filter(({ runId }) => state.get(runId) !== "acked" && !log.seen.has(`end:${runId}`));
    if (again.length === 0) break;
    console.log(`  ${clock()}  sending ${again.length} replies again (not acked, run not ended)`);
    await sendAll(again, "retried");
    await waitForEnds();
  }
  clearInterval(ticker);
  report();

  // Lost: a reply the server acknowledged whose run did not succeed with the answer. Not delivered: never acknowledged.
  let lost = 0;
  let undelivered = 0;
  const lostIds: string[] = [];
  for (const { runId } of order) {
    // A run seen ending well on the socket counts as delivered; any other is asked of the server.
    const seen = log.payloads.get(`end:${runId}`) as { status: string; result: { outcome?: string; value?: unknown } | null } | undefined;
    if (seen?.status === "succeeded" && seen.result?.outcome === "answered" && seen.result.value === "ok") continue;
    const run = await api<{ status: string; result: { outcome?: string; value?: unknown } | null }>(server, `/api/runs/${runId}`);
    if (run.status === "succeeded" && run.result?.outcome === "answered" && run.result.value === "ok") continue;
    if (state.get(runId) !== "acked") undelivered++;
    else {
      lost++;
      if (lostIds.length < 5) lostIds.push(`${runId} (${run.status})`);
    }
  }
  const h = await health(server);
  await sleep(SETTLE_MS);
  const endMemory = memory(server);
  const growth = endMemory.totalMb - startMemory.totalMb;
  const near = growth <= Math.max(20, startMemory.totalMb * 0.1);
  const overIdle = endMemory.totalMb - idleMemory.totalMb;
  console.log(
    `  ${order.length} replies sent in ${fmt(sendSeconds, 1)} s (${fmt(order.length / sendSeconds)}/s), ${totals.retried} sent again; ${totals.acked} acked, ${totals.refused} refused, ${totals.timeouts} timed out (ack within ${ACK_MS / 1000} s); ${totals.disconnects} disconnects, ${totals.failedReconnects} failed reconnects${reasons.size ? ` (${[...reasons].join(", ")})` : ""}; ${lineSeen.size} next lines seen on the socket`,
  );
  console.log(
    `  lost: ${lost === 0 ? "nothing" : `${lost} acknowledged replies whose run did not succeed with the answer, e.g. ${lostIds.join(", ")}`}; not delivered (never acknowledged): ${undelivered}; still pending ${h.pendingQuestions}, live runs ${h.liveRuns}`,
  );
  console.log(
    `  memory ${SETTLE_MS / 1000} s after the end: server ${fmt(endMemory.serverMb)} MB, workers ${fmt(endMemory.workersMb)} MB (${endMemory.workers}), total ${fmt(endMemory.totalMb)} MB: ${growth >= 0 ? "+" : ""}${fmt(growth)} MB over the start → ${near ? "returned near its start" : "did NOT return near its start"} (near: within 20 MB or 10%); ${overIdle >= 0 ? "+" : ""}${fmt(overIdle)} MB over idle before any question (${fmt(idleMemory.totalMb)} MB)`,
  );
  closing = true;
  tab.disconnect();
});
