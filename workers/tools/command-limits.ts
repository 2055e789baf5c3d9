import { existsSync, mkdirSync, readdirSync, rmdirSync, writeFileSync } from "node:fs";
import path from "node:path";

/**
 * What one sandboxed command may use at most. Processes and memory are held by a control group
 * where this process may make one (the server runs as root, or a delegated cgroup v2 tree), and
 * by resource limits inside the sandbox otherwise (`prlimit`: the process count there is per user
 * namespace, so it bounds only the command's own processes). Output is bounded where it is read
 * (run-command.ts keeps its head and tail); a file the command writes, by RLIMIT_FSIZE.
 */
export const COMMAND_LIMITS = {
  processes: 512,
  memoryBytes: 2 * 1024 ** 3,
  fileBytes: 1024 ** 3,
} as const;

export interface CommandCgroup {
  /** The cgroup folders the command's first process joins (one per v1 hierarchy, one on v2). */
  dirs: string[];
  /** Removes them (their processes have ended). */
  remove(): void;
}

const ROOT = "/sys/fs/cgroup";
let counter = 0;

function removed(dir: string): boolean {
  try {
    rmdirSync(dir);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ENOENT";
  }
}

function made(dir: string, files: Record<string, string>): boolean {
  try {
    mkdirSync(dir, { recursive: true });
    for (const [name, value] of Object.entries(files)) writeFileSync(path.join(dir, name), value);
    return true;
  } catch {
    try {
      rmdirSync(dir);
    } catch {
      // It was never made.
    }
    return false;
  }
}

/** Whether a process is alive (signal 0 probes it; EPERM: alive, another user's). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

let swept = false;
/** The cgroup v2 folder of every command, made and given its controllers once per process. */
let v2Base: string | null | undefined;

/** Removes the cgroups left by processes that are gone (one that was still busy when its command ended). */
function sweep(bases: readonly string[]): void {
  if (swept) return;
  swept = true;
  for (const base of bases) {
    let names: string[];
    try {
      names = readdirSync(base);
    } catch {
      continue;
    }
    for (const name of names) {
      const owner = /^cmd-(\d+)-\d+$/.exec(name);
      if (owner && !alive(Number(owner[1]))) removed(path.join(base, name));
    }
  }
}

/** A control group of its own for one command with COMMAND_LIMITS' processes and memory, or null where none can be made. */
export function commandCgroup(limits = COMMAND_LIMITS): CommandCgroup | null {
  const name = `cmd-${process.pid}-${++counter}`;
  const dirs: string[] = [];
  if (existsSync(path.join(ROOT, "cgroup.controllers"))) {
    if (v2Base === undefined) {
      const base = path.join(ROOT, "parley-commands");
      sweep([base]);
      try {
        mkdirSync(base, { recursive: true });
        writeFileSync(path.join(base, "cgroup.subtree_control"), "+pids +memory");
        v2Base = base;
      } catch {
        v2Base = null;
      }
    }
    if (v2Base === null) return null;
    const base = v2Base;
    const dir = path.join(base, name);
    if (made(dir, { "pids.max": String(limits.processes), "memory.max": String(limits.memoryBytes), "memory.swap.max": "0" })) dirs.push(dir);
  } else {
    sweep([path.join(ROOT, "pids", "parley-commands"), path.join(ROOT, "memory", "parley-commands")]);
    const pids = path.join(ROOT, "pids", "parley-commands", name);
    if (existsSync(path.join(ROOT, "pids")) && made(pids, { "pids.max": String(limits.processes) })) dirs.push(pids);
    const memory = path.join(ROOT, "memory", "parley-commands", name);
    if (existsSync(path.join(ROOT, "memory")) && made(memory, { "memory.limit_in_bytes": String(limits.memoryBytes) })) dirs.push(memory);
  }
  if (dirs.length === 0) return null;
  return {
    dirs,
    remove() {
      const left = dirs.filter((dir) => !removed(dir));
      // The namespace's last processes may still be going away: once more a moment later (and the
      // next process's sweep takes what this one leaves when it exits first).
      if (left.length > 0) setTimeout(() => left.forEach(removed), 1_000).unref();
    },
  };
}

/**
 * The words that put a command's first process into its cgroups, then run the rest: a shell that
 * joins them itself before `exec`, so nothing the command starts is ever outside them.
 */
export function joinCgroupWords(dirs: readonly string[]): string[] {
  if (dirs.length === 0) return [];
  return ["/bin/sh", "-c", 'while [ "$1" != -- ]; do echo $$ > "$1/cgroup.procs" || exit 125; shift; done; shift; exec "$@"', "parley-limits", ...dirs, "--"];
}

/** `prlimit` words for the limits inside the sandbox (none when prlimit is not installed). */
export function prlimitWords(prlimit: string | null, limits = COMMAND_LIMITS): string[] {
  if (!prlimit) return [];
  return [prlimit, `--nproc=${limits.processes}`, `--data=${limits.memoryBytes}`, `--fsize=${limits.fileBytes}`, "--"];
}

const gib = (bytes: number) => `${bytes / 1024 ** 3} GiB`;

/**
 * What holds each command to COMMAND_LIMITS here, in one line for start-up: a control group, or
 * only `prlimit` (whose process count a root server's commands are not held to: the kernel lets
 * root's user past RLIMIT_NPROC), or nothing.
 */
export function commandLimitsLine({ cgroup, prlimit, root }: { cgroup: boolean; prlimit: boolean; root: boolean }, limits = COMMAND_LIMITS): string {
  const amounts = `${limits.processes} processes and ${gib(limits.memoryBytes)} of memory, files up to ${gib(limits.fileBytes)}`;
  if (cgroup) return `each command may use at most ${amounts} (a control group of its own)`;
  if (!prlimit) return "commands have NO process or memory limit: no control group can be made here and prlimit (util-linux) is not installed";
  if (root) {
    return `each command may use at most ${gib(limits.memoryBytes)} of memory and files up to ${gib(limits.fileBytes)} (prlimit), but NO process limit: no control group can be made here and the kernel lets root past RLIMIT_NPROC (run as another user, or give the server a cgroup v2 tree)`;
  }
  return `each command may use at most ${amounts} (prlimit; no control group can be made here, so the process count is this user's processes in the sandbox)`;
}

/** The limits in effect on this machine, probed once (a control group made and removed). */
export function probeCommandLimits(prlimit: string | null): { cgroup: boolean; prlimit: boolean; root: boolean } {
  const group = commandCgroup();
  group?.remove();
  return { cgroup: group !== null, prlimit: prlimit !== null, root: process.getuid?.() === 0 };
}
