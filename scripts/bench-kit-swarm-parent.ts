/**
 * Tabs spread over child processes (bench-kit-swarm.ts), for benchmarks with thousands of them, and
 * the bare relays (bench-kit-relay.ts) they are measured against. Times are on the monotonic clock
 * (process.hrtime.bigint()), which the children share with this process.
 */
import { execSync, fork, spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { io, type Socket } from "socket.io-client";
import { childrenOf } from "./bench-kit";

export type SwarmCommand = { type: "open"; group: string; kind: "app" | "relay"; url: string; count: number; token?: string; sessionId?: string } | { type: "quiet"; ms: number } | { type: "close" };
export type SwarmReport =
  | { type: "ready" }
  | { type: "opened"; group: string }
  | { type: "failed"; message: string }
  | { type: "seen"; group: string; key: string; first: string; last: string; payload: unknown }
  | { type: "lost"; reason: string }
  | { type: "quiet" };

const forkTs = (script: string, args: string[] = []) => fork(path.join(import.meta.dirname, script), args, { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] });

function nextMessage<T>(child: ChildProcess, match: (m: T) => boolean): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (m: T) => {
      if (!match(m)) return;
      child.off("message", onMessage);
      child.off("exit", onExit);
      resolve(m);
    };
    const onExit = (code: number | null) => reject(new Error(`a bench child exited (${code})`));
    child.on("message", onMessage);
    child.once("exit", onExit);
  });
}

async function ended(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  if (child.connected) child.disconnect();
  await exited;
}

/** One opening of tabs in one child: `count` tabs of `url` in `group` (app tabs join `sessionId`). */
export type SwarmOpening = Omit<Extract<SwarmCommand, { type: "open" }>, "type"> & { child: number };

/** `n` children holding tabs; `seen(group, key)` waits until every tab of the group, in every child, saw `key`. */
export async function startSwarm(n: number) {
  const children = Array.from({ length: n }, () => forkTs("bench-kit-swarm.ts"));
  await Promise.all(children.map((c) => nextMessage<SwarmReport>(c, (m) => m.type === "ready")));
  /** group → the children holding some of its tabs. */
  const holders = new Map<string, Set<number>>();
  /** `${group} ${key}` → what each child reported. */
  const reports = new Map<string, Map<number, { first: bigint; last: bigint; payload: unknown }>>();
  const waiting = new Set<() => void>();
  children.forEach((child, c) =>
    child.on("message", (m: SwarmReport) => {
      if (m.type === "lost") console.log(`  (a tab in child ${c} lost its connection: ${m.reason})`);
      if (m.type !== "seen") return;
      const k = `${m.group} ${m.key}`;
      if (!reports.has(k)) reports.set(k, new Map());
      reports.get(k)!.set(c, { first: BigInt(m.first), last: BigInt(m.last), payload: m.payload });
      for (const wake of waiting) wake();
    }),
  );
  return {
    pids: children.map((c) => c.pid!),
    /** Opens the tabs, each child's openings one after another, the children at once. */
    async open(openings: SwarmOpening[]) {
      await Promise.all(
        children.map(async (child, c) => {
          for (const { child: _, ...o } of openings.filter((o) => o.child === c && o.count > 0)) {
            if (!holders.has(o.group)) holders.set(o.group, new Set());
            holders.get(o.group)!.add(c);
            child.send({ type: "open", ...o } satisfies SwarmCommand);
            const r = await nextMessage<SwarmReport>(child, (m) => (m.type === "opened" && m.group === o.group) || m.type === "failed");
            if (r.type === "failed") throw new Error(`a swarm child could not open its tabs: ${r.message}`);
          }
        }),
      );
    },
    /** When the first and the last tab of `group` saw `key` (monotonic ns), and the payload one of them saw. */
    async seen(group: string, key: string, ms = 120_000): Promise<{ first: bigint; last: bigint; payload: unknown }> {
      const k = `${group} ${key}`;
      const need = holders.get(group)?.size ?? 0;
      const got = () => reports.get(k);
      if ((got()?.size ?? 0) < need) {
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => {
            waiting.delete(wake);
            reject(new Error(`timed out: ${got()?.size ?? 0} of ${need} swarm children saw all their tabs get ${key}`));
          }, ms);
          const wake = () => {
            if ((got()?.size ?? 0) < need) return;
            clearTimeout(timer);
            waiting.delete(wake);
            resolve();
          };
          waiting.add(wake);
        });
      }
      const all = [...got()!.values()];
      reports.delete(k);
      return {
        first: all.reduce((a, r) => (r.first < a ? r.first : a), all[0]!.first),
        last: all.reduce((a, r) => (r.last > a ? r.last : a), 0n),
        payload: all[0]!.payload,
      };
    },
    /** Resolves once no frame has reached any tab for `ms`. */
    async quiet(ms: number) {
      await Promise.all(
        children.map((child) => {
          const heard = nextMessage<SwarmReport>(child, (m) => m.type === "quiet");
          child.send({ type: "quiet", ms } satisfies SwarmCommand);
          return heard;
        }),
      );
    },
    async close() {
      await Promise.all(children.map((c) => ended(c)));
    },
  };
}

export type Swarm = Awaited<ReturnType<typeof startSwarm>>;

/** A bare relay (bench-kit-relay.ts) in a child process, over Redis when given a URL. */
export async function startRelay(redisUrl?: string) {
  const child = forkTs("bench-kit-relay.ts", redisUrl ? [redisUrl] : []);
  const { port } = await nextMessage<{ port?: number }>(child, (m) => m.port !== undefined);
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    /** Has the relay stream `n` stamped chunks, one every `delayMs`; resolves once it sent the last. */
    async stream(n: number, delayMs: number) {
      const done = nextMessage<{ streamed?: number }>(child, (m) => m.streamed !== undefined);
      child.send({ stream: n, delayMs });
      await done;
    },
    close: () => ended(child),
  };
}

/** A bare client of a relay. */
export async function relayClient(url: string): Promise<Socket> {
  const socket = io(url, { transports: ["websocket"], reconnection: false, forceNew: true });
  await new Promise<void>((resolve, reject) => socket.once("connect", () => resolve()).once("connect_error", reject));
  return socket;
}

/** CPU time (user + system, ms) that processes `pids` and their children have used so far. */
export function cpuMs(pids: number[]): number {
  let ticks = 0;
  const add = (pid: number) => {
    try {
      // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
      const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // gone
    }
  };
  for (const pid of pids) {
    add(pid);
    for (const child of childrenOf(pid)) add(child);
  }
  return ticks * (1000 / CLOCK_TICKS);
}
const CLOCK_TICKS = Number(execSync("getconf CLK_TCK").toString().trim()) || 100;

/** Milliseconds from `from` to `to` (monotonic ns). */
export const msBetween = (from: bigint, to: bigint) => Number(to - from) / 1e6;

/**
 * Makes sure this process may hold `needed` open files: when the soft limit is lower and the hard
 * one allows, runs this script again under `ulimit -n` raised (the servers and children it starts
 * inherit it) and exits with its code; when even the hard limit is lower, says so and exits.
 */
export async function ensureOpenFiles(needed: number): Promise<void> {
  const soft = Number(execSync("ulimit -n", { shell: "/bin/sh" }).toString().trim());
  if (!Number.isFinite(soft) || soft >= needed) return;
  const hard = Number(execSync("ulimit -Hn", { shell: "/bin/sh" }).toString().trim());
  if ((Number.isFinite(hard) && hard < needed) || process.env.PARLEY_BENCH_ULIMIT_RAISED) {
    console.log(`This bench needs ${needed} open files a process; the limit is ${soft} (hard ${hard}). Raise it (ulimit -n ${needed}) or pass fewer --tabs.`);
    process.exit(1);
  }
  const again = spawn("/bin/sh", ["-c", `ulimit -n ${needed} && exec "$@"`, "sh", process.execPath, ...process.execArgv, ...process.argv.slice(1)], {
    stdio: "inherit",
    env: { ...process.env, PARLEY_BENCH_ULIMIT_RAISED: "1" },
  });
  again.on("exit", (code) => process.exit(code ?? 1));
  // Nothing else runs here: the run under the raised limit ends this process.
  await new Promise(() => {});
}
