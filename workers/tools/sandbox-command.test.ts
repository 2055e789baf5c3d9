import { createServer, type Server } from "node:net";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sandboxMode, sandboxStartupLine } from "../../lib/sandbox/sandbox-mode";
import { commandEnv, runCommand } from "./run-command";
import { hiddenFromCommands, sandboxWords, SYSTEM_FOLDERS } from "./sandbox-command";
import { sleeping, uniqueSleep, until, workspaceEachTest } from "./tool-harness";

const mode = sandboxMode({ ...process.env, PARLEY_SANDBOX: undefined });
if (mode.kind !== "bwrap") console.warn(`[sandbox-command] SKIPPED: the sandbox's tests need bubblewrap: ${sandboxStartupLine(mode)}`);
const bwrap = mode.kind === "bwrap" ? mode.bwrap : "bwrap";

const workspace = workspaceEachTest("parley-sandbox-", { "a.txt": "alpha\n" });
const ws = () => workspace.ws();

/** Runs a command in the sandbox as the shell tool does: the workspace, its data folder hidden. */
async function sandboxed(command: string, { network = false, hidden = [] as string[], timeoutMs = 30_000, signal = new AbortController().signal, onOutput = (_: string) => {} } = {}) {
  return runCommand({ command, cwd: ws(), timeoutMs, signal, onOutput, env: commandEnv(), sandbox: { bwrap, workspace: ws(), network, hidden } });
}

/** A TCP server on loopback that answers "hello" to whoever connects. */
let listening: Server | null = null;
async function loopbackServer(): Promise<number> {
  listening = createServer((socket) => socket.end("hello\n"));
  await new Promise<void>((resolve) => listening!.listen(0, "127.0.0.1", resolve));
  return (listening.address() as { port: number }).port;
}
afterEach(() => new Promise<void>((resolve) => (listening ? listening.close(() => resolve()) : resolve())).then(() => void (listening = null)));

/** A node one-liner that connects to a port and prints what came back, or the error's code. */
const connect = (port: number) => `node -e 'require("net").connect(${port}, "127.0.0.1").on("data", (d) => process.stdout.write("got " + d)).on("error", (e) => console.log(e.code))'`;

describe.skipIf(mode.kind !== "bwrap")("a sandboxed command", () => {
  beforeEach(() => {
    writeFileSync(path.join(workspace.outside(), "secret.txt"), "outside secret\n");
  });

  it("changes the workspace, and nothing outside it", async () => {
    const outside = workspace.outside();
    const result = await sandboxed(`echo made > made.txt; echo x > ${outside}/written.txt; echo x > /etc/parley-test 2>&1; cat ${outside}/secret.txt; true`);
    expect(existsSync(path.join(ws(), "made.txt"))).toBe(true);
    expect(existsSync(path.join(outside, "written.txt"))).toBe(false);
    expect(existsSync("/etc/parley-test")).toBe(false);
    expect(result.output).not.toContain("outside secret");
    expect(result.output).toMatch(/Read-only file system/);
  });

  it("does not see the data folder, even inside the workspace: not the database, not the token file", async () => {
    const data = path.join(ws(), "data");
    mkdirSync(data);
    writeFileSync(path.join(data, "parley.db"), "database bytes");
    writeFileSync(path.join(data, "parley.db.token"), "the-server-token");
    const result = await sandboxed("ls -a data; cat data/parley.db data/parley.db.token 2>&1; cat a.txt", { hidden: [data] });
    expect(result.output).not.toContain("database bytes");
    expect(result.output).not.toContain("the-server-token");
    expect(result.output).toContain("alpha");
  });

  it("does not see the server's checkout or its user's home, and gets an empty home of its own", async () => {
    const result = await sandboxed(`ls ${process.cwd()} 2>&1; ls ${process.env.HOME ?? "/root"} 2>&1; echo "home=$HOME"; ls -A "$HOME" | wc -l`);
    expect(result.output).toContain(`ls: cannot access '${process.cwd()}': No such file or directory`);
    expect(result.output).toContain("home=/tmp/home\n0\n");
  });

  it("cannot read the server's environment through /proc: only its own processes are there", async () => {
    process.env.PARLEY_SANDBOX_TEST_SECRET = "proc-secret-value";
    try {
      const result = await sandboxed(
        `cat /proc/${process.pid}/environ 2>&1; for p in /proc/[0-9]*; do cat $p/environ 2>/dev/null; done | tr '\\0' '\\n' | grep -c PARLEY_SANDBOX_TEST_SECRET; ls -d /proc/[0-9]* | wc -l`,
      );
      expect(result.output).not.toContain("proc-secret-value");
      const [, count, processes] = result.output.trim().split("\n").slice(-3);
      expect(count).toBe("0");
      // bubblewrap's init, the shell, and the pipeline's own processes: a handful, not the machine's.
      expect(Number(processes)).toBeLessThan(10);
      expect(readdirSync("/proc").filter((n) => /^\d+$/.test(n)).length).toBeGreaterThan(Number(processes));
    } finally {
      delete process.env.PARLEY_SANDBOX_TEST_SECRET;
    }
  });

  it("has no network: not even loopback to a port this server listens on", async () => {
    const port = await loopbackServer();
    const result = await sandboxed(connect(port));
    expect(result.output.trim()).toBe("ECONNREFUSED");
  });

  it("with network: true, reaches a local server", async () => {
    const port = await loopbackServer();
    const result = await sandboxed(connect(port), { network: true });
    expect(result.output.trim()).toBe("got hello");
  });

  it("a fork bomb ends at the process limit and the time limit, and leaves nothing behind", async () => {
    const marker = uniqueSleep();
    const result = await sandboxed(`bomb() { sleep ${marker} & bomb | bomb & }; bomb; sleep 60`, { timeoutMs: 2_000 });
    expect(result.timedOut).toBe(true);
    expect(result.output).toMatch(/fork|Resource temporarily unavailable/i);
    // Every process of the bomb went with the sandbox's namespace.
    await until(() => !sleeping(marker));
  });

  it("does not outlive a Stop", async () => {
    const controller = new AbortController();
    const marker = uniqueSleep();
    const run = sandboxed(`sleep ${marker} & sleep 60`, { signal: controller.signal });
    await until(() => sleeping(marker));
    controller.abort();
    expect((await run).stopped).toBe(true);
    await until(() => !sleeping(marker));
  });
});

describe("the sandbox's words", () => {
  it("show the system read-only, the workspace read-write, and hide the data folder inside it", () => {
    const words = sandboxWords({ bwrap: "/usr/bin/bwrap", workspace: "/srv/ws", cwd: "/srv/ws/src", network: false, hidden: ["/srv/other/data"] }, "ls");
    expect(words.slice(0, 5)).toEqual(["/usr/bin/bwrap", "--unshare-all", "--unshare-user", "--die-with-parent", "--new-session"]);
    expect(words).not.toContain("--share-net");
    expect(words.join(" ")).toContain("--bind /srv/ws /srv/ws");
    expect(words.join(" ")).toContain("--chdir /srv/ws/src -- /bin/sh -c ls");
    // A hidden path outside the workspace is not there anyway: nothing to cover.
    expect(words).not.toContain("/srv/other/data");
    for (const i of words.flatMap((w, k) => (w === "--ro-bind" ? [k] : []))) expect(SYSTEM_FOLDERS.some((f) => words[i + 1]!.startsWith(f)) || words[i + 1] === "/dev/null").toBe(true);
    expect(sandboxWords({ bwrap: "bwrap", workspace: "/srv/ws", cwd: "/srv/ws", network: true }, "ls")).toContain("--share-net");
  });

  it("hide the data folder, the SQLite database's folder and its files", () => {
    const hidden = hiddenFromCommands({ DATABASE_URL: "file:./somewhere/parley.db" });
    expect(hidden).toContain(path.resolve("data"));
    expect(hidden).toContain(path.resolve("somewhere"));
    expect(hidden).toContain(path.resolve("somewhere/parley.db.token"));
    expect(hiddenFromCommands({ DATABASE_URL: "postgresql://x@h/db" })).toEqual([path.resolve("data")]);
  });
});
