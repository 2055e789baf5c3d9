import path from "node:path";
import { clip } from "../protocol/bounded-text";
import { hasControlChar } from "../protocol/permissions";

/** Fields that name a file whatever the schema says (Claude Code's and most tools' names). */
export const PATH_KEYS: ReadonlySet<string> = new Set(["path", "file_path", "notebook_path", "paths", "file_paths"]);

/** The JSON Schema format that marks any other field as a path. */
export const PATH_FORMAT = "path";

/**
 * The names of the properties a tool's JSON Schema marks as paths (`"format": "path"`, or an array
 * whose items are), anywhere in it: an edited value under such a name is read as a path.
 */
export function pathKeysOf(schema: unknown): Set<string> {
  const keys = new Set(PATH_KEYS);
  const walk = (node: unknown, depth: number): void => {
    if (depth > 32 || node === null || typeof node !== "object") return;
    if (Array.isArray(node)) return node.forEach((sub) => walk(sub, depth + 1));
    const properties = (node as { properties?: unknown }).properties;
    if (properties && typeof properties === "object" && !Array.isArray(properties)) {
      for (const [name, sub] of Object.entries(properties)) if (marksPath(sub)) keys.add(name);
    }
    for (const value of Object.values(node)) walk(value, depth + 1);
  };
  walk(schema, 0);
  return keys;
}

function marksPath(sub: unknown): boolean {
  if (!sub || typeof sub !== "object") return false;
  const { format, items } = sub as { format?: unknown; items?: unknown };
  return format === PATH_FORMAT || (!!items && typeof items === "object" && (items as { format?: unknown }).format === PATH_FORMAT);
}

/**
 * Why an edited path may not be run, or null when it may: it holds a control character, climbs out
 * of its folder with `..`, or is absolute (or from the home folder, `~`) outside every root the asker
 * declared. Roots are absolute folders.
 */
export function pathProblem(value: string, roots: readonly string[]): string | null {
  if (hasControlChar(value)) return "holds a control character";
  const posix = value.replace(/\\/g, "/");
  if (posix.startsWith("~")) return "starts from a home folder";
  const absolute = posix.startsWith("/") || /^[a-z]:\//i.test(posix);
  if (!absolute) {
    let depth = 0;
    for (const part of posix.split("/")) {
      depth += part === ".." ? -1 : part === "" || part === "." ? 0 : 1;
      if (depth < 0) return "climbs out of its folder with ..";
    }
    return null;
  }
  const resolved = path.posix.resolve(posix.replace(/^([a-z]):/i, "/$1:"));
  const under = roots.some((root) => {
    const folder = path.posix.resolve(root.replace(/\\/g, "/").replace(/^([a-z]):/i, "/$1:"));
    return resolved === folder || resolved.startsWith(folder === "/" ? "/" : `${folder}/`);
  });
  if (under) return null;
  return roots.length === 0 ? "is absolute, and the asker declared no root it may fall under" : `is outside the asker's roots (${roots.map((r) => clip(r, 80)).join(", ")})`;
}

/**
 * Checks every path in an edited input: a string (or a list of strings) under a path field at any
 * depth. A value the answerer left as the agent asked it (the same at the same place) is the
 * agent's own call and passes. Returns the first problem as text, or null.
 */
export function editedPathProblem(edited: unknown, original: unknown, { keys, roots }: { keys: ReadonlySet<string>; roots: readonly string[] }): string | null {
  const visit = (node: unknown, was: unknown, at: string, depth: number): string | null => {
    if (depth > 32 || node === null || typeof node !== "object") return null;
    const entries = Array.isArray(node) ? node.map((v, i) => [String(i), v] as const) : Object.entries(node);
    for (const [key, value] of entries) {
      const before = was && typeof was === "object" ? (was as Record<string, unknown>)[key] : undefined;
      const here = `${at}/${key}`;
      if (!Array.isArray(node) && keys.has(key)) {
        const values = typeof value === "string" ? [[value, before] as const] : Array.isArray(value) ? value.map((v, i) => [v, Array.isArray(before) ? before[i] : undefined] as const) : [];
        for (const [one, same] of values) {
          if (typeof one !== "string" || one === same) continue;
          const problem = pathProblem(one, roots);
          if (problem) return `${clip(here, 100)} (${JSON.stringify(clip(one, 120))}) ${problem}`;
        }
      }
      const found = visit(value, before, here, depth + 1);
      if (found) return found;
    }
    return null;
  };
  return visit(edited, original, "", 0);
}
