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

/** Adds a person with `parley user add` (an API token may speak only for one), unless they were added before. */
export async function addPerson(databaseFile: string, name: string): Promise<void> {
  try {
    await promisify(execFile)(process.execPath, [path.join(root, "bin/parley.mjs"), "user", "add", name, "--database", `file:${databaseFile}`], {
      env: { ...process.env, PARLEY_URL: "", PARLEY_TOKEN: "" },
    });
  } catch (err) {
    if (!/already a person named/.test(String((err as { stderr?: string }).stderr))) throw err;
  }
}
