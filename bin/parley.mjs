#!/usr/bin/env node
// Launches the Parley CLI from the project folder: the compiled one after `npm run build`,
// else the TypeScript source through tsx.
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
process.chdir(root);
const compiled = path.join(root, "dist/cli.js");
let cli;
if (existsSync(compiled)) {
  cli = await import(pathToFileURL(compiled).href);
} else {
  const { register } = await import("tsx/esm/api");
  register();
  cli = await import(pathToFileURL(path.join(root, "lib/cli/main.ts")).href);
}
await cli.run(process.argv.slice(2));
