import { defineConfig } from "vitest/config";
import { availableParallelism } from "node:os";
import path from "node:path";

/**
 * Integration files that need the machine to themselves: they hold a time bound on what they
 * check (a stall, a revocation heard, a lease that must not lapse), kill processes at random
 * points, or load every core. The others run two at a time (they mostly wait on servers).
 */
/** Several nodes over PostgreSQL and Redis, one file at a time: `npm test`'s cluster part. */
const CLUSTER = ["tests/cluster*.integration.test.ts"];

const ALONE = [
  "tests/fault-trials.integration.test.ts",
  "tests/db-lock.integration.test.ts",
  "tests/durable.integration.test.ts",
  "tests/fuzz.integration.test.ts",
  "tests/listen-backlog.integration.test.ts",
  "tests/people.integration.test.ts",
  "tests/revocation.integration.test.ts",
  "tests/server-shutdown.integration.test.ts",
];

/** Vitest's own default is a core less than the machine has: one file at a time on 2 cores. */
const WORKERS = Math.max(2, availableParallelism() - 1);

export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname) } },
  test: {
    exclude: ["node_modules", "e2e", "dist", ".next"],
    environment: "node",
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: "forks",
    // The offline script in tests' own workers, whatever key this machine has (productionServerEnv clears both for a server).
    env: { PARLEY_TEST_FUNCTIONS: "1", PARLEY_MODEL: "scripted", PARLEY_LOCAL_MODELS: "off" },
    globalSetup: ["tests/global-setup.ts"],
    projects: [
      // Unit files share a worker's module cache (not isolated): importing the same modules again
      // for each file was half the part's time. A file that changes globals (env, timers, the
      // function catalogue) puts them back or sets them for itself.
      { extends: true, test: { name: "unit", include: ["{lib,workers,components,app,scripts}/**/*.test.{ts,tsx}"], isolate: false, maxWorkers: WORKERS, sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: "integration", include: ["tests/**/*.test.ts"], exclude: [...ALONE, ...CLUSTER], maxWorkers: WORKERS, sequence: { groupOrder: 1 } } },
      { extends: true, test: { name: "integration, alone", include: ALONE, maxWorkers: 1, sequence: { groupOrder: 2 } } },
      { extends: true, test: { name: "cluster", include: CLUSTER, maxWorkers: 1, sequence: { groupOrder: 3 } } },
    ],
  },
});
