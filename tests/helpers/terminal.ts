import { spawnSync } from "node:child_process";
import { FOCUS_HINT, WAITING_HINT } from "../../lib/terminal/use-key-guard";
import path from "node:path";

/**
 * A program in a real pseudo-terminal, driven like a person at a keyboard: tmux runs it in a
 * detached session of a fixed size; keys go in with send-keys and the screen comes back as text
 * with capture-pane. Each terminal has its own tmux server (-L), so tests never share one.
 */

const root = path.resolve(import.meta.dirname, "../..");

/** Why terminal tests cannot run here, or null when tmux is there. */
export function tmuxMissing(): string | null {
  const probe = spawnSync("tmux", ["-V"], { encoding: "utf8" });
  return probe.status === 0 ? null : "tmux is not installed (apt-get install tmux; .ci/run installs it)";
}

let count = 0;

export class Terminal {
  private constructor(
    private readonly server: string,
    readonly command: string,
  ) {}

  /** Starts `args` (a command line, run in the project folder) in a `cols`×`rows` terminal. */
  static start(args: string[], { env = {}, cols = 100, rows = 40 }: { env?: Record<string, string>; cols?: number; rows?: number } = {}): Terminal {
    const server = `parley-test-${process.pid}-${++count}`;
    const assignments = Object.entries(env).map(([k, v]) => `${k}=${shellQuote(v)}`);
    // The program runs as a person would start it: not in CI, in a terminal that stays on screen after it exits.
    const command = ["cd", shellQuote(root), "&&", "exec", "env", "-u", "CI", "TERM=xterm-256color", ...assignments, ...args.map(shellQuote)].join(" ");
    const terminal = new Terminal(server, command);
    terminal.tmux("new-session", "-d", "-s", "main", "-x", String(cols), "-y", String(rows), command);
    terminal.tmux("set-option", "-t", "main", "remain-on-exit", "on");
    return terminal;
  }

  private tmux(...args: string[]): string {
    const res = spawnSync("tmux", ["-L", this.server, ...args], { encoding: "utf8" });
    if (res.status !== 0) throw new Error(`tmux ${args[0]} failed: ${res.stderr.trim()}`);
    return res.stdout;
  }

  /** What the terminal shows now, one string (trailing blank lines dropped); with `history`, also the lines scrolled off the top. */
  screen({ history = false }: { history?: boolean } = {}): string {
    return this.tmux("capture-pane", "-p", "-t", "main", ...(history ? ["-S", "-"] : [])).replace(/\s+$/, "");
  }

  /** Types text literally (no key names). */
  type(text: string): void {
    this.tmux("send-keys", "-t", "main", "-l", text);
  }

  /**
   * Presses keys by name (Enter, Escape, Up, Down, Tab, Space, BSpace, C-c …) a moment apart, as a
   * person would: keys sent faster than the program reads can arrive as one chunk, which
   * terminal programs (ink among them) may read as one key.
   */
  async press(...keys: string[]): Promise<void> {
    for (const [i, key] of keys.entries()) {
      if (i > 0) await new Promise((r) => setTimeout(r, 40));
      this.tmux("send-keys", "-t", "main", key);
    }
  }

  /**
   * Waits until a question shown in `parley chat` takes answers, as a person reading it would: its
   * first moments pass (the hint says so meanwhile); if keys typed just before it came make the
   * next key only take the keys, a key that answers nothing ("x") takes them.
   */
  async ready(): Promise<void> {
    const screen = await this.until((s) => !s.includes(WAITING_HINT), { history: false }, "kept its keys waiting", 10_000);
    if (!screen.includes(FOCUS_HINT)) return;
    this.type("x");
    await this.waitForGone(FOCUS_HINT);
  }

  /** Waits until the screen (or what scrolled off it) matches, and returns it; fails with the screen as it was. */
  waitFor(expected: string | RegExp, ms = 15_000): Promise<string> {
    return this.until((screen) => matches(screen, expected), { history: true }, `did not show ${String(expected)}`, ms);
  }

  /** Waits until the visible screen no longer matches. */
  waitForGone(gone: string | RegExp, ms = 15_000): Promise<string> {
    return this.until((screen) => !matches(screen, gone), { history: false }, `still shows ${String(gone)}`, ms);
  }

  /** Waits until `done` holds for the screen, and returns it; fails with the screen as it was. */
  async until(done: (screen: string) => boolean, { history }: { history: boolean }, failure: string, ms: number): Promise<string> {
    const deadline = Date.now() + ms;
    for (;;) {
      const screen = this.screen({ history });
      if (done(screen)) return screen;
      if (Date.now() > deadline) throw new Error(`The terminal ${failure} after ${ms} ms. It shows:\n${screen}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Whether the program has exited (the pane stays, marked dead). */
  exited(): boolean {
    return this.tmux("display-message", "-p", "-t", "main", "#{pane_dead}").trim() === "1";
  }

  close(): void {
    spawnSync("tmux", ["-L", this.server, "kill-server"]);
  }
}

const matches = (screen: string, expected: string | RegExp) => (typeof expected === "string" ? screen.includes(expected) : expected.test(screen));

function shellQuote(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}
