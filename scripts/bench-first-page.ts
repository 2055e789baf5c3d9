/**
 * The first five minutes, timed as a person lives them, in headless Chromium: from the start
 * command (`npm start`, on a new database, in an empty folder) to the first page taking a typed
 * key, then reloads of that page until it takes one again, then the first message: Enter on the
 * first page → the chat open with the agent's answer. The build `npm install` made is set-up, not
 * part of the time: it is brought up to date first (`node scripts/build.mjs --if-stale`).
 * The floor, measured in the same run by the same browser: a bare Node HTTP server started by
 * `node -e` that serves a page with a text box.
 *
 *   npm run bench:first-page [-- --starts 5 --reloads 10]
 *
 * Goals (issue 52): start → typeable ≤ 10 s the first time after install; a reload ≤ 1.5 s.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { chromium, type Browser, type Page } from "playwright-core";
import { freePort } from "../tests/helpers/server-process";
import { fmt, machine, percentile, row, scratchDir } from "./bench-kit";

const root = path.resolve(import.meta.dirname, "..");
const { values } = parseArgs({ options: { starts: { type: "string", default: "5" }, reloads: { type: "string", default: "10" } } });
const starts = Number(values.starts);
const reloads = Number(values.reloads);

const FLOOR = `require("node:http").createServer((q, s) => s.setHeader("content-type", "text/html").end('<!doctype html><title>floor</title><textarea data-testid="composer-input"></textarea>')).listen(+process.env.PORT, "127.0.0.1", () => console.log("http://127.0.0.1:" + process.env.PORT + "/"))`;

/** Spawns a server and resolves with the URL it prints (the sign-in link for Parley) and a way to stop it. */
async function startServer(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, address = /(http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)/) {
  const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let out = "";
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const look = () => {
      const m = address.exec(out);
      if (m) resolve(m[1]!);
    };
    child.stdout.on("data", (d: Buffer) => ((out += d.toString()), look()));
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    child.once("exit", (code) => reject(new Error(`${command} ${args.join(" ")} exited (${code}) before printing its address:\n${out}`)));
  });
  const printedAt = performance.now();
  const stop = async () => {
    // npm start's group: npm, node and the workers.
    try {
      process.kill(-child.pid!, "SIGTERM");
    } catch {
      // gone
    }
    await exited;
  };
  return { url, stop, printedAt };
}

/** Waits until the page's text box takes a key: the moment a person can type. */
async function typeable(page: Page): Promise<void> {
  const box = page.getByTestId("composer-input");
  await box.waitFor({ state: "visible", timeout: 60_000 });
  await box.fill("");
  await box.pressSequentially("h");
  await page.waitForFunction(() => document.querySelector<HTMLTextAreaElement>('[data-testid="composer-input"]')?.value === "h", null, { timeout: 60_000 });
  await box.fill("");
}

async function firstPage(browser: Browser, start: () => Promise<{ url: string; stop: () => Promise<void>; printedAt: number }>, sendFirst: boolean) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const t0 = performance.now();
  const server = await start();
  try {
    await page.goto(server.url);
    await typeable(page);
    const first = performance.now() - t0;
    const printed = server.printedAt - t0;
    const reloadTimes: number[] = [];
    for (let i = 0; i < reloads; i++) {
      const t = performance.now();
      await page.reload();
      await typeable(page);
      reloadTimes.push(performance.now() - t);
    }
    let message: number | undefined;
    if (sendFirst) {
      const t = performance.now();
      const box = page.getByTestId("composer-input");
      await box.fill("hello");
      await box.press("Enter");
      await page.waitForURL(/\/s\//, { timeout: 60_000 });
      await page.locator('[data-testid="message"][data-role="agent"]').first().waitFor({ timeout: 60_000 });
      message = performance.now() - t;
    }
    return { first, printed, reloadTimes, message };
  } finally {
    await context.close();
    await server.stop();
  }
}

console.log("> bringing the build up to date (set-up, as `npm install` does)…");
const built = spawnSync(process.execPath, [path.join(root, "scripts/build.mjs"), "--if-stale"], { cwd: root, stdio: "inherit" });
if (built.status !== 0) process.exit(1);

const dir = scratchDir();
const executablePath = process.env.PLAYWRIGHT_CHROMIUM_PATH ?? (existsSync("/usr/bin/chromium") ? "/usr/bin/chromium" : undefined);
const browser = await chromium.launch({ executablePath, args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"] });
try {
  const parley = { first: [] as number[], printed: [] as number[], reload: [] as number[], message: [] as number[] };
  const floor = { first: [] as number[], reload: [] as number[] };
  for (let i = 0; i < starts; i++) {
    const port = await freePort();
    const floorRun = await firstPage(browser, () => startServer(process.execPath, ["-e", FLOOR], dir, { ...process.env, PORT: String(port) }, /(http:\/\/127\.0\.0\.1:\d+\/)/), false);
    floor.first.push(floorRun.first);
    floor.reload.push(...floorRun.reloadTimes);
    // A person's first start: a new folder for the data, the defaults for everything else.
    const data = path.join(dir, `start-${i}`);
    mkdirSync(data);
    const { NODE_ENV: _mode, ...inherited } = process.env;
    const env: Record<string, string | undefined> = {
      ...inherited,
      PORT: String(await freePort()),
      DATABASE_URL: `file:${path.join(data, "parley.db")}`,
      PARLEY_WORKSPACE: path.join(data, "workspace"),
    };
    const run = await firstPage(browser, () => startServer("npm", ["start", "--silent"], root, env as NodeJS.ProcessEnv), true);
    parley.first.push(run.first);
    parley.printed.push(run.printed);
    parley.reload.push(...run.reloadTimes);
    parley.message.push(run.message!);
    console.log(`  start ${i + 1}/${starts}: typeable after ${fmt(run.first, 0)} ms, reload p50 ${fmt(percentile(run.reloadTimes, 50), 0)} ms, first message answered in ${fmt(run.message!, 0)} ms`);
  }
  console.log(`\nfirst page, ${starts} starts on a new database, ${reloads} reloads each, headless Chromium (${machine()})`);
  console.log(row("npm start → first page takes a key (goal ≤ 10,000 ms)", parley.first, floor.first));
  console.log(row("  of which npm start → its address printed (ready)", parley.printed));
  console.log(row("reload → the page takes a key (goal ≤ 1,500 ms)", parley.reload, floor.reload));
  console.log(row("Enter on the first page → the chat with the answer", parley.message));
  console.log(row("floor: node -e serving a text box, start → takes a key", floor.first));
  console.log(row("floor: reload → takes a key", floor.reload));
  const ok = percentile(parley.first, 99) <= 10_000 && percentile(parley.reload, 99) <= 1_500;
  console.log(ok ? "\nboth goals met at p99" : "\na goal is not met at p99");
} finally {
  await browser.close();
  rmSync(dir, { recursive: true, force: true });
}
