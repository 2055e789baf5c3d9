import { fork, type ChildProcess } from "node:child_process";
import path from "node:path";
import { ChildToParentSchema, type ChildToParent, type ParentToChild } from "../../lib/protocol/ipc";

const script = path.resolve(import.meta.dirname, "../../workers/agent-worker.ts");

/** The real agent worker, forked without a server: the test speaks its IPC directly. */
export class WorkerUnderTest {
  readonly child: ChildProcess;
  readonly received: ChildToParent[] = [];
  exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  private readonly listeners = new Set<() => void>();

  constructor() {
    this.child = fork(script, [], {
      execArgv: ["--import", "tsx"],
      env: { ...process.env, PARLEY_TEST_FUNCTIONS: "1" },
      stdio: ["ignore", "inherit", "inherit", "ipc"],
      serialization: "json",
    });
    this.child.on("message", (raw) => {
      this.received.push(ChildToParentSchema.parse(raw));
      for (const l of this.listeners) l();
    });
    this.child.on("exit", (code, signal) => {
      this.exit = { code, signal };
      for (const l of this.listeners) l();
    });
  }

  send(message: ParentToChild): void {
    this.child.send(message);
  }

  start(runId: string, functionName: string, input: unknown = null): void {
    this.send({ type: "run.start", runId, sessionId: "s-1", functionName, input, canAsk: true, journal: [] });
  }

  /** The first message (received so far or later) that matches; fails if the worker exits first. */
  next<T extends ChildToParent>(match: (m: ChildToParent) => m is T, ms?: number): Promise<T>;
  next(match: (m: ChildToParent) => boolean, ms?: number): Promise<ChildToParent>;
  next(match: (m: ChildToParent) => boolean, ms = 10_000): Promise<ChildToParent> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = this.received.find(match);
        if (found) done(() => resolve(found));
        else if (this.exit) done(() => reject(new Error(`the worker exited (code ${this.exit!.code}, signal ${this.exit!.signal}) first`)));
      };
      const timer = setTimeout(() => done(() => reject(new Error(`no matching message within ${ms} ms`))), ms);
      const done = (settle: () => void) => {
        clearTimeout(timer);
        this.listeners.delete(check);
        settle();
      };
      this.listeners.add(check);
      check();
    });
  }

  finished(runId: string, ms?: number) {
    return this.next((m): m is Extract<ChildToParent, { type: "run.finished" }> => m.type === "run.finished" && m.runId === runId, ms);
  }

  async ready(): Promise<void> {
    await this.next((m) => m.type === "worker.ready", 15_000);
  }

  async kill(): Promise<void> {
    if (this.exit) return;
    const exited = new Promise((r) => this.child.once("exit", r));
    this.child.kill("SIGKILL");
    await exited;
  }
}
