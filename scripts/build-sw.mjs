// Bundles the service worker (lib/client/push/service-worker.ts) into public/sw.js, a classic script
// served at /sw.js. Its shell cache is named after the Next build (`.next/BUILD_ID`), so a new build
// drops the old one; `--dev` names it after the time and turns off the cache-first assets.
import { existsSync, readFileSync } from "node:fs";
import { build } from "esbuild";

/** zod re-exports every locale's messages; the worker shows none of them, so only English (zod's default) is bundled. */
const englishOnly = {
  name: "zod-english-only",
  setup(b) {
    b.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, () => ({ contents: 'export { default as en } from "./en.js";', resolveDir: "node_modules/zod/v4/locales" }));
  },
};

const dev = process.argv.includes("--dev");
const buildId = !dev && existsSync(".next/BUILD_ID") ? readFileSync(".next/BUILD_ID", "utf8").trim() : `dev-${Date.now()}`;

await build({
  entryPoints: ["lib/client/push/service-worker.ts"],
  outfile: "public/sw.js",
  bundle: true,
  format: "iife",
  platform: "browser",
  target: "es2020",
  minify: !dev,
  legalComments: "none",
  define: { __PARLEY_SW_VERSION__: JSON.stringify(buildId), __PARLEY_SW_DEV__: JSON.stringify(dev) },
  plugins: [englishOnly],
  logLevel: "warning",
});
console.log(`built public/sw.js (${buildId})`);
