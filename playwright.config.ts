import { defineConfig, devices } from "@playwright/test";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { TEST_TOKEN } from "./tests/helpers/server-process";

const PORT = Number(process.env.E2E_PORT ?? 3999);
const baseURL = `http://127.0.0.1:${PORT}`;
// Playwright cannot download its browsers on offline machines: use the system's when there are some.
const chromium = process.env.PLAYWRIGHT_CHROMIUM_PATH ?? (existsSync("/usr/bin/chromium") ? "/usr/bin/chromium" : undefined);
// The old headless shell (Debian's chromium-headless-shell; Playwright's own default when headless)
// loads a page for about 40 % of the CPU full Chromium takes: every spec but those that need the full
// browser's push and notifications uses it.
const headlessShell = process.env.PLAYWRIGHT_HEADLESS_SHELL_PATH ?? (existsSync("/usr/bin/chromium-headless-shell") ? "/usr/bin/chromium-headless-shell" : chromium);
// One fresh database per test run (the config is loaded again in workers: keep the first choice).
process.env.PARLEY_E2E_DB ??= path.join(tmpdir(), `parley-e2e-${Date.now()}.db`);
// And one fresh workspace for the tools (the server seeds it with the sample project).
process.env.PARLEY_E2E_WORKSPACE ??= `${process.env.PARLEY_E2E_DB}.workspace`;
// The signed-in browser state (globalSetup writes it; test-results/ is emptied before globalSetup runs).
const storageState = path.join(import.meta.dirname, "test-results/.auth/signed-in.json");

const ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"];
const CHROMIUM = { ...devices["Desktop Chrome"], launchOptions: { executablePath: headlessShell, args: ARGS } };
const FULL_CHROMIUM = { ...devices["Desktop Chrome"], launchOptions: { executablePath: chromium, args: ARGS } };
/** Specs that need the full browser: the Push API and notifications (the headless shell has neither). */
const FULL_BROWSER = ["**/pwa.spec.ts", "**/push.spec.ts"];
/**
 * Specs that start, kill and restart servers (and a cluster) of their own, and those that time the
 * keys a person types against a card's key guard (bursts under a second apart, 700 ms of settling:
 * beside another spec, the keystrokes' own timing slips), and people.spec.ts, which renames the
 * administrator every other spec names: after the others, one at a time.
 */
const ALONE = ["**/several-nodes.spec.ts", "**/restart.spec.ts", "**/sign-in.spec.ts", "**/approvals.spec.ts", "**/card-keys.spec.ts", "**/people.spec.ts"];

export default defineConfig({
  testDir: "e2e",
  // The tests of a file in order: the alone project's files share a server of their own. The main
  // project overrides it: two tests at a time, each on its own chats against the one server.
  fullyParallel: false,
  workers: 2,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [
    ["list"],
    ...(process.env.CI ? [] : [["html", { open: "never" }] as const]),
    // `npm test` reads each file's time and the failed tests from it (scripts/test-all.mjs).
    ...(process.env.PARLEY_E2E_JSON ? [["json", { outputFile: process.env.PARLEY_E2E_JSON }] as const] : []),
  ],
  // Signs in once with the server token; every context (and `request`) starts signed in.
  globalSetup: "./e2e/global-setup.ts",
  use: {
    baseURL,
    storageState,
    // A failed test keeps its trace: actions, DOM snapshots, console and network. Not the screencast,
    // which took a third of the suite's CPU recording every frame of every tab of tests that pass.
    trace: { mode: "retain-on-failure", screenshots: false },
    screenshot: "only-on-failure",
  },
  projects: [
    { name: "chromium", use: CHROMIUM, testIgnore: [...ALONE, ...FULL_BROWSER], fullyParallel: true },
    { name: "chromium, full browser", use: FULL_CHROMIUM, testMatch: FULL_BROWSER, fullyParallel: true },
    { name: "chromium, alone", use: CHROMIUM, testMatch: ALONE, dependencies: ["chromium", "chromium, full browser"], workers: 1 },
  ],
  webServer: {
    // The production build (npm run test:e2e builds first).
    command: "node dist/server.js",
    url: `${baseURL}/api/health`,
    reuseExistingServer: false,
    timeout: 60_000,
    stdout: "pipe",
    stderr: "pipe",
    env: {
      PORT: String(PORT),
      HOST: "127.0.0.1",
      DATABASE_URL: `file:${process.env.PARLEY_E2E_DB}`,
      PARLEY_WORKSPACE: process.env.PARLEY_E2E_WORKSPACE,
      PARLEY_TEST_FUNCTIONS: "1",
      PARLEY_STOP_GRACE_MS: "1000",
      PARLEY_TOKEN: TEST_TOKEN,
      PARLEY_RATE_LIMITS: "off",
      NEXT_TELEMETRY_DISABLED: "1",
      // The offline script, whatever key or model server this machine has: the specs read its replies.
      PARLEY_MODEL: "scripted",
      PARLEY_LOCAL_MODELS: "off",
    },
  },
});
