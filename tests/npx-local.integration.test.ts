import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, expect, it } from "vitest";

/**
 * `npx parley` in the project runs the project's own command (node_modules/.bin, linked from the
 * local package in bin/): npx installs nothing into its cache, so nothing re-runs the install step.
 */

const root = path.resolve(import.meta.dirname, "..");
const cache = mkdtempSync(path.join(tmpdir(), "parley-npx-cache-"));

afterAll(() => rmSync(cache, { recursive: true, force: true }));

it("npx parley --help runs from the project without installing it into npx's cache", { timeout: 60_000 }, async () => {
  const { stdout } = await promisify(execFile)("npx", ["parley", "--help"], { cwd: root, env: { ...process.env, npm_config_cache: cache, npm_config_yes: "true" } });
  expect(stdout).toMatch(/^Usage: parley <command>/);
  expect(existsSync(path.join(cache, "_npx"))).toBe(false);
});

it("node dist/cli.js runs the CLI as npx parley does, from any folder", { timeout: 60_000 }, async () => {
  const { stdout } = await promisify(execFile)(process.execPath, [path.join(root, "dist/cli.js"), "--help"], { cwd: tmpdir() });
  expect(stdout).toMatch(/^Usage: parley <command>/);
});
