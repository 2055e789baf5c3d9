#!/usr/bin/env node
// `npm start`: serves the production build that `npm install` made, rebuilding first (with Next's
// progress on screen) only the parts whose sources changed since. The server runs in this process.
import path from "node:path";
import { pathToFileURL, fileURLToPath } from "node:url";
import { build } from "./build.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
build({ onlyStale: true, say: (line) => console.log(`> ${line}`) });
await import(pathToFileURL(path.join(root, "dist/server.js")).href);
