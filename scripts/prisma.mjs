#!/usr/bin/env node
// Runs the Prisma CLI. Where Prisma's native schema engine cannot be downloaded (offline build
// machines), a sibling `../shared/tools/prisma-schema-engine` stand-in is used if present and
// PRISMA_SCHEMA_ENGINE_BINARY is unset; everywhere else Prisma behaves exactly as usual.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const standIn = path.resolve(root, "../shared/tools/prisma-schema-engine/schema-engine");
const env = { ...process.env, CHECKPOINT_DISABLE: "1", PRISMA_HIDE_UPDATE_MESSAGE: "1" };
// Generators named by their command (prisma-kysely) are found as under `npm run`.
env.PATH = [path.join(root, "node_modules/.bin"), env.PATH].filter(Boolean).join(path.delimiter);
if (!env.PRISMA_SCHEMA_ENGINE_BINARY && existsSync(standIn)) env.PRISMA_SCHEMA_ENGINE_BINARY = standIn;

const cli = createRequire(import.meta.url).resolve("prisma/build/index.js");
const result = spawnSync(process.execPath, [cli, ...process.argv.slice(2)], { cwd: root, env, stdio: "inherit" });
process.exit(result.status ?? 1);
