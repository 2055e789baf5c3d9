import { mkdirSync, readdirSync, realpathSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { SAMPLE_PROJECT } from "./sample-project";

export interface PreparedWorkspace {
  /** The workspace's absolute, real path: what the workers get as PARLEY_WORKSPACE. */
  path: string;
  /** Files of the sample project written (none unless the workspace was new or empty). */
  seeded: string[];
}

/**
 * Makes the workspace folder the agent's tools work in (PARLEY_WORKSPACE, relative to the server's
 * working directory) if it is missing, and seeds a new or empty one with the sample project.
 * A workspace with anything in it is left as it is; no file is ever overwritten.
 */
export function prepareWorkspace(folder: string, files: Readonly<Record<string, string>> = SAMPLE_PROJECT): PreparedWorkspace {
  const wanted = path.resolve(folder);
  try {
    mkdirSync(wanted, { recursive: true });
  } catch (err) {
    throw new Error(`PARLEY_WORKSPACE: cannot make the workspace folder ${wanted}: ${(err as Error).message}`, { cause: err });
  }
  const real = realpathSync(wanted);
  if (!statSync(real).isDirectory()) throw new Error(`PARLEY_WORKSPACE: ${wanted} is a file, not a folder.`);
  const seeded: string[] = [];
  if (readdirSync(real).length === 0) {
    for (const [rel, content] of Object.entries(files)) {
      const file = path.join(real, rel);
      mkdirSync(path.dirname(file), { recursive: true });
      try {
        writeFileSync(file, content, { flag: "wx" });
        seeded.push(rel);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      }
    }
  }
  return { path: real, seeded };
}
