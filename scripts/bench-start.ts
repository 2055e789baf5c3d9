/**
 * How long `npm start` takes to be ready, measured from outside as a person starts it: spawn the
 * built server (`node dist/server.js`, run `npm run build` first) in an empty folder, then time the
 * line "> Parley ready on …" and the first successful GET /api/health. On a new database (created
 * and migrated at start-up) and on one already migrated (the common restart). Beside it, the floor
 * measured in the same run: `node -e` opening an HTTP server and printing a line, the least a Node
 * server needs. Runs are interleaved, so a busy moment of the machine weighs on each alike.
 *
 *   npm run bench:start [-- --samples 20] [-- --compare dist-before/server.js]
 *
 * --compare times another build of the server too (e.g. a copy of dist/ from before a change, kept
 * in the project folder so that it finds .next/ and node_modules/), interleaved with this one.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { freePort } from "../tests/helpers/server-process";
import { machine, row, scratchDir } from "./bench-kit";

const root = path.resolve(import.meta.dirname, "..");
const { values } = parseArgs({ options: { samples: { type: "string", default: "15" }, compare: { type: "string" } } });
const samples = Number(values.samples);
const server = path.join(root, "dist/server.js");
if (!existsSync(server) || !existsSync(path.join(root, ".next/BUILD_ID"))) throw new Error("No production build: run `npm run build` first.");

const FLOOR = `require("node:http").createServer((q, s) => s.end("ok")).listen(+process.env.PORT, "127.0.0.1", () => console.log("> ready on " + process.env.PORT))`;

type Sample = { ready: number; health: number };

/** Spawns `node args` in `cwd` and times (ms from the spawn) the first stdout line starting with `> ` and containing "ready on", then the first 200 from /api/health. */
async function timeStart(args: string[], cwd: string, env: NodeJS.ProcessEnv, port: number): Promise<Sample> {
  const t0 = performance.now();
  const child = spawn(process.execPath, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  try {
    const ready = await new Promise<number>((resolve, reject) => {
      child.stdout.on("data", (d: Buffer) => {
        out += d.toString();
        if (/^> .*ready on /m.test(out)) resolve(performance.now() - t0);
      });
      child.stderr.on("data", (d: Buffer) => (out += d.toString()));
      child.once("exit", (code) => reject(new Error(`node ${args.join(" ")} exited (${code}) before it was ready:\n${out}`)));
    });
    for (;;) {
      try {
        if ((await fetch(`http://127.0.0.1:${port}/api/health`)).ok) return { ready, health: performance.now() - t0 };
      } catch {
        // not answering yet
      }
      if (performance.now() - t0 > 60_000) throw new Error(`no health within 60 s:\n${out}`);
      await new Promise((r) => setTimeout(r, 5));
    }
  } finally {
    child.kill("SIGTERM");
    await exited;
  }
}

const dir = scratchDir();
/** The server's environment: production, its own port, database and workspace, nothing from a .env of the project (it runs in `cwd`). */
const serverEnv = (port: number, db: string): NodeJS.ProcessEnv => ({
  ...process.env,
  NODE_ENV: "production",
  NEXT_TELEMETRY_DISABLED: "1",
  PORT: String(port),
  HOST: "127.0.0.1",
  DATABASE_URL: `file:${db}`,
  PARLEY_WORKSPACE: path.join(dir, "ws"),
  PARLEY_TOKEN: "bench-token-0123456789abcdef",
});

let fresh = 0;
const servers: Array<[string, string]> = [["", server], ...(values.compare ? [[`${values.compare}: `, path.resolve(values.compare)] as [string, string]] : [])];
const cases: Array<[string, (port: number) => Promise<Sample>]> = [
  ["floor: node -e (http server + a line)", (port) => timeStart(["-e", FLOOR], dir, { ...process.env, PORT: String(port) }, port)],
  ...servers.flatMap(([name, entry], i): Array<[string, (port: number) => Promise<Sample>]> => [
    [
      `${name}new database`,
      async (port) => {
        const cwd = path.join(dir, `fresh-${fresh++}`);
        mkdirSync(cwd);
        return timeStart([entry], cwd, serverEnv(port, path.join(cwd, "p.db")), port);
      },
    ],
    [`${name}migrated database`, (port) => timeStart([entry], dir, serverEnv(port, path.join(dir, `migrated-${i}.db`)), port)],
  ]),
];

try {
  const times = new Map(cases.map(([label]) => [label, [] as Sample[]]));
  // A first start of each (disk caches warm, the migrated database made).
  for (const [, start] of cases) await start(await freePort());
  for (let i = 0; i < samples; i++) for (const [label, start] of cases) times.get(label)!.push(await start(await freePort()));

  console.log(`npm start to ready, ${samples} starts each (${machine()})`);
  const floor = times.get(cases[0]![0])!.map((s) => s.ready);
  for (const [label] of cases) {
    const xs = times.get(label)!;
    console.log(
      row(
        `${label}: ready line`,
        xs.map((s) => s.ready),
        floor,
      ),
    );
    console.log(
      row(
        `${label}: first /api/health`,
        xs.map((s) => s.health),
        floor,
      ),
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
