import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ENGINE_DOCS, engineDownloadHint } from "./prisma-engine-hint.mjs";

const root = path.resolve(import.meta.dirname, "..");

// What Prisma 7.10 writes to stderr when `prisma generate` cannot reach its download host.
const OFFLINE = `Loaded Prisma config from prisma.config.ts.

Error: request to https://binaries.prisma.sh/all_commits/d1b3f377ca835d73fd50954a5e22128b9ebdd6b8/debian-openssl-3.0.x/schema-engine.gz.sha256 failed, reason: getaddrinfo ENOTFOUND binaries.prisma.sh
`;

describe("the line after a failed engine download", () => {
  it("names PRISMA_SCHEMA_ENGINE_BINARY, the engine, the host, the reason and the docs section", () => {
    expect(engineDownloadHint(OFFLINE)).toBe(
      "Prisma could not download its schema-engine from binaries.prisma.sh (getaddrinfo ENOTFOUND binaries.prisma.sh): " +
        "set PRISMA_SCHEMA_ENGINE_BINARY to a schema engine this machine has (or the offline stand-in) and run it again; " +
        "see docs/configuration.md#prisma-without-its-engine-download",
    );
  });

  it("is written for a mirror and for other network failures too", () => {
    const mirror = "Error: request to http://engines.example.invalid/all_commits/abc/linux-musl/schema-engine.gz failed, reason: getaddrinfo EAI_AGAIN engines.example.invalid";
    expect(engineDownloadHint(mirror)).toContain("its schema-engine from engines.example.invalid (getaddrinfo EAI_AGAIN engines.example.invalid)");
    const refused = "Error: request to https://binaries.prisma.sh/all_commits/abc/debian-openssl-3.0.x/schema-engine.gz failed, reason: connect ECONNREFUSED 10.0.0.1:443";
    expect(engineDownloadHint(refused)).toContain("(connect ECONNREFUSED 10.0.0.1:443)");
  });

  it("is not written for Prisma's other errors", () => {
    expect(engineDownloadHint("Error: P1012 Schema validation error\n  --> prisma/sqlite/schema.prisma:3")).toBeNull();
    expect(engineDownloadHint("Error: request to https://registry.example.com/pkg failed, reason: ENOTFOUND")).toBeNull();
    expect(engineDownloadHint("")).toBeNull();
  });

  it("links a section docs/configuration.md has", () => {
    const [file, anchor] = ENGINE_DOCS.split("#") as [string, string];
    const headings = readFileSync(path.join(root, file), "utf8")
      .split("\n")
      .filter((line) => /^#{1,6} /.test(line))
      .map((line) =>
        line
          .replace(/^#+ /, "")
          .toLowerCase()
          .replace(/[^\p{L}\p{N} _-]/gu, "")
          .replace(/ /g, "-"),
      );
    expect(headings).toContain(anchor);
  });
});

// Prisma looks for its schema engine in @prisma/engines before it downloads one: where a machine has
// it there, nothing is downloaded and there is nothing to see.
const engineInstalled = readdirSync(path.join(root, "node_modules/@prisma/engines")).some((name) => name.startsWith("schema-engine"));

describe("scripts/prisma.mjs where the engine cannot be downloaded", () => {
  it.skipIf(engineInstalled)("ends with that line", () => {
    // A copy of the project's Prisma set-up with no stand-in beside it, downloading from a host that never resolves.
    const dir = mkdtempSync(path.join(tmpdir(), "parley-prisma-offline-"));
    try {
      const project = path.join(dir, "project");
      for (const file of ["scripts/prisma.mjs", "scripts/prisma-engine-hint.mjs", "prisma.config.ts", "package.json", "prisma/sqlite"]) {
        cpSync(path.join(root, file), path.join(project, file), { recursive: true });
      }
      symlinkSync(path.join(root, "node_modules"), path.join(project, "node_modules"));
      expect(existsSync(path.join(dir, "shared"))).toBe(false);
      const env: NodeJS.ProcessEnv = { ...process.env, PRISMA_ENGINES_MIRROR: "http://engines.parley.invalid", HOME: dir, XDG_CACHE_HOME: path.join(dir, "cache") };
      delete env.PRISMA_SCHEMA_ENGINE_BINARY;
      const run = spawnSync(process.execPath, ["scripts/prisma.mjs", "generate", "--schema", "prisma/sqlite"], { cwd: project, env, encoding: "utf8", timeout: 60_000 });

      expect(run.status).toBe(1);
      const lines = run.stderr.trim().split("\n");
      expect(lines.at(-1)).toMatch(
        /^Prisma could not download its schema-engine from engines\.parley\.invalid \(getaddrinfo (ENOTFOUND|EAI_AGAIN) engines\.parley\.invalid\): set PRISMA_SCHEMA_ENGINE_BINARY/,
      );
      expect(lines.at(-1)).toContain(ENGINE_DOCS);
      // Prisma's own error still comes first, as it came.
      expect(run.stderr).toContain("failed, reason: getaddrinfo");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
