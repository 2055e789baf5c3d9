// Compiles server.ts and the agent worker to dist/ (dependencies stay in node_modules).
import { rmSync } from "node:fs";
import { build } from "esbuild";

// Chunk names change with their content: start empty so old ones don't pile up.
rmSync("dist", { recursive: true, force: true });

await build({
  entryPoints: { server: "server.ts", "agent-worker": "workers/agent-worker.ts", cli: "lib/cli/main.ts" },
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
console.log("built dist/server.js, dist/agent-worker.js and dist/cli.js");
