#!/usr/bin/env node
// Runs the store suites on PostgreSQL: each test gets a fresh database on the server named by
// PARLEY_TEST_PG_URL (default postgresql://postgres@127.0.0.1:5432/test), a copy of one migrated
// for the run, dropped after it.
// With no server answering, says so and skips (exit 0). Extra arguments go to vitest.
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const url = process.env.PARLEY_TEST_PG_URL || "postgresql://postgres@127.0.0.1:5432/test";
const SUITES = [
  "lib/server/store",
  "lib/server/questions/question-service.test.ts",
  "lib/server/questions/question-service.pg.test.ts",
  "lib/server/questions/approvals.test.ts",
  "lib/server/questions/team-answers.test.ts",
  "lib/server/questions/approval-edit.test.ts",
  "lib/server/ledger/command-ledger.test.ts",
  "lib/server/ledger/inbox.test.ts",
  "lib/server/runs",
  "lib/server/sessions",
  "lib/server/cluster",
  "lib/server/access/sign-out-everywhere.test.ts",
  "lib/server/access/people-changed.test.ts",
  "lib/server/people",
  "lib/server/webhooks",
  "lib/server/push",
];

const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
try {
  await client.connect();
  await client.query("SELECT 1");
} catch (err) {
  console.log(`test:pg skipped: no PostgreSQL answers at ${url.replace(/:[^:@/]*@/, ":***@")} (${err.message || err}). Set PARLEY_TEST_PG_URL to a server where this user may CREATE DATABASE.`);
  process.exit(0);
} finally {
  await client.end().catch(() => {});
}

// The tests copy one migrated database of this run (tests/helpers/test-db.ts makes it on first use).
const template = `parley_template_${randomBytes(6).toString("hex")}`;
const vitest = path.join(root, "node_modules/vitest/vitest.mjs");
const args = process.argv.slice(2);
const result = spawnSync(process.execPath, [vitest, "run", ...(args.some((a) => !a.startsWith("-")) ? [] : SUITES), ...args], {
  cwd: root,
  env: { ...process.env, PARLEY_TEST_PG_URL: url, PARLEY_TEST_PG_TEMPLATE: template },
  stdio: "inherit",
});
const admin = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
try {
  await admin.connect();
  for (const name of [template, `${template}_partial`]) await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
} catch (err) {
  console.warn(`test:pg could not drop its template database ${template}: ${err.message || err}`);
} finally {
  await admin.end().catch(() => {});
}
process.exit(result.status ?? 1);
