import { opendir } from "node:fs/promises";
import path from "node:path";

/** Folders a recursive listing or search shows but does not enter. */
export const SKIPPED_FOLDERS = new Set([".git", "node_modules"]);

export interface WalkEntry {
  /** Relative to the folder walked, `/`-separated. */
  rel: string;
  kind: "file" | "folder" | "link" | "other";
  /** A folder shown but not entered (.git, node_modules). */
  skipped?: boolean;
}

/**
 * The entries under `real` (a resolved folder inside the workspace), sorted by name at each level,
 * breadth-first when `recursive`. Symbolic links are listed, never followed: a link out of the
 * workspace leads nowhere. Stops after `limit` entries; `more` says whether any were left.
 */
export async function walk(real: string, { recursive, limit, signal }: { recursive: boolean; limit: number; signal?: AbortSignal }): Promise<{ entries: WalkEntry[]; more: boolean }> {
  const entries: WalkEntry[] = [];
  const queue: string[] = [""];
  while (queue.length > 0) {
    if (signal?.aborted) break;
    const relDir = queue.shift()!;
    const names: Array<{ name: string; kind: WalkEntry["kind"] }> = [];
    for await (const d of await opendir(path.join(real, relDir))) {
      names.push({ name: d.name, kind: d.isDirectory() ? "folder" : d.isFile() ? "file" : d.isSymbolicLink() ? "link" : "other" });
    }
    names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const { name, kind } of names) {
      if (entries.length >= limit) return { entries, more: true };
      const rel = relDir ? `${relDir}/${name}` : name;
      const skipped = kind === "folder" && SKIPPED_FOLDERS.has(name);
      entries.push(skipped ? { rel, kind, skipped } : { rel, kind });
      if (recursive && kind === "folder" && !skipped) queue.push(rel);
    }
  }
  return { entries, more: false };
}
