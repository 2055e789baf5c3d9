// What a build was made from: a hash of the sources of each part, kept beside the part's output, so
// that `npm start` serves the build `npm install` made and rebuilds only when a source has changed.
import { createHash } from "node:crypto";
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";

/** Folders never read: dependencies, outputs, generated clients (their schema is read), tests. */
const SKIPPED_DIRS = new Set(["node_modules", ".next", "dist", "generated", "tests", "e2e", "data", "test-results", "playwright-report"]);
const SKIPPED_FILE = /\.(test|spec)\.[cm]?[jt]sx?$|^\.|\.tsbuildinfo$/;

const SHARED = ["lib", "workers", "prisma", "package.json", "package-lock.json", "tsconfig.json"];

/**
 * The two parts of a build and what each is made from. `next`: the pages and routes (`next build`)
 * and the service worker; `server`: server.ts, the worker, the CLI and the functions (esbuild).
 */
export const PARTS = {
  next: { sources: ["app", "components", "public", "next.config.ts", "postcss.config.mjs", "scripts/build-sw.mjs", ...SHARED], stamp: ".next/parley-build.json", ignore: ["public/sw.js"] },
  server: { sources: ["server.ts", "scripts/build-server.mjs", ...SHARED], stamp: "dist/parley-build.json", ignore: [] },
};

function filesUnder(root, entry, ignore, out) {
  const full = path.join(root, entry);
  if (!existsSync(full) || ignore.includes(entry)) return;
  if (statSync(full).isDirectory()) {
    for (const name of readdirSync(full).sort()) {
      if (SKIPPED_DIRS.has(name)) continue;
      const child = path.posix.join(entry, name);
      if (statSync(path.join(root, child)).isDirectory()) filesUnder(root, child, ignore, out);
      else if (!SKIPPED_FILE.test(name) && !ignore.includes(child)) out.push(child);
    }
  } else out.push(entry);
}

/** The hash of a part's sources: each file's path and content, in a fixed order. */
export function sourceHash(root, part) {
  const files = [];
  for (const entry of PARTS[part].sources) filesUnder(root, entry, PARTS[part].ignore, files);
  const hash = createHash("sha256");
  for (const file of [...new Set(files)].sort()) {
    hash
      .update(file)
      .update("\0")
      .update(readFileSync(path.join(root, file)))
      .update("\0");
  }
  return hash.digest("hex");
}

export function fileHash(file) {
  return existsSync(file) ? createHash("sha256").update(readFileSync(file)).digest("hex") : null;
}

export function readStamp(root, part) {
  try {
    return JSON.parse(readFileSync(path.join(root, PARTS[part].stamp), "utf8"));
  } catch {
    return null;
  }
}

export function writeStamp(root, part, stamp) {
  writeFileSync(path.join(root, PARTS[part].stamp), `${JSON.stringify({ ...stamp, builtAt: new Date().toISOString() })}\n`);
}
