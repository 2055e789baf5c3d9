import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll } from "vitest";
import { restClient, type RestClient } from "./remote";
import { freePort, startServerProcess, type ServerEnv, type ServerProcess } from "./server-process";

export interface SuiteServer {
  server: ServerProcess;
  /** Its REST client, with the test token. */
  rest: RestClient;
  /** The folder of its database (`p.db`), removed after the suite. */
  dir: string;
}

/** A production server of the suite's own, on a database of its own: started before the suite's tests, stopped and removed after them. */
export function suiteServer(name: string, env: ServerEnv = {}): SuiteServer {
  const suite = {} as SuiteServer;
  beforeAll(async () => {
    suite.dir = mkdtempSync(path.join(tmpdir(), `parley-${name}-`));
    suite.server = await startServerProcess({ port: await freePort(), databaseFile: path.join(suite.dir, "p.db"), env });
    suite.rest = restClient(suite.server.url);
  }, 90_000);
  afterAll(async () => {
    await suite.server?.kill();
    if (suite.dir) rmSync(suite.dir, { recursive: true, force: true });
  });
  return suite;
}
