// Compiles server.ts and the agent worker to dist/ (dependencies stay in node_modules).
import { build } from "esbuild";

await build({
  entryPoints: { server: "server.ts", "agent-worker": "workers/agent-worker.ts", cli: "lib/cli/main.ts" },
  outdir: "dist",
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  packages: "external",
  sourcemap: true,
  logLevel: "warning",
});
console.log("built dist/server.js, dist/agent-worker.js and dist/cli.js");
