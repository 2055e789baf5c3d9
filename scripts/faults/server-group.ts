import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { isProcessAlive } from "../../lib/cli/server-client";
import { withdrawServer } from "../../lib/server/store/db/server-file";
import { freePort, productionServerEnv } from "../../tests/helpers/server-process";

/**
 * The built production server as a process group of its own (server + worker processes), so one
 * SIGKILL takes all of it down as a crash would. Every group and temp folder this process
 * creates is tracked and removed on exit, and ones left by an earlier run of the script that
 * died are found (by a marker in their environment) and removed first.
 */

const root = path.resolve(import.meta.dirname, "../..");
const OWNER_VAR = "PARLEY_FAULT_TRIALS_OWNER";
const DIR_PREFIX = "parley-faults-";

/** Each live group's database, whose announcement its killed server cannot withdraw. */
const liveGroups = new Map<number, string>();
const tempDirs = new Set<string>();

export interface ServerGroup {
  url: string;
  pgid: number;
  output(): string;
  /** SIGKILL to the whole group; resolves when no process of the group is left. */
  kill(): Promise<void>;
}

export function assertBuilt(): void {
  if (!existsSync(path.join(root, "dist/server.js")) || !existsSync(path.join(root, ".next/BUILD_ID"))) {
    throw new Error("The production build is missing: run `npm run build` first.");
  }
}

/** Members of a process group that are still running (zombies excluded), read from /proc. */
export function groupMembers(pgid: number): number[] {
  const members: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      // pid (comm) state ppid pgrp ...: comm may contain spaces, so split after its closing paren.
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(pgrp) === pgid && state !== "Z" && state !== "X") members.push(Number(name));
    } catch {
      // the process ended while we looked
    }
  }
  return members;
}

export async function killGroup(pgid: number, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      process.kill(-pgid, "SIGKILL");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ESRCH") throw err;
    }
    const left = groupMembers(pgid);
    if (left.length === 0) break;
    if (Date.now() > until) throw new Error(`processes ${left.join(", ")} of group ${pgid} survived SIGKILL`);
    await new Promise((r) => setTimeout(r, 50));
  }
  // The group's leader is the server: a PostgreSQL one announced itself in the project's ./data.
  const databaseUrl = liveGroups.get(pgid);
  if (databaseUrl) withdrawServer(databaseUrl, pgid);
  liveGroups.delete(pgid);
}

/** Removes server groups and temp folders left by earlier runs of this script whose process is gone. */
export async function cleanLeftovers(): Promise<{ groups: number; dirs: number }> {
  const groups = new Map<number, string | undefined>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const environ = readFileSync(`/proc/${name}/environ`, "utf8");
      const owner = environ.split("\0").find((v) => v.startsWith(`${OWNER_VAR}=`));
      if (!owner) continue;
      const ownerPid = Number(owner.slice(OWNER_VAR.length + 1));
      if (ownerPid === process.pid || isProcessAlive(ownerPid)) continue;
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const databaseUrl = environ
        .split("\0")
        .find((v) => v.startsWith("DATABASE_URL="))
        ?.slice("DATABASE_URL=".length);
      groups.set(Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]), databaseUrl);
    } catch {
      // not ours to read, or gone
    }
  }
  for (const [pgid, databaseUrl] of groups) {
    if (databaseUrl && !liveGroups.has(pgid)) liveGroups.set(pgid, databaseUrl);
    await killGroup(pgid).catch((err) => console.error(`could not end leftover group ${pgid}: ${err.message}`));
  }
  let dirs = 0;
  for (const name of readdirSync(tmpdir())) {
    const owner = Number(name.slice(DIR_PREFIX.length).split("-")[0]);
    if (!name.startsWith(DIR_PREFIX) || !owner || owner === process.pid || isProcessAlive(owner)) continue;
    rmSync(path.join(tmpdir(), name), { recursive: true, force: true });
    dirs++;
  }
  return { groups: groups.size, dirs };
}

export function makeTempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), `${DIR_PREFIX}${process.pid}-`));
  tempDirs.add(dir);
  return dir;
}

export function removeTempDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  tempDirs.delete(dir);
}

/** Ends every group and removes every folder this process still holds (on exit or interrupt). */
export async function cleanupAll(): Promise<void> {
  for (const pgid of [...liveGroups.keys()]) await killGroup(pgid).catch(() => undefined);
  for (const dir of [...tempDirs]) removeTempDir(dir);
}

/**
 * Starts dist/server.js on `databaseFile` (SQLite), or on the database `env.DATABASE_URL` names
 * (PostgreSQL, shared by several nodes), and waits until /api/health answers.
 */
export async function startServerGroup({ databaseFile, env, startTimeoutMs }: { databaseFile?: string; env: Record<string, string>; startTimeoutMs: number }): Promise<ServerGroup> {
  if (!databaseFile && !env.DATABASE_URL) throw new Error("startServerGroup needs a databaseFile or env.DATABASE_URL");
  const port = await freePort();
  // env.DATABASE_URL, when given, wins over the file.
  const serverEnv = productionServerEnv({ port, databaseFile: databaseFile ?? path.join(tmpdir(), "unused.db"), env: { [OWNER_VAR]: String(process.pid), ...env } });
  const child = spawn(process.execPath, [path.join(root, "dist/server.js")], {
    cwd: root,
    env: serverEnv,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const pgid = child.pid!;
  liveGroups.set(pgid, serverEnv.DATABASE_URL!);
  let log = "";
  child.stdout.on("data", (d) => (log += d));
  child.stderr.on("data", (d) => (log += d));
  const group: ServerGroup = { url: `http://127.0.0.1:${port}`, pgid, output: () => log, kill: () => killGroup(pgid) };

  const until = Date.now() + startTimeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      await group.kill();
      throw new Error(`the server exited during start-up:\n${tail(log)}`);
    }
    try {
      if ((await fetch(`${group.url}/api/health`, { signal: AbortSignal.timeout(5_000) })).ok) return group;
    } catch {
      // not listening yet
    }
    if (Date.now() > until) {
      await group.kill();
      throw new Error(`the server did not answer /api/health within ${startTimeoutMs} ms:\n${tail(log)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

export function tail(text: string, lines = 30): string {
  return text.trimEnd().split("\n").slice(-lines).join("\n");
}
