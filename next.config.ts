import type { NextConfig } from "next";
import path from "node:path";

const root = path.dirname(new URL(import.meta.url).pathname);

const nextConfig: NextConfig = {
  // A lock file in a parent folder must not become the project root.
  turbopack: { root },
  outputFileTracingRoot: root,
  // The dev server answers on both loopback names; Next 16 blocks cross-host dev requests otherwise.
  allowedDevOrigins: ["127.0.0.1", "localhost"],
  poweredByHeader: false,
  // `npm test` type-checks the whole project in its own step, after the build (scripts/test-all.mjs); `npm run build` alone still checks.
  typescript: { ignoreBuildErrors: process.env.PARLEY_BUILD_TYPECHECKED === "1" },
  reactStrictMode: true,
  // The service worker (scripts/build-sw.mjs writes public/sw.js): checked for a new version on every load.
  async headers() {
    return [
      {
        source: "/sw.js",
        headers: [
          { key: "Content-Type", value: "application/javascript; charset=utf-8" },
          { key: "Cache-Control", value: "no-cache" },
        ],
      },
    ];
  },
};

export default nextConfig;
