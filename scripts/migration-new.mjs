#!/usr/bin/env node
// `npm run migration:new NAME`: writes the next migration of both engines from the one schema
// (prisma/models), as `prisma migrate diff` between each engine's migrations and its schema:
// prisma/migrations/sqlite/<timestamp>_NAME/migration.sql and prisma/migrations/postgresql/<timestamp>_NAME/migration.sql.
// Nothing is written when the schema has no change, or when either engine's diff failed.
//
// Replaying the migrations needs a scratch database per engine: SQLite a temp file; PostgreSQL a
// database this script creates and drops on the server of PARLEY_TEST_PG_URL (default
// postgresql://postgres@127.0.0.1:5432/test, as `npm run test:pg`), or SHADOW_DATABASE_URL (an empty
// database Prisma may wipe) together with DATABASE_URL=postgresql://… (only connected to).
// Prisma runs through scripts/prisma.mjs (the offline stand-in engine where Prisma's cannot be downloaded).
// `--migrations <folder>` reads and writes another migrations root than prisma/migrations (the tests use a copy).
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const ENGINES = /** @type {const} */ (["sqlite", "postgresql"]);
const DEFAULT_PG_URL = "postgresql://postgres@127.0.0.1:5432/test";
const NAME = /^[a-z][a-z0-9_]{0,62}$/;
const USAGE = "Usage: npm run migration:new NAME   (NAME in snake_case: lowercase letters, digits and _, starting with a letter, e.g. session_pinned)";

/** @param {string} message */
function fail(message) {
  console.error(`migration:new: ${message}`);
  process.exit(1);
}

// The arguments: one NAME, and --migrations <folder> for the tests.
const args = process.argv.slice(2);
let migrationsRoot = path.join(root, "prisma/migrations");
const names = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--migrations") migrationsRoot = path.resolve(args[++i] ?? fail("--migrations needs a folder"));
  else if (args[i] === "-h" || args[i] === "--help") {
    console.log(USAGE);
    process.exit(0);
  } else names.push(args[i]);
}
if (names.length !== 1) fail(names.length === 0 ? `no NAME given.\n${USAGE}` : `one NAME, not ${names.length} (${names.join(" ")}).\n${USAGE}`);
const name = names[0];
if (!NAME.test(name)) fail(`"${name}" is not a migration name.\n${USAGE}`);

/** @param {"sqlite" | "postgresql"} engine */
const folderOf = (engine) => path.join(migrationsRoot, engine);
/** @param {"sqlite" | "postgresql"} engine */
const migrationsOf = (engine) => (existsSync(folderOf(engine)) ? readdirSync(folderOf(engine)).filter((m) => /^\d{14}_/.test(m)) : []);
for (const engine of ENGINES) {
  if (!existsSync(folderOf(engine))) fail(`no migrations folder at ${path.relative(root, folderOf(engine)) || folderOf(engine)}`);
  const taken = migrationsOf(engine).find((m) => m.slice(15) === name);
  if (taken) fail(`${engine} already has a migration named ${name} (${taken}): choose another NAME`);
}

/**
 * The folder names' timestamp (UTC, YYYYMMDDHHMMSS): now, or a second after the newest migration of
 * either engine when that is later, so the new one always applies last. Both engines get the same.
 */
function nextTimestamp() {
  const stamp = (/** @type {Date} */ d) => d.toISOString().replace(/[-:T]/g, "").slice(0, 14);
  const newest = ENGINES.flatMap(migrationsOf)
    .map((m) => m.slice(0, 14))
    .sort()
    .pop();
  const now = stamp(new Date());
  if (!newest || now > newest) return now;
  const [, y, mo, d, h, mi, s] = /^(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)$/.exec(newest).map(Number);
  return stamp(new Date(Date.UTC(y, mo - 1, d, h, mi, s + 1)));
}

let interrupted = false;
/** @type {import("node:child_process").ChildProcess | undefined} */
let running;
process.on("SIGINT", () => (interrupted = true));
process.on("SIGTERM", () => ((interrupted = true), running?.kill("SIGTERM")));

/**
 * `prisma migrate diff` from the engine's migrations to its schema, the SQL into `out`.
 * @returns {Promise<{ changed: boolean }>} throws with Prisma's output when it failed
 */
function diff(/** @type {"sqlite" | "postgresql"} */ engine, /** @type {Record<string, string>} */ env, /** @type {string} */ out) {
  const argv = ["migrate", "diff", "--from-migrations", folderOf(engine), "--to-schema", `prisma/${engine}`, "--script", "--exit-code", "-o", out];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(root, "scripts/prisma.mjs"), ...argv], {
      cwd: root,
      env: { ...process.env, ...env, PARLEY_PRISMA_PROVIDER: engine },
      stdio: ["ignore", "pipe", "pipe"],
    });
    running = child;
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.once("error", reject);
    child.once("close", (code) => {
      running = undefined;
      // --exit-code: 0 no difference, 2 a difference, anything else an error.
      if (code === 0 || code === 2) resolve({ changed: code === 2 });
      else reject(new Error(`prisma migrate diff failed for ${engine} (exit ${code}):\n${output.replace(/^Loaded Prisma config.*\n/gm, "").trim()}`));
    });
  });
}

/** The PostgreSQL scratch database: the env it takes, and how to remove it. */
async function postgresShadow() {
  if (process.env.SHADOW_DATABASE_URL) {
    if (!/^postgres(ql)?:\/\//.test(process.env.DATABASE_URL ?? "")) {
      throw new Error("SHADOW_DATABASE_URL is set: set DATABASE_URL=postgresql://… too (a database on a server Prisma may connect to; it is not changed).");
    }
    return { env: { DATABASE_URL: process.env.DATABASE_URL, SHADOW_DATABASE_URL: process.env.SHADOW_DATABASE_URL }, drop: async () => {} };
  }
  const serverUrl = process.env.PARLEY_TEST_PG_URL || DEFAULT_PG_URL;
  const shown = serverUrl.replace(/:[^:@/]*@/, ":***@");
  const { default: pg } = await import("pg");
  const admin = async (/** @type {string} */ sql) => {
    const client = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 2_000 });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end().catch(() => {});
    }
  };
  const shadow = `parley_shadow_${randomBytes(6).toString("hex")}`;
  try {
    await admin(`CREATE DATABASE "${shadow}"`);
  } catch (err) {
    throw new Error(
      `the PostgreSQL migration needs a server to replay prisma/migrations/postgresql on, and none was usable at ${shown} (${/** @type {Error} */ (err).message || err}).\n` +
        "Set PARLEY_TEST_PG_URL to a PostgreSQL server where this user may CREATE DATABASE (a scratch database is made and dropped), " +
        "or SHADOW_DATABASE_URL to an empty database Prisma may wipe together with DATABASE_URL=postgresql://….",
      { cause: err },
    );
  }
  const url = new URL(serverUrl);
  url.pathname = `/${shadow}`;
  return {
    env: { DATABASE_URL: serverUrl, SHADOW_DATABASE_URL: url.toString() },
    drop: () => admin(`DROP DATABASE IF EXISTS "${shadow}" WITH (FORCE)`).catch((err) => console.warn(`migration:new: could not drop the scratch database ${shadow}: ${err.message || err}`)),
  };
}

const scratch = mkdtempSync(path.join(tmpdir(), "parley-migration-new-"));
/** @type {{ engine: "sqlite" | "postgresql", changed: boolean, file: string }[]} */
const results = [];
try {
  // PostgreSQL's scratch database first: without one, nothing is worth computing.
  const shadow = await postgresShadow();
  try {
    /** @type {[ "sqlite" | "postgresql", Record<string, string>][]} */
    const runs = [
      ["sqlite", { DATABASE_URL: `file:${path.join(scratch, "shadow.db")}` }],
      ["postgresql", shadow.env],
    ];
    for (const [engine, env] of runs) {
      if (interrupted) throw new Error("interrupted");
      const file = path.join(scratch, `${engine}.sql`);
      results.push({ engine, file, ...(await diff(engine, env, file)) });
    }
  } finally {
    await shadow.drop();
  }
  if (interrupted) throw new Error("interrupted");
} catch (err) {
  rmSync(scratch, { recursive: true, force: true });
  fail(`${/** @type {Error} */ (err).message}\nNothing was written.`);
}

const changed = results.filter((r) => r.changed);
if (changed.length === 0) {
  rmSync(scratch, { recursive: true, force: true });
  console.log("No change to migrate: the migrations of both engines already give the schema in prisma/models. Nothing was written.");
  process.exit(0);
}
const folder = `${nextTimestamp()}_${name}`;
for (const { engine, file } of changed) {
  const target = path.join(folderOf(engine), folder, "migration.sql");
  mkdirSync(path.dirname(target), { recursive: true });
  const sql = readFileSync(file, "utf8");
  writeFileSync(target, sql);
  console.log(`Wrote ${path.relative(process.cwd(), target)} (${sql.trimEnd().split("\n").length} lines)`);
}
for (const { engine } of results.filter((r) => !r.changed)) console.log(`No change for ${engine}: its migrations already give the schema (nothing written there).`);
rmSync(scratch, { recursive: true, force: true });
console.log(
  "Read the SQL (a comment on top saying why is welcome), then start Parley or run the tests: the server applies new migrations at start-up. " +
    "Never edit a migration once it has been applied anywhere; make another.",
);
