import { chmodSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { makePrivateFolder } from "../store/db/private-files";
import { randomSecret } from "./secrets";

/** Shorter than a server token may be: a damaged file, made anew. */
const MIN_TOKEN_CHARS = 16;

/**
 * The server token of a server started without PARLEY_TOKEN: made once and kept in the data
 * folder (readable by its owner alone), so a restart does not sign browsers out, since cookies
 * are tied to the token. Deleting the file makes a new one at the next start.
 */
export function keptServerToken(file: string): string {
  try {
    const kept = readFileSync(file, "utf8").trim();
    if (kept.length >= MIN_TOKEN_CHARS) {
      chmodSync(file, 0o600);
      return kept;
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  return rotateKeptToken(file);
}

/** A new server token, kept in `file` (written whole with mode 0600, then renamed: a reader sees the old token or the new one). */
export function rotateKeptToken(file: string): string {
  const token = randomSecret(24);
  makePrivateFolder(path.dirname(file));
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${token}\n`, { mode: 0o600 });
  renameSync(temp, file);
  return token;
}
