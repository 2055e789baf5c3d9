import { readdirSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { AgentFunctionInfo, FunctionLoadFailure } from "../lib/protocol/entities";
import { TEXT_COMMANDS } from "../lib/protocol/text-commands";
import { isAgentFunction, type AgentFunction } from "./runtime/define";

/** Commands the chat answers itself: a function cannot take them. */
const RESERVED_COMMANDS: ReadonlyMap<string, string> = new Map([["help", "the chat's /help"], ...TEXT_COMMANDS.map((c) => [c, `the text command /${c}`] as const)]);

/** The functions a worker loaded from its function folders, and the files it could not load. */
export interface FunctionCatalogue {
  functions: readonly AgentFunction[];
  failures: readonly FunctionLoadFailure[];
}

/** A function file: TypeScript in development, JavaScript once built; tests, declarations and `_helpers` are not. */
function isFunctionFile(name: string): boolean {
  return /\.(ts|mts|js|mjs)$/.test(name) && !/\.(test|spec)\.\w+$/.test(name) && !name.endsWith(".d.ts") && !/^[_.]/.test(name);
}

export function functionFiles(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw err;
  }
  return names
    .filter(isFunctionFile)
    .sort()
    .map((name) => path.join(dir, name));
}

/** The error's first lines, on one line: enough to say what and where (a syntax error's message names file:line:column). */
function summary(err: unknown): string {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  const lines = text
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  return lines.slice(0, 3).join(" ").slice(0, 400);
}

/**
 * Imports every function file of `dirs` (in order, each sorted by name) and keeps each export made
 * by `defineAgentFunction`. A file that throws, exports none, or repeats a name or a command taken
 * by an earlier file is a failure: it is reported, and the rest load. `root` makes the reported
 * paths relative. `version` busts the module cache, so a reload in the same process reads files again.
 */
export async function loadFunctionFiles(dirs: readonly string[], { root = process.cwd(), version }: { root?: string; version?: string } = {}): Promise<FunctionCatalogue> {
  const functions: AgentFunction[] = [];
  const failures: FunctionLoadFailure[] = [];
  const byName = new Map<string, string>();
  const byCommand = new Map<string, string>(RESERVED_COMMANDS);
  for (const file of dirs.flatMap(functionFiles)) {
    const shown = path.relative(root, file) || file;
    let exports: Record<string, unknown>;
    try {
      const url = pathToFileURL(file);
      if (version) url.search = `v=${version}`;
      exports = (await import(url.href)) as Record<string, unknown>;
    } catch (err) {
      failures.push({ file: shown, message: summary(err) });
      continue;
    }
    const found = [...new Set(Object.values(exports).filter(isAgentFunction))];
    if (found.length === 0) {
      failures.push({ file: shown, message: "It exports no agent function: export what defineAgentFunction returns (a helper module's name starts with _)." });
      continue;
    }
    for (const fn of found) {
      const taken = byName.get(fn.name);
      if (taken) {
        failures.push({ file: shown, message: `The name "${fn.name}" is taken by ${taken}.` });
        continue;
      }
      const commandTaken = fn.command ? byCommand.get(fn.command) : undefined;
      if (commandTaken) {
        failures.push({ file: shown, message: `The command /${fn.command} of "${fn.name}" is taken by ${commandTaken}.` });
        continue;
      }
      byName.set(fn.name, shown);
      if (fn.command) byCommand.set(fn.command, `"${fn.name}" (${shown})`);
      functions.push(fn);
    }
  }
  return { functions, failures };
}

export function describeCatalogue(catalogue: FunctionCatalogue): AgentFunctionInfo[] {
  return catalogue.functions.map(({ name, description, command, tool }) => ({ name, description, command, tool }));
}

let current: FunctionCatalogue = { functions: [], failures: [] };

/** The catalogue this process runs from (a worker sets it once it has loaded its folders). */
export function useCatalogue(catalogue: FunctionCatalogue): void {
  current = catalogue;
}

export function currentCatalogue(): FunctionCatalogue {
  return current;
}

export function findAgentFunction(name: string): AgentFunction | undefined {
  return current.functions.find((fn) => fn.name === name);
}
