import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";

const root = path.resolve(import.meta.dirname, "../..");

/** An API token made by `parley token create` on the database file, as a person makes one: the secret is its output's first line. */
export async function createApiToken(databaseFile: string, name: string, extra: string[] = []): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, [path.join(root, "bin/parley.mjs"), "token", "create", "--name", name, ...extra, "--database", `file:${databaseFile}`], {
    env: { ...process.env, PARLEY_URL: "", PARLEY_TOKEN: "" },
  });
  return stdout.split("\n")[0]!.trim();
}
