import { mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync, mkdirSync, realpathSync } from "node:fs";
import { execFileSync } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { prepareWorkspace } from "./prepare-workspace";
import { SAMPLE_PROJECT } from "./sample-project";

const made: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "parley-ws-"));
  made.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("prepareWorkspace", () => {
  it("creates a missing workspace and seeds it with the sample project, whose tests pass", () => {
    const ws = path.join(tempDir(), "nested", "workspace");
    const prepared = prepareWorkspace(ws);
    expect(prepared.path).toBe(realpathSync(ws));
    expect(prepared.seeded.sort()).toEqual(Object.keys(SAMPLE_PROJECT).sort());
    expect(readFileSync(path.join(ws, "docs/changelog.md"), "utf8")).toBe(SAMPLE_PROJECT["docs/changelog.md"]);
    const out = execFileSync("node", ["--test"], { cwd: ws, encoding: "utf8", env: { PATH: process.env.PATH ?? "" } as unknown as NodeJS.ProcessEnv });
    expect(out).toMatch(/[#ℹ] pass 2/);
    expect(out).toMatch(/[#ℹ] fail 0/);
  });

  it("seeds an existing empty folder, and leaves one with anything in it as it is", () => {
    const empty = tempDir();
    expect(prepareWorkspace(empty).seeded).toHaveLength(Object.keys(SAMPLE_PROJECT).length);
    const used = tempDir();
    writeFileSync(path.join(used, "README.md"), "mine\n");
    expect(prepareWorkspace(used).seeded).toEqual([]);
    expect(readdirSync(used)).toEqual(["README.md"]);
    expect(readFileSync(path.join(used, "README.md"), "utf8")).toBe("mine\n");
    // Again: nothing changes the second time either.
    expect(prepareWorkspace(empty).seeded).toEqual([]);
  });

  it("refuses a workspace that is a file, saying so", () => {
    const file = path.join(tempDir(), "ws");
    writeFileSync(file, "x");
    expect(() => prepareWorkspace(file)).toThrow(/^PARLEY_WORKSPACE: .*ws/);
  });

  it("gives the real path of a workspace reached through a symlink", () => {
    const base = tempDir();
    mkdirSync(path.join(base, "real"));
    symlinkSync(path.join(base, "real"), path.join(base, "link"));
    expect(prepareWorkspace(path.join(base, "link")).path).toBe(realpathSync(path.join(base, "real")));
  });
});
