#!/usr/bin/env node
// Runs the Prisma CLI. Where Prisma's native schema engine cannot be downloaded (offline build
// machines), a sibling `../shared/tools/prisma-schema-engine` stand-in is used if present and
// PRISMA_SCHEMA_ENGINE_BINARY is unset; everywhere else Prisma behaves exactly as usual. When
// Prisma fails to download an engine, the last line says what to set and where the docs are.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { engineDownloadHint } from "./prisma-engine-hint.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const standIn = path.resolve(root, "../shared/tools/prisma-schema-engine/schema-engine");
const env = { ...process.env, CHECKPOINT_DISABLE: "1", PRISMA_HIDE_UPDATE_MESSAGE: "1" };
// Generators named by their command (prisma-kysely) are found as under `npm run`.
env.PATH = [path.join(root, "node_modules/.bin"), env.PATH].filter(Boolean).join(path.delimiter);
if (!env.PRISMA_SCHEMA_ENGINE_BINARY && existsSync(standIn)) env.PRISMA_SCHEMA_ENGINE_BINARY = standIn;

const cli = createRequire(import.meta.url).resolve("prisma/build/index.js");
// stderr passes through as it comes; its last 64 KB are kept to recognise a failed download.
const child = spawn(process.execPath, [cli, ...process.argv.slice(2)], { cwd: root, env, stdio: ["inherit", "inherit", "pipe"] });
let tail = "";
child.stderr.on("data", (chunk) => {
  process.stderr.write(chunk);
  tail = (tail + chunk.toString("utf8")).slice(-65536);
});
// Ctrl-C reaches Prisma too (one process group): let it end, then exit with its status.
process.on("SIGINT", () => {});
process.on("SIGTERM", () => child.kill("SIGTERM"));
child.on("close", (status) => {
  const hint = status === 0 ? null : engineDownloadHint(tail);
  if (hint) process.stderr.write(`\n${hint}\n`);
  process.exit(status ?? 1);
});
