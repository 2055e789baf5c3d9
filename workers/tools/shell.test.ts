import { existsSync, mkdirSync, symlinkSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { RunCancelled, ToolDenied, ToolInputInvalid } from "../runtime";
import { sandboxMode, sandboxStartupLine } from "../../lib/sandbox/sandbox-mode";
import { HEAD_CHARS, TAIL_CHARS } from "./run-command";
import { sandboxSettingEachTest, sleeping, toolRuntime, uniqueSleep, until, workspaceEachTest } from "./tool-harness";

const workspace = workspaceEachTest("parley-shell-", { "a.txt": "alpha\n" });
beforeEach(() => mkdirSync(path.join(workspace.ws(), "src")));
const ws = () => workspace.ws();
const outside = () => workspace.outside();

/** Every behaviour in both ways a command runs: in bubblewrap's sandbox (the default here), and plain (PARLEY_SANDBOX=off). */
const MODES = [
  { name: "sandboxed", sandboxed: true },
  { name: "not sandboxed (PARLEY_SANDBOX=off)", sandboxed: false },
] as const;

describe.each(MODES)("shell, $name", ({ sandboxed }) => {
  sandboxSettingEachTest(() => (sandboxed ? {} : { PARLEY_SANDBOX: "off" }));
  beforeEach(({ skip }) => {
    if (sandboxed && sandboxMode().kind !== "bwrap") skip(`SKIPPED: ${sandboxStartupLine(sandboxMode())}`);
  });

  it("runs a command in the workspace and returns its exit code and output, after the approval", async () => {
    const h = toolRuntime(ws());
    // stdout and stderr are two pipes: the pauses keep their order certain.
    const command = "cat a.txt; sleep 0.2; echo err >&2; sleep 0.2; pwd; exit 3";
    const result = await h.rt.tool("shell", { command });
    expect(result).toMatchObject({ command, cwd: ".", exitCode: 3, signal: null, timedOut: false, stopped: false, cutChars: 0 });
    expect(result.output).toBe(`alpha\nerr\n${ws()}\n`);
    expect(h.asks()[0]!.spec.approval).toMatchObject({ tool: "shell", subject: command, dangerous: true });
  });

  it("runs in cwd, a folder inside the workspace", async () => {
    const h = toolRuntime(ws());
    expect((await h.rt.tool("shell", { command: "pwd && cat ../a.txt", cwd: "src" })).output).toBe(`${path.join(ws(), "src")}\nalpha\n`);
    expect(h.asks()[0]!.spec.approval!.preview).toEqual({ type: "command", command: "pwd && cat ../a.txt", cwd: "src", bound: sandboxed ? "sandboxed" : "opted-out" });
  });

  it("refuses, without asking, a cwd outside, a cwd through a symlink out, and arguments naming paths outside", async () => {
    symlinkSync(outside(), path.join(ws(), "out"));
    const h = toolRuntime(ws());
    const refused = (input: { command: string; cwd?: string }) => h.rt.tool("shell", input).catch((e: unknown) => e);
    expect(await refused({ command: "ls", cwd: ".." })).toBeInstanceOf(ToolInputInvalid);
    expect(await refused({ command: "ls", cwd: "/tmp" })).toBeInstanceOf(ToolInputInvalid);
    // An absolute path of the test's own (a shared name like /tmp/x may be anything on the machine).
    const absolute = path.join(outside(), "touched");
    expect(await refused({ command: `touch ${absolute}` })).toMatchObject({
      name: "ToolInputInvalid",
      message: expect.stringContaining(`\`${absolute}\` is an absolute path: commands run only inside the workspace`),
    });
    expect(await refused({ command: "cp a.txt ../../x" })).toMatchObject({ name: "ToolInputInvalid", message: expect.stringMatching(/`\.\.\/\.\.\/x` climbs out of the workspace/) });
    expect(await refused({ command: "cp a.txt ../x", cwd: "src/.." })).toBeInstanceOf(ToolInputInvalid);
    expect(await refused({ command: "ls", cwd: "out" })).toMatchObject({ name: "ToolDenied", reason: "denied", message: expect.stringMatching(/outside the workspace/) });
    expect(await refused({ command: "cat out/secret.txt" })).toMatchObject({ name: "ToolDenied", message: expect.stringMatching(/^Denied: `out\/secret\.txt` leads outside the workspace/) });
    expect(await refused({ command: "cp a.txt out/copied.txt" })).toBeInstanceOf(ToolDenied);
    expect(h.asks()).toEqual([]);
    expect(existsSync(absolute)).toBe(false);
    expect(existsSync(path.join(outside(), "copied.txt"))).toBe(false);
  });

  it("runs with a clean environment: none of Parley's secrets, a HOME that is not the real one, TERM=dumb", async () => {
    const secrets = { PARLEY_TOKEN: "parley-token-secret-1", DATABASE_URL: "file:/secret/db", OPENAI_API_KEY: "sk-secret-2", GITHUB_TOKEN: "ghp-secret-3", REDIS_URL: "redis://secret-4" };
    const before = { ...process.env };
    Object.assign(process.env, secrets, { LANG: "C.UTF-8" });
    try {
      const h = toolRuntime(ws());
      const { output } = await h.rt.tool("shell", { command: "env" });
      for (const value of Object.values(secrets)) expect(output).not.toContain(value);
      const vars = Object.fromEntries(
        output
          .trim()
          .split("\n")
          .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
      );
      expect(Object.keys(vars).filter((k) => /^PARLEY_|_API_KEY$|_TOKEN$|^DATABASE_URL$|^REDIS_URL$/.test(k))).toEqual([]);
      expect(vars.TERM).toBe("dumb");
      expect(vars.LANG).toBe("C.UTF-8");
      expect(vars.HOME).not.toBe(os.homedir());
      // Sandboxed, an empty home in its private /tmp; plain, a folder of its own beside the others' temporary files.
      expect(vars.HOME).toBe(sandboxed ? "/tmp/home" : path.join(os.tmpdir(), `parley-command-home-${process.getuid!()}`));
    } finally {
      for (const k of Object.keys(process.env)) if (!(k in before)) delete process.env[k];
      Object.assign(process.env, before);
    }
  });

  it("streams its output as progress while it runs, and clears it at the end", async () => {
    const h = toolRuntime(ws());
    await h.rt.tool("shell", { command: "echo first; sleep 0.6; echo second; sleep 0.4" });
    const progress = h.progress();
    expect(progress[0]).toBe("$ echo first; sleep 0.6; echo second; sleep 0.4 …");
    expect(progress).toContain("$ echo first; sleep 0.6; echo second; sleep 0.4 · first");
    expect(progress).toContain("$ echo first; sleep 0.6; echo second; sleep 0.4 · second");
    expect(progress.at(-1)).toBeNull();
  });

  it("a timeout kills the whole process group: a background child does not survive", async () => {
    const h = toolRuntime(ws());
    const marker = uniqueSleep();
    const started = Date.now();
    const result = await h.rt.tool("shell", { command: `sleep ${marker} & echo started > child.started; sleep 30`, timeoutSeconds: 1 });
    // Ended by the timeout's SIGTERM (after the grace, a SIGKILL would show in `signal`), long before
    // the sleeps of 30 s would have: waiting for the one in the background was the bug.
    expect(Date.now() - started).toBeLessThan(30_000 / 2);
    expect(result).toMatchObject({ timedOut: true, exitCode: null, signal: "SIGTERM" });
    expect(existsSync(path.join(ws(), "child.started"))).toBe(true);
    await until(() => !sleeping(marker));
  });

  it("a command that ignores SIGTERM is ended all the same", async () => {
    const h = toolRuntime(ws());
    const marker = uniqueSleep();
    const result = await h.rt.tool("shell", { command: `trap '' TERM; echo started > sh.started; sleep ${marker}`, timeoutSeconds: 1 });
    // Plain, the shell outlives the SIGTERM until the grace's SIGKILL; sandboxed, the SIGTERM ends
    // bubblewrap, whose namespace takes every process in it at once.
    expect(result).toMatchObject({ timedOut: true, signal: sandboxed ? "SIGTERM" : "SIGKILL" });
    expect(existsSync(path.join(ws(), "sh.started"))).toBe(true);
    await until(() => !sleeping(marker));
  });

  it("what a command leaves running in the background is ended when it exits", async () => {
    const h = toolRuntime(ws());
    const marker = uniqueSleep();
    const result = await h.rt.tool("shell", { command: `sleep ${marker} > /dev/null 2>&1 & echo started` });
    expect(result).toMatchObject({ exitCode: 0, output: "started\n" });
    await until(() => !sleeping(marker));
  });

  it("Stop (the run's abort) kills the command and its children; the call ends as cancelled", async () => {
    const h = toolRuntime(ws());
    const marker = uniqueSleep();
    const call = h.rt.tool("shell", { command: `sleep ${marker} & echo started > child.started; sleep 30` }).catch((e: unknown) => e);
    await until(() => existsSync(path.join(ws(), "child.started")) && sleeping(marker));
    h.controller.cancel("Stopped by the person.");
    expect(await call).toBeInstanceOf(RunCancelled);
    await until(() => !sleeping(marker));
  });

  it("keeps the head and the tail of a long output, saying how much was cut", async () => {
    const h = toolRuntime(ws());
    const result = await h.rt.tool("shell", { command: "echo START; i=0; while [ $i -lt 2000 ]; do echo 'line of output number'\" $i\"; i=$((i+1)); done; echo END" });
    expect(result.exitCode).toBe(0);
    const total = "START\n".length + Array.from({ length: 2000 }, (_, i) => `line of output number ${i}\n`.length).reduce((a, b) => a + b, 0) + "END\n".length;
    expect(result.cutChars).toBe(total - HEAD_CHARS - TAIL_CHARS);
    expect(result.output.startsWith("START\nline of output number 0\n")).toBe(true);
    expect(result.output.endsWith("line of output number 1999\nEND\n")).toBe(true);
    expect(result.output).toContain(`\n… ${result.cutChars} characters of output cut …\n`);
    expect(result.output.length).toBeLessThan(HEAD_CHARS + TAIL_CHARS + 100);
  });

  it("does nothing when rejected", async () => {
    const h = toolRuntime(ws(), () => ({ outcome: "declined", feedback: null }));
    await expect(h.rt.tool("shell", { command: "touch made.txt" })).rejects.toBeInstanceOf(ToolDenied);
    expect(existsSync(path.join(ws(), "made.txt"))).toBe(false);
  });
});

describe.each(MODES)("a worker that exits while a command runs, $name", ({ sandboxed }) => {
  it("takes the command's processes with it", async ({ skip }) => {
    if (sandboxed && sandboxMode().kind !== "bwrap") skip(`SKIPPED: ${sandboxStartupLine(sandboxMode())}`);
    const { spawn } = await import("node:child_process");
    const marker = uniqueSleep();
    const sandbox = sandboxed ? `, sandbox: { bwrap: ${JSON.stringify((sandboxMode() as { bwrap?: string }).bwrap)}, workspace: ${JSON.stringify(ws())}, network: false }` : "";
    const script = `
      import { runCommand } from ${JSON.stringify(path.join(import.meta.dirname, "run-command.ts"))};
      void runCommand({ command: "sleep ${marker} & echo started > child.started; sleep 30", cwd: ${JSON.stringify(ws())}, timeoutMs: 60_000, signal: new AbortController().signal${sandbox} });
      const started = ${JSON.stringify(path.join(ws(), "child.started"))};
      const { existsSync } = await import("node:fs");
      const wait = setInterval(() => existsSync(started) && (clearInterval(wait), process.exit(0)), 20);
    `;
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { stdio: "ignore" });
    await new Promise((r) => child.once("exit", r));
    expect(existsSync(path.join(ws(), "child.started"))).toBe(true);
    await until(() => !sleeping(marker));
  });
});
