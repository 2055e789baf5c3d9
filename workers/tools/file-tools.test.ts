import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ChildToParent, JournalRecord } from "../../lib/protocol/ipc";
import { createRuntime, ToolDenied, ToolFailed, ToolInputInvalid } from "../runtime";
import { MAX_READ_BYTES } from "./read-file";
import { tempFolder, toolRuntime, workspaceEachTest } from "./tool-harness";

const workspace = workspaceEachTest("parley-files-", {
  "README.md": "# Sample\n\nHello there.\n",
  "docs/guide.md": "# Guide\n\nStep one.\nStep two.\n",
});
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});
const ws = () => workspace.ws();
const outside = () => workspace.outside();

const read = (rel: string) => readFileSync(path.join(ws(), rel), "utf8");

async function until(check: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe("read_file", () => {
  it("reads a text file of the workspace", async () => {
    const h = toolRuntime(ws());
    expect(await h.rt.tool("read_file", { path: "docs/guide.md" })).toEqual({ path: "docs/guide.md", content: "# Guide\n\nStep one.\nStep two.\n", bytes: 29, lines: 4 });
    expect(h.asks()[0]!.spec.approval).toMatchObject({ tool: "read_file", subject: "docs/guide.md", subjectKind: "path", dangerous: false });
  });

  it("says clearly when the file is missing, a folder, binary or too big", async () => {
    writeFileSync(path.join(ws(), "logo.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 1]));
    writeFileSync(path.join(ws(), "big.txt"), "x".repeat(MAX_READ_BYTES + 1));
    const h = toolRuntime(ws());
    const failure = (p: string) => h.rt.tool("read_file", { path: p }).catch((e: unknown) => e);
    expect(await failure("nope.md")).toMatchObject({ name: "ToolFailed", message: "`nope.md` does not exist." });
    expect(await failure("docs")).toMatchObject({ message: "`docs` is a folder (use list_files)." });
    expect(await failure("logo.png")).toMatchObject({ message: "`logo.png` is a binary file (8 bytes): not read." });
    expect(await failure("big.txt")).toMatchObject({ message: expect.stringMatching(/^`big\.txt` is 100001 bytes, more than read_file's limit of 100000: not read/) });
    for (const e of [await failure("nope.md")]) expect(e).toBeInstanceOf(ToolFailed);
  });
});

describe("a named pipe in the workspace", () => {
  it("is refused, not waited on: read_file, write_file and edit_file do not hang", async () => {
    execFileSync("mkfifo", [path.join(ws(), "pipe")]);
    const h = toolRuntime(ws());
    await expect(h.rt.tool("read_file", { path: "pipe" })).rejects.toMatchObject({ name: "ToolFailed", message: "`pipe` is not a regular file." });
    await expect(h.rt.tool("write_file", { path: "pipe", content: "x" })).rejects.toMatchObject({ name: "ToolFailed", message: "`pipe` is not a regular file." });
    await expect(h.rt.tool("edit_file", { path: "pipe", old: "a", new: "b" })).rejects.toMatchObject({ name: "ToolFailed" });
    // The writes are refused before asking (their diff needs the content); the read, when it runs.
    expect(h.asks().map((a) => a.spec.approval!.tool)).toEqual(["read_file"]);
  });
});

describe("write_file", () => {
  it("writes a new file, making its folders, after an approval whose diff is from nothing", async () => {
    const h = toolRuntime(ws());
    const result = await h.rt.tool("write_file", { path: "notes/2026/today.md", content: "one\ntwo\n" });
    expect(result).toEqual({ path: "notes/2026/today.md", written: true, created: true, bytes: 8, lines: 2 });
    expect(read("notes/2026/today.md")).toBe("one\ntwo\n");
    expect(h.asks()[0]!.spec.approval!.preview).toEqual({ type: "diff", path: "notes/2026/today.md", diff: "--- /dev/null\n+++ b/notes/2026/today.md\n@@ -0,0 +1,2 @@\n+one\n+two\n" });
    // Atomic: no temporary file is left beside it.
    expect(readdirSync(path.join(ws(), "notes/2026"))).toEqual(["today.md"]);
  });

  it("diffs against the file's real content, replaces it and keeps its mode", async () => {
    chmodSync(path.join(ws(), "README.md"), 0o600);
    const h = toolRuntime(ws());
    await h.rt.tool("write_file", { path: "README.md", content: "# Sample\n\nHello, world.\n" });
    const preview = h.asks()[0]!.spec.approval!.preview;
    expect(preview).toEqual({ type: "diff", path: "README.md", diff: "--- a/README.md\n+++ b/README.md\n@@ -1,3 +1,3 @@\n # Sample\n \n-Hello there.\n+Hello, world.\n" });
    expect(read("README.md")).toBe("# Sample\n\nHello, world.\n");
    expect(statSync(path.join(ws(), "README.md")).mode & 0o777).toBe(0o600);
    expect(readdirSync(ws()).sort()).toEqual(["README.md", "docs"]);
  });

  it("refuses to write a file that changed after the approval was asked: the person approved another diff", async () => {
    const h = toolRuntime(ws(), () => {
      writeFileSync(path.join(ws(), "README.md"), "changed meanwhile\n");
      return {};
    });
    const err = await h.rt.tool("write_file", { path: "README.md", content: "mine\n" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ToolFailed);
    expect((err as Error).message).toMatch(/^`README\.md` changed after the approval was asked/);
    expect(read("README.md")).toBe("changed meanwhile\n");
  });

  it("a run parked while the card waited, resumed from its journal, still refuses a file changed since the card was shown", async () => {
    // The live run: the checks' stamp is journaled, then the approval is asked; nobody answers yet.
    const sent: ChildToParent[] = [];
    const live = createRuntime({ runId: "r-park", sessionId: "s", canAsk: true, workspace: ws(), send: (m) => sent.push(m), newId: () => "q-1" });
    void live.rt.tool("write_file", { path: "README.md", content: "mine\n" }).catch(() => {});
    await until(() => sent.some((m) => m.type === "question.ask"));
    expect(live.park()).toBe(true);
    const stamp = sent.find((m): m is Extract<ChildToParent, { type: "step.record" }> => m.type === "step.record")!;
    const ask = sent.find((m): m is Extract<ChildToParent, { type: "question.ask" }> => m.type === "question.ask")!;
    expect([stamp.seq, ask.seq]).toEqual([0, 1]);
    expect(stamp.output).toMatchObject({ kind: "text", hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const journal: JournalRecord[] = [
      { kind: "step", seq: stamp.seq, digest: stamp.digest, output: stamp.output },
      { kind: "question", seq: ask.seq, digest: ask.digest, questionId: ask.questionId, settlement: { outcome: "answered", value: "once", feedback: null } },
    ];
    const resume = async () => {
      const resent: ChildToParent[] = [];
      const rt = createRuntime({ runId: "r-park", sessionId: "s", canAsk: true, workspace: ws(), journal, send: (m) => resent.push(m) }).rt;
      return { result: await rt.tool("write_file", { path: "README.md", content: "mine\n" }).catch((e: unknown) => e), resent };
    };
    // Changed meanwhile: the resumed run refuses, without asking again.
    writeFileSync(path.join(ws(), "README.md"), "changed while parked\n");
    const refused = await resume();
    expect(refused.result).toBeInstanceOf(ToolFailed);
    expect((refused.result as Error).message).toMatch(/^`README\.md` changed after the approval was asked/);
    expect(refused.resent.filter((m) => m.type === "question.ask")).toEqual([]);
    expect(read("README.md")).toBe("changed while parked\n");
    // As it was: the resumed run writes.
    writeFileSync(path.join(ws(), "README.md"), "# Sample\n\nHello there.\n");
    expect((await resume()).result).toMatchObject({ path: "README.md", written: true });
    expect(read("README.md")).toBe("mine\n");
  });

  it("a system error is the call's failure, named without the host's path", async () => {
    const h = toolRuntime(ws());
    const err = await h.rt.tool("write_file", { path: `${"n".repeat(300)}.md`, content: "x" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ToolFailed);
    expect((err as Error).message).toMatch(/: ENAMETOOLONG: name too long\.$/);
    expect((err as Error).message).not.toContain(ws());
  });

  it("does nothing when rejected", async () => {
    const h = toolRuntime(ws(), () => ({ outcome: "declined", feedback: "not now" }));
    await expect(h.rt.tool("write_file", { path: "new.md", content: "x" })).rejects.toBeInstanceOf(ToolDenied);
    expect(existsSync(path.join(ws(), "new.md"))).toBe(false);
  });
});

describe("edit_file", () => {
  it("replaces the one exact text, the diff in the approval", async () => {
    const h = toolRuntime(ws());
    expect(await h.rt.tool("edit_file", { path: "docs/guide.md", old: "Step two.", new: "Step two, done." })).toEqual({ path: "docs/guide.md", written: true, lines: 4 });
    expect(read("docs/guide.md")).toBe("# Guide\n\nStep one.\nStep two, done.\n");
    expect(h.asks()[0]!.spec.approval!.preview).toMatchObject({ type: "diff", diff: expect.stringContaining("\n-Step two.\n+Step two, done.\n") });
  });

  it("fails clearly, before asking, when the text is absent, not unique, or the file missing", async () => {
    const h = toolRuntime(ws());
    const failure = (input: { path: string; old: string; new: string }) => h.rt.tool("edit_file", input).catch((e: unknown) => e);
    expect(await failure({ path: "docs/guide.md", old: "Step three.", new: "x" })).toMatchObject({
      name: "ToolFailed",
      message: expect.stringMatching(/^The text to replace was not found in `docs\/guide\.md`/),
    });
    expect(await failure({ path: "docs/guide.md", old: "Step", new: "x" })).toMatchObject({ message: expect.stringMatching(/^The text to replace occurs 2 times in `docs\/guide\.md`/) });
    expect(await failure({ path: "docs/none.md", old: "a", new: "b" })).toMatchObject({ message: expect.stringMatching(/^`docs\/none\.md` does not exist/) });
    expect(h.asks()).toEqual([]);
    expect(read("docs/guide.md")).toBe("# Guide\n\nStep one.\nStep two.\n");
  });
});

describe("list_files", () => {
  it("lists a folder, folders marked; recursive within a limit; .git shown, not entered; links not followed", async () => {
    mkdirSync(path.join(ws(), ".git/objects"), { recursive: true });
    writeFileSync(path.join(ws(), ".git/HEAD"), "ref\n");
    symlinkSync(outside(), path.join(ws(), "elsewhere"));
    const h = toolRuntime(ws());
    expect(await h.rt.tool("list_files", {})).toEqual({ path: ".", entries: [".git/ (not listed)", "README.md", "docs/", "elsewhere -> (link)"], truncated: false });
    expect(await h.rt.tool("list_files", { path: ".", recursive: true })).toEqual({
      path: ".",
      entries: [".git/ (not listed)", "README.md", "docs/", "elsewhere -> (link)", "docs/guide.md"],
      truncated: false,
    });
    expect(await h.rt.tool("list_files", { recursive: true, limit: 2 })).toMatchObject({ entries: [".git/ (not listed)", "README.md"], truncated: true });
    expect(await h.rt.tool("list_files", { path: "docs" })).toMatchObject({ entries: ["guide.md"] });
    expect(h.asks()[0]!.spec.approval).toMatchObject({ tool: "list_files", subject: ".", subjectKind: "path" });
  });
});

describe("search_files", () => {
  it("finds a literal text (no regular expression), file:line, within a limit; skips binary and .env files", async () => {
    writeFileSync(path.join(ws(), "docs/more.md"), "step (one)*\nnothing\n");
    writeFileSync(path.join(ws(), ".env"), "STEP=secret\n");
    writeFileSync(path.join(ws(), "blob.bin"), Buffer.from("Step\0Step"));
    const h = toolRuntime(ws());
    const found = await h.rt.tool("search_files", { query: "Step" });
    expect(found).toEqual({ path: ".", query: "Step", matches: ["docs/guide.md:3: Step one.", "docs/guide.md:4: Step two."], truncated: false, filesSearched: 3, filesSkipped: 2 });
    expect((await h.rt.tool("search_files", { query: "step (one)*", path: "docs" })).matches).toEqual(["docs/more.md:1: step (one)*"]);
    expect((await h.rt.tool("search_files", { query: "STEP", ignoreCase: true, limit: 2 })).matches).toHaveLength(2);
    expect(await h.rt.tool("search_files", { query: "STEP", ignoreCase: true, limit: 2 })).toMatchObject({ truncated: true });
    expect(h.asks()[1]!.spec.approval).toMatchObject({ tool: "search_files", subject: "docs", subjectKind: "path" });
    // One file, named as the path.
    expect((await h.rt.tool("search_files", { query: "two", path: "docs/guide.md" })).matches).toEqual(["docs/guide.md:4: Step two."]);
  });

  it("list_files on a file, or a folder that does not exist, says so", async () => {
    const h = toolRuntime(ws());
    await expect(h.rt.tool("list_files", { path: "README.md" })).rejects.toMatchObject({ name: "ToolFailed", message: "`README.md` is a file, not a folder (read it with read_file)." });
    await expect(h.rt.tool("list_files", { path: "nope" })).rejects.toMatchObject({ name: "ToolFailed", message: "`nope` does not exist." });
  });
});

describe("escaping the workspace", () => {
  it.each([
    ["read_file", { path: "../secret.txt" }],
    ["read_file", { path: "/etc/passwd" }],
    ["read_file", { path: "docs/\0x" }],
    ["write_file", { path: "docs/../../x.md", content: "x" }],
    ["write_file", { path: "/tmp/x.md", content: "x" }],
    ["list_files", { path: ".." }],
    ["search_files", { query: "x", path: "/etc" }],
    ["edit_file", { path: "../x", old: "a", new: "b" }],
  ] as const)("%s %j is refused as an invalid input: nothing asked", async (tool, input) => {
    const h = toolRuntime(ws());
    await expect(h.rt.tool(tool, input as never)).rejects.toBeInstanceOf(ToolInputInvalid);
    expect(h.asks()).toEqual([]);
  });

  it("refuses a symlink to a file outside, and one to a folder outside, before asking", async () => {
    symlinkSync(path.join(outside(), "secret.txt"), path.join(ws(), "secret.txt"));
    symlinkSync(outside(), path.join(ws(), "out"));
    const h = toolRuntime(ws());
    const refused = (p: Promise<unknown>) => p.catch((e: unknown) => e);
    const calls = [
      h.rt.tool("read_file", { path: "secret.txt" }),
      h.rt.tool("read_file", { path: "out/secret.txt" }),
      h.rt.tool("write_file", { path: "secret.txt", content: "pwned" }),
      h.rt.tool("write_file", { path: "out/new.txt", content: "pwned" }),
      h.rt.tool("edit_file", { path: "out/secret.txt", old: "TOP", new: "NO" }),
      h.rt.tool("list_files", { path: "out" }),
      h.rt.tool("search_files", { query: "SECRET", path: "out" }),
    ].map(refused);
    for (const call of calls) {
      const err = await call;
      expect(err).toBeInstanceOf(ToolDenied);
      expect(err).toMatchObject({ reason: "denied", message: expect.stringMatching(/is outside the workspace: tools work only inside it\.$/) });
    }
    expect(h.asks()).toEqual([]);
    expect(readdirSync(outside())).toEqual(["secret.txt"]);
    expect(readFileSync(path.join(outside(), "secret.txt"), "utf8")).toBe("TOP SECRET\n");
  });

  it("refuses a dangling symlink: what it would create may be outside", async () => {
    symlinkSync(path.join(outside(), "new.txt"), path.join(ws(), "dangling"));
    const h = toolRuntime(ws());
    await expect(h.rt.tool("write_file", { path: "dangling", content: "x" })).rejects.toMatchObject({
      name: "ToolDenied",
      message: expect.stringMatching(/symbolic link whose target does not exist/),
    });
    expect(existsSync(path.join(outside(), "new.txt"))).toBe(false);
  });

  it("a folder swapped for a symlink out after the approval: the write is refused when it runs, nothing written outside", async () => {
    const h = toolRuntime(ws(), () => {
      renameSync(path.join(ws(), "docs"), path.join(ws(), "docs-old"));
      symlinkSync(outside(), path.join(ws(), "docs"));
      return {};
    });
    const err = await h.rt.tool("write_file", { path: "docs/guide.md", content: "pwned\n" }).catch((e: unknown) => e);
    expect(h.asks()).toHaveLength(1);
    expect(err).toBeInstanceOf(ToolFailed);
    expect((err as Error).message).toMatch(/^Denied: `docs\/guide\.md` is outside the workspace/);
    expect(readdirSync(outside())).toEqual(["secret.txt"]);
  });

  it("a file swapped for a symlink out after the approval: the read is refused when it runs", async () => {
    const h = toolRuntime(ws(), () => {
      rmSync(path.join(ws(), "README.md"));
      symlinkSync(path.join(outside(), "secret.txt"), path.join(ws(), "README.md"));
      return {};
    });
    const err = await h.rt.tool("read_file", { path: "README.md" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ToolFailed);
    expect((err as Error).message).not.toContain("TOP SECRET");
    expect((err as Error).message).toMatch(/outside the workspace/);
  });

  it("a workspace reached through a symlink works: it is resolved too", async () => {
    const parent = tempFolder("parley-link-");
    cleanups.push(parent.cleanup);
    symlinkSync(ws(), path.join(parent.dir, "ws"));
    const h = toolRuntime(path.join(parent.dir, "ws"));
    expect(await h.rt.tool("read_file", { path: "README.md" })).toMatchObject({ content: "# Sample\n\nHello there.\n" });
    await h.rt.tool("write_file", { path: "docs/new.md", content: "n\n" });
    expect(read("docs/new.md")).toBe("n\n");
  });
});
