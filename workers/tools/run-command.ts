import { spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { StringDecoder } from "node:string_decoder";
import { commandCgroup, joinCgroupWords, prlimitWords } from "./command-limits";
import { nodePrefix, SANDBOX_HOME, sandboxWords, systemProgram } from "./sandbox-command";

/** A command's output kept at most: its first HEAD_CHARS and its last TAIL_CHARS characters. */
export const HEAD_CHARS = 10_000;
export const TAIL_CHARS = 20_000;
/** After SIGTERM, how long a command's processes have before SIGKILL. */
export const KILL_GRACE_MS = 2_000;

/**
 * The HOME commands get: a folder of their own under the system's temporary folder, not the
 * real home of the user running Parley (its dotfiles, keys and credentials stay out of reach of
 * `~`-relative tools such as npm or git).
 */
export function commandHome(): string {
  const home = path.join(os.tmpdir(), `parley-command-home-${process.getuid?.() ?? "user"}`);
  mkdirSync(home, { recursive: true, mode: 0o700 });
  return home;
}

/**
 * The environment a command runs with, built from nothing: PATH, LANG and LC_*, TERM=dumb, HOME
 * (see commandHome) and npm's update check off. Nothing else of Parley's environment (its
 * database URL, tokens, API keys, PARLEY_* settings) reaches it.
 */
export function commandEnv(source: Record<string, string | undefined> = process.env, home = commandHome()): Record<string, string> {
  const env: Record<string, string> = {
    PATH: source.PATH || "/usr/local/bin:/usr/bin:/bin",
    TERM: "dumb",
    HOME: home,
    npm_config_update_notifier: "false",
  };
  for (const [name, value] of Object.entries(source)) {
    if (value !== undefined && /^(LANG|LANGUAGE|LC_[A-Z]+)$/.test(name)) env[name] = value;
  }
  return env;
}

export interface CommandOptions {
  command: string;
  /** The real folder it runs in (checked by the caller to be inside the workspace). */
  cwd: string;
  timeoutMs: number;
  signal: AbortSignal;
  /** Each piece of output as it comes (stdout and stderr together). */
  onOutput?: (text: string) => void;
  env?: Record<string, string>;
  /** Run inside bubblewrap (sandbox-command.ts) with COMMAND_LIMITS; absent: as a plain process of this user. */
  sandbox?: { bwrap: string; workspace: string; network: boolean; hidden?: readonly string[] };
}

/** The program and arguments that run `command`: /bin/sh, or /bin/sh inside the sandbox within its limits. */
function commandWords(command: string, cwd: string, sandbox: CommandOptions["sandbox"]): { words: string[]; done: () => void } {
  if (!sandbox) return { words: ["/bin/sh", "-c", command], done: () => {} };
  const cgroup = commandCgroup();
  const inside = prlimitWords(systemProgram("prlimit"));
  const words = [...joinCgroupWords(cgroup?.dirs ?? []), ...sandboxWords({ ...sandbox, cwd, inside, nodePrefix: nodePrefix() }, command)];
  return { words, done: () => cgroup?.remove() };
}

export interface CommandResult {
  [key: string]: string | number | boolean | null;
  /** null when it was killed (timeout, Stop). */
  exitCode: number | null;
  /** The signal that ended it, if one did. */
  signal: string | null;
  timedOut: boolean;
  /** Stopped by the run's Stop. */
  stopped: boolean;
  /** stdout and stderr as they came, the middle cut out past the limit (a line says how much). */
  output: string;
  /** Characters of output cut out (0 when all is kept). */
  cutChars: number;
  durationMs: number;
}

/** The process groups of the commands running now: killed if this process exits while they run. */
const running = new Set<number>();
let exitHook = false;

function track(pid: number): void {
  running.add(pid);
  if (exitHook) return;
  exitHook = true;
  // A command runs in its own group, so it would outlive the worker: it goes with it instead.
  process.once("exit", () => {
    for (const group of running) {
      try {
        process.kill(-group, "SIGKILL");
      } catch {
        // Gone already.
      }
    }
  });
}

/** Output kept within HEAD_CHARS + TAIL_CHARS: the head as it came, then a sliding tail. */
class BoundedOutput {
  private head = "";
  private tail = "";
  private cut = 0;

  add(text: string) {
    if (this.head.length < HEAD_CHARS) {
      const room = HEAD_CHARS - this.head.length;
      this.head += text.slice(0, room);
      text = text.slice(room);
    }
    if (!text) return;
    this.tail += text;
    if (this.tail.length > TAIL_CHARS * 2) this.trim();
  }

  private trim() {
    const over = this.tail.length - TAIL_CHARS;
    if (over > 0) {
      this.cut += over;
      this.tail = this.tail.slice(over);
    }
  }

  result(): { output: string; cutChars: number } {
    this.trim();
    if (this.cut === 0) return { output: this.head + this.tail, cutChars: 0 };
    return { output: `${this.head}\n… ${this.cut} characters of output cut …\n${this.tail}`, cutChars: this.cut };
  }
}

/**
 * Runs `command` with `/bin/sh -c` in its own process group (and, sandboxed, its own PID
 * namespace), so that a timeout or a Stop ends every process it started (SIGTERM, then SIGKILL
 * after KILL_GRACE_MS), and so does its end: what it left running in the background is killed when
 * the shell exits.
 */
export function runCommand({ command, cwd, timeoutMs, signal, onOutput, env = commandEnv(), sandbox }: CommandOptions): Promise<CommandResult> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      resolve({ exitCode: null, signal: null, timedOut: false, stopped: true, output: "", cutChars: 0, durationMs: 0 });
      return;
    }
    const { words, done } = commandWords(command, cwd, sandbox);
    const child = spawn(words[0]!, words.slice(1), { cwd, env: (sandbox ? { ...env, HOME: SANDBOX_HOME } : env) as NodeJS.ProcessEnv, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    const group = child.pid;
    if (group) track(group);
    const output = new BoundedOutput();
    let timedOut = false;
    let stopped = false;
    let graceTimer: NodeJS.Timeout | undefined;
    const killGroup = (sig: NodeJS.Signals) => {
      try {
        if (child.pid) process.kill(-child.pid, sig);
      } catch {
        // The group is gone already.
      }
    };
    const end = (sig: NodeJS.Signals) => {
      killGroup(sig);
      graceTimer ??= setTimeout(() => killGroup("SIGKILL"), KILL_GRACE_MS);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      end("SIGTERM");
    }, timeoutMs);
    const onAbort = () => {
      stopped = true;
      end("SIGTERM");
    };
    signal.addEventListener("abort", onAbort, { once: true });
    for (const stream of [child.stdout, child.stderr]) {
      const decoder = new StringDecoder("utf8");
      stream.on("data", (chunk: Buffer) => {
        const text = decoder.write(chunk);
        if (!text) return;
        output.add(text);
        onOutput?.(text);
      });
    }
    let exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
    // The shell is done: whatever it left in its group goes too, so the pipes close.
    child.on("exit", (code, sig) => {
      exit = { code, signal: sig };
      killGroup("SIGKILL");
    });
    child.on("error", (err) => {
      done();
      if (group) running.delete(group);
      clearTimeout(timer);
      clearTimeout(graceTimer);
      signal.removeEventListener("abort", onAbort);
      reject(err);
    });
    child.on("close", (code, sig) => {
      done();
      if (group) running.delete(group);
      clearTimeout(timer);
      clearTimeout(graceTimer);
      signal.removeEventListener("abort", onAbort);
      const ended = exit ?? { code, signal: sig };
      resolve({ exitCode: ended.code, signal: ended.signal, timedOut, stopped, ...output.result(), durationMs: Date.now() - started });
    });
  });
}
