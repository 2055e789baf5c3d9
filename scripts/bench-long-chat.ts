/**
 * A long chat in headless Chromium, against the production build: a session with 10,000 messages
 * and 1,000 answered questions (written straight into the database), opened again and again.
 * - open: from the snapshot's arrival (the app's `parley:snapshot` Performance API mark) to the
 *   paint of the frame that shows the last message at the bottom of the transcript, and from the
 *   navigation's start to that paint; beside it the floor: the same for a chat of one turn.
 * - streaming: the time between animation frames (requestAnimationFrame deltas) while a reply
 *   streams into the long chat; beside it the floor: the same page's frames while nothing happens.
 * Prints p50/p99; asserts nothing. Usage: npm run build && npm run bench:long-chat [-- --opens 10 --turns 5000]
 */
import { parseArgs } from "node:util";
import { chromium, type Page } from "@playwright/test";
import { existsSync } from "node:fs";
import { api, fmt, machine, percentile, row, until, withServer, type ServerProcess } from "./bench-kit";
import { authHeaders, TEST_TOKEN } from "../tests/helpers/server-process";
import { seedLongChat } from "../tests/helpers/long-chat";

const { values } = parseArgs({ options: { opens: { type: "string", default: "10" }, turns: { type: "string", default: "5000" }, every: { type: "string", default: "5" } } });
const OPENS = Number(values.opens);
const TURNS = Number(values.turns);
const EVERY = Number(values.every);

/** A session holding one finished chat turn that asked a question, answered over REST: the rows the seeder clones. */
async function sessionWithOneTurn(server: ServerProcess, title: string) {
  const session = await api<{ id: string }>(server, "/api/sessions", { title });
  const run = await api<{ id: string }>(server, `/api/sessions/${session.id}/runs`, { function: "test.ask", input: { prompt: "Go ahead?", options: ["yes", "no"] } });
  const [question] = await until(async () => {
    const pending = await api<{ id: string }[]>(server, `/api/questions?session_id=${session.id}`);
    return pending.length > 0 && pending;
  });
  await api(server, `/api/questions/${question!.id}/reply`, { value: "yes" });
  await until(async () => (await api<{ status: string }>(server, `/api/runs/${run.id}`)).status === "succeeded");
  return session.id;
}

/**
 * Marks `bench:painted` after the paint of the first frame whose transcript shows the message starting
 * with `lastText` (the last one) whole, in view. In-page code is text: tsx would wrap functions in helpers the page lacks.
 */
const watchPaint = (lastText: string) => `(() => {
  const lastText = ${JSON.stringify(lastText)};
  const check = () => {
    const scroller = document.querySelector('[data-testid="transcript"]');
    const messages = scroller ? scroller.querySelectorAll('[data-testid="message"]') : [];
    const last = messages[messages.length - 1];
    if (scroller && last && last.textContent.includes(lastText)) {
      const r = last.getBoundingClientRect(), s = scroller.getBoundingClientRect();
      if (r.top >= s.top && r.bottom <= s.bottom + 1) {
        // A task queued from a frame's callbacks runs after that frame has painted.
        const channel = new MessageChannel();
        channel.port1.onmessage = () => performance.mark("bench:painted");
        channel.port2.postMessage(null);
        return;
      }
    }
    requestAnimationFrame(check);
  };
  requestAnimationFrame(check);
})()`;

async function openTimes(page: Page, url: string) {
  const fromSnapshot: number[] = [];
  const fromNavigation: number[] = [];
  for (let i = 0; i <= OPENS; i++) {
    await page.goto(url);
    const times = await page.waitForFunction(
      `(() => {
        const painted = performance.getEntriesByName("bench:painted")[0];
        const snapshot = performance.getEntriesByName("parley:snapshot")[0];
        return painted && snapshot ? { fromSnapshot: painted.startTime - snapshot.startTime, fromNavigation: painted.startTime } : null;
      })()`,
      null,
      { timeout: 60_000, polling: 50 },
    );
    const t = (await times.jsonValue()) as { fromSnapshot: number; fromNavigation: number };
    // The first open fills the browser's caches: not counted.
    if (i === 0) continue;
    fromSnapshot.push(t.fromSnapshot);
    fromNavigation.push(t.fromNavigation);
  }
  return { fromSnapshot, fromNavigation };
}

/** Frame-to-frame times (ms) for `ms`, or while `selector` is on the page (from when it appears) when given. */
const frameDeltas = (page: Page, ms: number, selector: string | null) =>
  page.evaluate<number[]>(`new Promise((resolve) => {
    const selector = ${JSON.stringify(selector)};
    const deltas = [];
    let last = 0;
    let started = 0;
    const frame = (t) => {
      const present = selector === null || document.querySelector(selector) !== null;
      if (present && started === 0) started = t;
      else if (started > 0 && present) deltas.push(t - last);
      last = t;
      if (started > 0 && (!present || t - started > ${ms})) return resolve(deltas);
      requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  })`);

console.log(`\nlong chat: ${TURNS * 2} messages, ${Math.ceil(TURNS / EVERY)} answered questions; ${OPENS} opens each, headless Chromium (${machine()})`);
await withServer({ PARLEY_RATE_LIMITS: "off" }, async (server, databaseFile) => {
  const long = await sessionWithOneTurn(server, "long");
  const seeded = performance.now();
  seedLongChat(databaseFile, long, { turns: TURNS, questionEvery: EVERY });
  console.log(`  seeded in ${fmt((performance.now() - seeded) / 1000, 1)} s`);
  const short = await sessionWithOneTurn(server, "short");
  seedLongChat(databaseFile, short, { turns: 1, questionEvery: 1 });

  const snapshotBytes = async (id: string) => (await (await fetch(`${server.url}/api/sessions/${id}`, { headers: authHeaders() })).text()).length;
  /** The start of a session's last message: what the paint watch looks for. */
  const lastText = async (id: string) => (await api<{ messages: { text: string }[] }>(server, `/api/sessions/${id}`)).messages.at(-1)!.text.slice(0, 40);
  console.log(`  snapshot size: long chat ${fmt((await snapshotBytes(long)) / 1024, 0)} KiB, one turn ${fmt((await snapshotBytes(short)) / 1024, 1)} KiB`);

  const executablePath = process.env.PLAYWRIGHT_CHROMIUM_PATH ?? (existsSync("/usr/bin/chromium") ? "/usr/bin/chromium" : undefined);
  const browser = await chromium.launch({
    executablePath,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
  try {
    const context = await browser.newContext({ baseURL: server.url, viewport: { width: 1280, height: 800 }, bypassCSP: true });
    const page = await context.newPage();
    await page.goto(`/?token=${TEST_TOKEN}`);
    await page.addInitScript(watchPaint(await lastText(short)));
    const floor = await openTimes(page, `/s/${short}`);
    // The init script for the long chat's last reply replaces the one above on the next page.
    await context.close();
    const longContext = await browser.newContext({ baseURL: server.url, viewport: { width: 1280, height: 800 }, bypassCSP: true });
    const longPage = await longContext.newPage();
    await longPage.goto(`/?token=${TEST_TOKEN}`);
    await longPage.addInitScript(watchPaint(await lastText(long)));
    const opened = await openTimes(longPage, `/s/${long}`);
    console.log(row("open: snapshot → last messages painted, one turn (floor)", floor.fromSnapshot));
    console.log(row("open: snapshot → last messages painted, long chat", opened.fromSnapshot, floor.fromSnapshot));
    console.log(row("open: navigation → last messages painted, one turn (floor)", floor.fromNavigation));
    console.log(row("open: navigation → last messages painted, long chat", opened.fromNavigation, floor.fromNavigation));

    const idle = await frameDeltas(longPage, 3_000, null);
    const streamed = frameDeltas(longPage, 5_000, '[data-testid="streaming-message"]');
    await api(server, `/api/sessions/${long}/runs`, { function: "test.stream", input: { words: 2_000, delayMs: 5 } });
    const streaming = await streamed;
    const fps = (xs: number[]) => fmt(1000 / percentile(xs, 50), 0);
    const slow = (xs: number[]) => fmt((100 * xs.filter((d) => d > 1000 / 60 + 4).length) / Math.max(1, xs.length), 1);
    console.log(row(`frames, long chat at rest (floor): ${fps(idle)} fps, ${slow(idle)}% > 20.7 ms`, idle));
    console.log(row(`frames while a reply streams: ${fps(streaming)} fps, ${slow(streaming)}% > 20.7 ms`, streaming, idle));
    console.log(`  frames counted: at rest ${idle.length}, streaming ${streaming.length}`);
  } finally {
    await browser.close();
  }
});
