import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { isEntryPoint, projectRootOf } from "./entry-point";

const dir = mkdtempSync(path.join(tmpdir(), "parley-entry-"));
const cli = path.join(dir, "cli.js");
writeFileSync(cli, "");
symlinkSync(cli, path.join(dir, "linked.js"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("isEntryPoint: whether node was started with this module", () => {
  it("is true for the script node ran, also through a symlink", () => {
    expect(isEntryPoint(pathToFileURL(cli).href, cli)).toBe(true);
    expect(isEntryPoint(pathToFileURL(cli).href, path.join(dir, "linked.js"))).toBe(true);
  });

  it("is false when another script imported it, or there is none", () => {
    expect(isEntryPoint(pathToFileURL(cli).href, path.join(dir, "parley.mjs"))).toBe(false);
    expect(isEntryPoint(pathToFileURL(cli).href, undefined)).toBe(false);
  });
});

it("projectRootOf finds the folder with package.json above a module", () => {
  const root = path.resolve(import.meta.dirname, "../..");
  expect(projectRootOf(pathToFileURL(path.join(root, "dist/cli.js")).href)).toBe(root);
  expect(projectRootOf(import.meta.url)).toBe(root);
});
