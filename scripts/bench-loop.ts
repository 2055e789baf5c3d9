/**
 * The question loop as 10 tabs of one session see it, against the production build, beside the
 * floor measured in the same run (bench-kit-floor.ts: a bare Socket.IO relay to 10 clients that
 * claims a row in SQLite in a transaction, then broadcasts the retraction to the 9 others). Per
 * sample, one floor reply and one run of `test.ask` (started over REST, answered from tab 0 over
 * the socket):
 *  - reply → retraction (question.replied) seen by the 9 other tabs;
 *  - reply → the function's next line (its message) in all 10 tabs;
 *  - run start → its question's card (question.asked) in all 10 tabs, with a warm pool;
 * once with a live worker (no parking) and once with runs parked before the reply (journal replay).
 * Prints p50/p99 and their ratios to the floor's; asserts nothing.
 * Usage: npm run build && npm run bench:loop [-- --samples 200 --tabs 10]
 */
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { api, appSynchronous, fmt, machine, row, withServer, type ServerProcess } from "./bench-kit";
import { openTabs, sampleQuestionLoops, type LoopFigures } from "./bench-kit-tabs";

const { values } = parseArgs({ options: { samples: { type: "string", default: "200" }, tabs: { type: "string", default: "10" } } });
const SAMPLES = Number(values.samples);
const TABS = Number(values.tabs);
const WARMUP = 3;

async function loop(server: ServerProcess, parked: boolean): Promise<LoopFigures> {
  const session = await api<{ id: string }>(server, "/api/sessions", { title: "bench" });
  const tabs = await openTabs(server, session.id, TABS);
  return sampleQuestionLoops({ samples: SAMPLES, warmup: WARMUP, home: server, sessionId: session.id, tabs, parked });
}

console.log(`\nThe question loop in ${TABS} tabs of one session, ${SAMPLES} samples each (${machine()}; synchronous = ${appSynchronous()}; load average ${fmt(loadavg()[0]!)})`);
const live = await withServer({ PARLEY_PARK_AFTER_MS: "600000" }, (s) => loop(s, false));
const parked = await withServer({ PARLEY_PARK_AFTER_MS: "0" }, (s) => loop(s, true));
const floor = [...live.floor, ...parked.floor];
console.log(row("floor: bare relay, claim in SQLite → retraction in 9", floor));
console.log(row("reply → retraction seen by the 9 other tabs", live.retraction, live.floor));
console.log(row("reply → next line in all tabs, live worker", live.nextLine, live.floor));
console.log(row("reply → retraction seen by the 9 others, parked run", parked.retraction, parked.floor));
console.log(row("reply → next line in all tabs, parked run (replay)", parked.nextLine, parked.floor));
console.log(row("run start → card in all tabs, warm pool", live.card, live.floor));
console.log(row("run start → card in all tabs, after parked runs", parked.card, parked.floor));
console.log(`  (ratios are p50 ÷ floor p50 / p99 ÷ floor p99, each beside the floor samples taken between its own; load average at the end ${fmt(loadavg()[0]!)})`);
