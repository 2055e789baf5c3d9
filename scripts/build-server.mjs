// Compiles server.ts, the agent worker, the CLI and every function file to dist/ (dependencies stay in node_modules).
import { readdirSync, rmSync } from "node:fs";
import path from "node:path";
import { build } from "esbuild";

/** workers/functions/x.ts → dist/functions/x.js, where the compiled worker looks (the files workers/function-catalogue.ts loads). */
function functionEntries(folder) {
  const dir = path.join("workers", folder);
  const files = readdirSync(dir).filter((f) => /\.(ts|mts)$/.test(f) && !/\.(test|spec)\.\w+$/.test(f) && !f.endsWith(".d.ts") && !/^[_.]/.test(f));
  return Object.fromEntries(files.map((f) => [`${folder}/${f.replace(/\.\w+$/, "")}`, path.join(dir, f)]));
}

// Chunk names change with their content: start empty so old ones don't pile up.
rmSync("dist", { recursive: true, force: true });

await build({
  entryPoints: {
    server: "server.ts",
    "agent-worker": "workers/agent-worker.ts",
    cli: "lib/cli/main.ts",
    "parley-client": "lib/parley-client.ts",
    ...functionEntries("functions"),
    ...functionEntries("test-functions"),
  },
  outdir: "dist",
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  packages: "external",
  // The terminal client (ink, React) loads only for \`parley chat\`: its own chunk.
  splitting: true,
  sourcemap: true,
  logLevel: "warning",
});
console.log("built dist/server.js, dist/agent-worker.js, dist/cli.js, dist/parley-client.js and dist/functions/");
