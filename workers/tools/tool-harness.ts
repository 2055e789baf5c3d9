import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { ChildToParent } from "../../lib/protocol/ipc";
import { afterEach, beforeEach } from "vitest";
import { prepareWorkspace } from "../../lib/server/workspace/prepare-workspace";
import { createRuntime, type Settlement } from "../runtime";

/* For the tools' and the demos' tests: a temporary workspace, and a runtime that answers approvals. */

type Ask = Extract<ChildToParent, { type: "question.ask" }>;

/** A temporary folder (real path), removed by `cleanup`. */
export function tempFolder(prefix = "parley-tools-"): { dir: string; cleanup: () => void } {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * For a test file: before each test a new temporary workspace seeded with the sample project
 * (`files` instead, when given) and a folder outside it holding `secret.txt`; both removed after.
 * Read them through the returned getters.
 */
export function workspaceEachTest(prefix: string, files?: Readonly<Record<string, string>>): { ws: () => string; outside: () => string } {
  let ws = "";
  let outside = "";
  const cleanups: Array<() => void> = [];
  beforeEach(() => {
    const a = tempFolder(`${prefix}ws-`);
    const b = tempFolder(`${prefix}outside-`);
    cleanups.push(a.cleanup, b.cleanup);
    ws = a.dir;
    outside = b.dir;
    prepareWorkspace(ws, files);
    writeFileSync(path.join(outside, "secret.txt"), "TOP SECRET\n");
  });
  afterEach(() => {
    for (const c of cleanups.splice(0)) c();
  });
  return { ws: () => ws, outside: () => outside };
}

/**
 * A runtime whose tools work in `workspace`, on a fake host: each approval is answered by
 * `answer` (which may change the disk first: a race), "allow once" by default.
 */
export function toolRuntime(workspace: string, answer: (ask: Ask) => Promise<Partial<Settlement>> | Partial<Settlement> = () => ({})) {
  const sent: ChildToParent[] = [];
  let n = 0;
  const controller = createRuntime({
    runId: "run-t",
    sessionId: "s-t",
    canAsk: true,
    workspace,
    newId: () => `q${++n}`,
    send(m) {
      sent.push(m);
      if (m.type === "question.ask") {
        void Promise.resolve(answer(m)).then((s) => controller.settle(m.questionId, { outcome: "answered", value: "once", feedback: null, ...s }));
      }
    },
  });
  return {
    rt: controller.rt,
    controller,
    sent,
    asks: () => sent.filter((m): m is Ask => m.type === "question.ask"),
    progress: () => sent.flatMap((m) => (m.type === "run.progress" ? [m.text] : [])),
  };
}

/** How the sandbox is set for a test: its environment variables (undefined: unset). */
export type SandboxSetting = { PARLEY_SANDBOX?: string; PARLEY_BWRAP?: string };

/** Sets PARLEY_SANDBOX and PARLEY_BWRAP for each test of the describe it is called in (`setting()` read then), and puts them back after. */
export function sandboxSettingEachTest(setting: () => SandboxSetting): void {
  beforeEach(() => {
    const names = ["PARLEY_SANDBOX", "PARLEY_BWRAP"] as const;
    const before = names.map((name) => process.env[name]);
    const wanted = setting();
    for (const name of names) {
      if (wanted[name] === undefined) delete process.env[name];
      else process.env[name] = wanted[name];
    }
    return () =>
      names.forEach((name, i) => {
        if (before[i] === undefined) delete process.env[name];
        else process.env[name] = before[i];
      });
  });
}

/**
 * A `sleep` no other process on the machine runs: its duration is the marker. Its pid inside a
 * sandbox means nothing outside it, so the machine's processes are searched for the marker instead.
 */
export const uniqueSleep = () => `${30 + Math.floor(Math.random() * 1_000)}.${process.pid}${Math.floor(Math.random() * 1e6)}`;

/** Whether a live process (not a zombie waiting to be reaped) runs `sleep <marker>`. */
export function sleeping(marker: string): boolean {
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, "utf8") !== `sleep\0${marker}\0`) continue;
      if (!/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"))) return true;
    } catch {
      // It ended while being read.
    }
  }
  return false;
}

/** Waits until `check` holds, polling; throws after `ms` (a ceiling for a hang, not a bound on time). */
export async function until(check: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 20));
  }
}
