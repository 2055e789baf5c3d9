#!/usr/bin/env node
// Builds Parley: the pages (`next build`), the service worker and the server bundle (esbuild).
//   node scripts/build.mjs              builds every part
//   node scripts/build.mjs --if-stale   builds only the parts whose sources changed since their last build
//   --at-install                        as --if-stale, run by `npm install`: skipped where the sources are not there yet (a Docker layer)
// `--if-stale` skips Next's type check (`npm run typecheck` does it); a full build keeps it unless
// PARLEY_BUILD_TYPECHECKED=1 says the caller checks types itself.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { fileHash, readStamp, sourceHash, writeStamp } from "./build-stamp.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);

function run(label, args, env = {}) {
  const started = Date.now();
  const result = spawnSync(process.execPath, args, { cwd: root, stdio: "inherit", env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", ...env } });
  if (result.status !== 0) {
    console.error(`Parley's build failed at ${label}.`);
    process.exit(result.status ?? 1);
  }
  return Date.now() - started;
}

/** Which parts need building: all of them, or those whose sources' hash is not the one their output was built from. */
export function staleParts(onlyStale) {
  const hashes = { next: sourceHash(root, "next"), server: sourceHash(root, "server") };
  const next = readStamp(root, "next");
  const server = readStamp(root, "server");
  return {
    hashes,
    next: !onlyStale || next?.sources !== hashes.next || !existsSync(path.join(root, ".next/BUILD_ID")),
    // `npm run dev` writes a development service worker over the built one.
    sw: !onlyStale || next?.sw !== fileHash(path.join(root, "public/sw.js")),
    server: !onlyStale || server?.sources !== hashes.server || !existsSync(path.join(root, "dist/server.js")),
  };
}

/** Builds what `staleParts` says; `say` tells a person what is happening and why. */
export function build({ onlyStale = false, say = console.log } = {}) {
  const todo = staleParts(onlyStale);
  const typecheck = onlyStale ? { PARLEY_BUILD_TYPECHECKED: "1" } : {};
  if (todo.next) {
    say(onlyStale ? "Building the pages: their sources changed since the last build (about half a minute)…" : "Building the pages…");
    run("next build", [require.resolve("next/dist/bin/next"), "build"], typecheck);
  }
  if (todo.next || todo.sw) run("the service worker", [path.join(root, "scripts/build-sw.mjs")]);
  if (todo.next || todo.sw) writeStamp(root, "next", { sources: todo.hashes.next, sw: fileHash(path.join(root, "public/sw.js")) });
  if (todo.server) {
    run("the server bundle", [path.join(root, "scripts/build-server.mjs")]);
    writeStamp(root, "server", { sources: todo.hashes.server });
  }
  return todo.next || todo.sw || todo.server;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const atInstall = process.argv.includes("--at-install");
  if (atInstall && !(existsSync(path.join(root, "app")) && existsSync(path.join(root, "server.ts")))) {
    console.log("parley: the sources are not here yet; the build waits for `npm run build` or `npm start`.");
  } else {
    const built = build({ onlyStale: atInstall || process.argv.includes("--if-stale") });
    if (!built) console.log("parley: the build is up to date with the sources.");
  }
}
