import { defineConfig } from "vitest/config";
import path from "node:path";

export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname) } },
  test: {
    include: ["{lib,workers,components,app,scripts}/**/*.test.{ts,tsx}", "tests/**/*.test.ts"],
    exclude: ["node_modules", "e2e", "dist", ".next"],
    environment: "node",
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: "forks",
    env: { PARLEY_TEST_FUNCTIONS: "1" },
    globalSetup: ["tests/global-setup.ts"],
  },
});
