/** Shared pieces of the benchmarks that watch many socket "tabs": open and join them, log when each saw what, and the floor relay. */
import { fork } from "node:child_process";
import path from "node:path";
import { io, type Socket } from "socket.io-client";
import { openTab, type Tab } from "../tests/helpers/remote";
import { api, health, scratchDir, until, type ServerProcess } from "./bench-kit";

export type { Tab };

/** Opens `n` tabs on `server` and joins each to the session, `batch` at a time. */
export async function openTabs(server: ServerProcess, sessionId: string, n: number, batch = 50): Promise<Tab[]> {
  const tabs: Tab[] = [];
  for (let i = 0; i < n; i += batch) {
    const some = await Promise.all(
      Array.from({ length: Math.min(batch, n - i) }, async () => {
        const tab = await openTab(server.url);
        const joined = (await tab.emitWithAck("session.join", { sessionId })) as { ok: boolean };
        if (!joined.ok) throw new Error(`session.join failed: ${JSON.stringify(joined)}`);
        return tab;
      }),
    );
    tabs.push(...some);
  }
  return tabs;
}

/**
 * When each tab first saw each thing: `key` names what an event is ("asked:<runId>", …, or
 * nothing to skip it). Times are taken in the event's handler, so waiting (by polling) costs
 * no precision.
 */
export class TabLog {
  readonly seen = new Map<string, Map<number, number>>();
  readonly payloads = new Map<string, unknown>();
  constructor(
    readonly tabs: { on(event: string, listener: (payload: any) => void): unknown }[],
    private readonly keys: Record<string, (payload: any) => string | undefined>,
  ) {
    tabs.forEach((tab, t) => this.attach(tab, t));
  }

  /** Logs what `tab` sees as tab number `t` (a tab that replaces a disconnected one). */
  attach(tab: { on(event: string, listener: (payload: any) => void): unknown }, t: number) {
    this.tabs[t] = tab;
    for (const [event, key] of Object.entries(this.keys)) {
      tab.on(event, (payload: unknown) => {
        const now = performance.now();
        const k = key(payload);
        if (k === undefined) return;
        let byTab = this.seen.get(k);
        if (!byTab) this.seen.set(k, (byTab = new Map()));
        if (!byTab.has(t)) byTab.set(t, now);
        if (!this.payloads.has(k)) this.payloads.set(k, payload);
      });
    }
  }

  /** Waits until every tab in `among` (all by default) saw `key`; returns the last of their times. */
  async all(key: string, among: number[] = this.tabs.map((_, i) => i), ms = 60_000): Promise<number> {
    const end = performance.now() + ms;
    for (;;) {
      const byTab = this.seen.get(key);
      if (byTab && among.every((t) => byTab.has(t))) return Math.max(...among.map((t) => byTab.get(t)!));
      if (performance.now() > end) throw new Error(`timed out: ${byTab?.size ?? 0} of ${among.length} tabs saw ${key}`);
      await new Promise((r) => setTimeout(r, 1));
    }
  }

  forget(key: string) {
    this.seen.delete(key);
    this.payloads.delete(key);
  }
}

export const others = (n: number) => Array.from({ length: n - 1 }, (_, i) => i + 1);

/** The floor relay (bench-kit-floor.ts) in a child process, with `n` clients; `sample()` is one reply → retraction seen by the n-1 others, ms. */
export async function floorRelay(n: number) {
  const dir = scratchDir();
  const child = fork(path.join(import.meta.dirname, "bench-kit-floor.ts"), [path.join(dir, "floor.db")], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once("message", (m: { port: number }) => resolve(m.port));
    child.once("exit", (code) => reject(new Error(`the floor relay exited (${code})`)));
  });
  const url = `http://127.0.0.1:${port}`;
  const clients: Socket[] = [];
  for (let i = 0; i < n; i += 50) {
    clients.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(50, n - i) }, async () => {
          const socket = io(url, { transports: ["websocket"], reconnection: false, forceNew: true });
          await new Promise<void>((resolve, reject) => socket.once("connect", () => resolve()).once("connect_error", reject));
          return socket;
        }),
      )),
    );
  }
  const log = new TabLog(clients, { retracted: (r: { id: string }) => r.id });
  let count = 0;
  return {
    async sample(): Promise<number> {
      const id = `q${++count}`;
      await clients[0]!.emitWithAck("ask", id);
      const sent = performance.now();
      const ack = (await clients[0]!.emitWithAck("reply", { id, value: "ok" })) as { ok: boolean };
      if (!ack.ok) throw new Error("the floor relay refused a reply");
      const last = await log.all(id, others(n));
      log.forget(id);
      return last - sent;
    },
    async close() {
      for (const c of clients) c.disconnect();
      child.disconnect();
      await new Promise((r) => child.once("exit", r));
      const { rmSync } = await import("node:fs");
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** What one run of `test.ask` shows the tabs: its card, the retraction of its answer in the others, and its next line. */
export type LoopSample = { card: number; retraction: number; nextLine: number };

/** Logs the events of the question loop, keyed by run or question. */
export const questionLoopLog = (tabs: Tab[]) =>
  new TabLog(tabs, {
    "question.asked": (q: { runId: string }) => `asked:${q.runId}`,
    "question.replied": (q: { id: string }) => `replied:${q.id}`,
    "message.created": (m: { runId: string | null; text: string }) => (m.runId && m.text.startsWith("You answered") ? `line:${m.runId}` : undefined),
    "run.updated": (r: { id: string; status: string }) => `run:${r.id}:${r.status}`,
  });

/**
 * One sample of the question loop: a run of `test.ask` started over REST on `home`, its card seen
 * in every tab, (`parked`: once the run has let go of its worker) answered from tab 0 over the socket.
 */
export async function sampleQuestionLoop({
  home,
  sessionId,
  tabs,
  log,
  i,
  parked,
  liveRuns,
}: {
  home: ServerProcess;
  sessionId: string;
  tabs: Tab[];
  log: TabLog;
  i: number;
  parked: boolean;
  /** The runs live on `home` (its /api/health): 0 once the run parked. */
  liveRuns: () => Promise<number>;
}): Promise<LoopSample> {
  const started = performance.now();
  const run = await api<{ id: string }>(home, `/api/sessions/${sessionId}/runs`, { function: "test.ask", input: { prompt: `Question ${i}?`, options: ["ok"] } });
  const card = (await log.all(`asked:${run.id}`)) - started;
  const question = log.payloads.get(`asked:${run.id}`) as { id: string };
  if (parked) await until(async () => (await liveRuns()) === 0, 60_000, 5);
  const sent = performance.now();
  const ack = (await tabs[0]!.emitWithAck("question.reply", { id: question.id, value: "ok" })) as { ok: boolean };
  if (!ack.ok) throw new Error(`reply refused: ${JSON.stringify(ack)}`);
  const retraction = (await log.all(`replied:${question.id}`, others(tabs.length))) - sent;
  const nextLine = (await log.all(`line:${run.id}`)) - sent;
  await log.all(`run:${run.id}:succeeded`, [0]);
  // Let the worker go back to the pool, so the next start meets a warm one.
  await new Promise((r) => setTimeout(r, 20));
  return { card, retraction, nextLine };
}

export type LoopFigures = { floor: number[]; retraction: number[]; nextLine: number[]; card: number[] };

/**
 * `samples` question loops (sampleQuestionLoop) after `warmup` unrecorded ones, each beside a
 * sample of the floor relay (a bare relay to as many clients, claiming in SQLite) taken just
 * before it; closes the tabs.
 */
export async function sampleQuestionLoops({
  samples,
  warmup,
  home,
  sessionId,
  tabs,
  parked,
}: {
  samples: number;
  warmup: number;
  home: ServerProcess;
  sessionId: string;
  tabs: Tab[];
  parked: boolean;
}): Promise<LoopFigures> {
  const log = questionLoopLog(tabs);
  const liveRuns = async () => (await health(home)).liveRuns;
  const floor = await floorRelay(tabs.length);
  const f: LoopFigures = { floor: [], retraction: [], nextLine: [], card: [] };
  try {
    for (let i = 0; i < samples + warmup; i++) {
      const floorMs = await floor.sample();
      const { card, retraction, nextLine } = await sampleQuestionLoop({ home, sessionId, tabs, log, i, parked, liveRuns });
      if (i >= warmup) {
        f.floor.push(floorMs);
        f.card.push(card);
        f.retraction.push(retraction);
        f.nextLine.push(nextLine);
      }
    }
  } finally {
    await floor.close();
    for (const t of tabs) t.disconnect();
  }
  return f;
}
